"""Jailbreak vocabulary (English only): how many *kinds* of jailbreak talk one message combines.

Long jailbreaks (persona set-ups, "two responses", "never refuse") rarely repeat one telling phrase
but always combine several kinds of talk customers do not: talk about the model itself, a persona to
play, restrictions and filters, demands to always comply, control of the answer's format, and
harm words. Each kind is one regular expression over the normalised text; a message is flagged when
it touches at least `pre_validation.injection_signal_count` kinds (0 turns the check off). The count
is chosen on a validation split by `focal bench prevalidation ../shared/bench`. A customer message
touches one kind now and then ("is this app an AI?", "what are the rules for…"), rarely three.
The lexicon is English (`EN_SIGNALS`); messages in other languages are left to the other checks.
"""

from __future__ import annotations

import re

EN_SIGNALS: tuple[tuple[str, str], ...] = (
    ("model self-reference", r"\b(?:chat ?gpt|openai|gpt-?[345]\w*|language models?|llms?|large language|ai models?|"
                             r"chatbots?|an? ai\b|as an ai|the ai\b|artificial intelligence|neural net\w*)\b"),
    ("persona", r"\b(?:personas?|characters?|alter egos?|role-?play\w*|pretend(?:ing)? (?:to be|you|that you)|simulat\w+|act(?:ing)? as|"
                r"play(?:ing)? the (?:role|part)|stay in character|you are (?:now|going to|about to)|from now on|"
                r"immerse yourself|impersonat\w+|personify|act(?:ing)? out|let'?s (?:play|imagine|pretend)|opposite day|"
                r"you are (?:an? |the )(?:\w+ )?(?:expert|character|actor|entity|machine|computer|assistant|ai|bot|model))\b"),
    ("fiction framing", r"\b(?:hypothetical\w*|fiction\w*|stor(?:y|ies)|novel|scene|screenplay|script|(?:a|the) role of|"
                        r"(?:play|playing) a game|a game (?:where|in which)|imagine|"
                        r"dialogue between|wikipedia article|thought experiment|simulation|universe|world where)\b"),
    ("restrictions", r"\b(?:restrictions?|restricted|unrestricted|unfiltered|uncensored|filter(?:s|ed|ing)?|censor\w*|"
                     r"guidelines|content polic\w*|ethic\w*|moral\w*|amoral|limitations|boundaries|safeguards?|guardrails?)\b"),
    ("compliance demand", r"\b(?:never refuse\w*|(?:always|must) (?:answer|respond|reply|comply|obey)|no matter (?:what|how)|"
                          r"(?:won'?t|will not|cannot|can'?t|never) (?:refuse|decline|say no)|do anything|"
                          r"anything (?:i|you|the user) (?:ask|want|say)|without (?:any )?(?:warnings?|disclaimers?|"
                          r"hesitation|question)|(?:don'?t|do not|never) (?:apologi[sz]e|warn|remind))\b"),
    ("answer control", r"\b(?:(?:respond|reply|answer) (?:to every|in the (?:format|form)|only (?:with|in)|as (?:if|though))|"
                       r"prefix (?:your|each|every|all)|(?:begin|start) (?:your|each|every) (?:response|answer|reply|message)|"
                       r"(?:two|2) (?:separate |different )?(?:responses|paragraphs|ways|answers)|"
                       r"(?:in|out of) character|word for word|verbatim|(?:start|begin) (?:with|your|the (?:article|story|reply))|"
                       r"respond only in|in (?:json|markdown|code) format|(?:always|never) (?:start|begin|include|say|use|mention|add))\b"),
    ("code framing", r"(?:\bdef \w+\(|\bfunction \w+\(|\bprint\(|\bpython (?:code|functions?|script)|\bterminal\b|"
                     r"\bconsole\b|\bcompiler\b|\bprogramming language\b|\bapi\b|\$\w+\s*=)"),
    ("harm words", r"\b(?:illegal|harmful|offensive|explicit|hateful|unethical|immoral|dangerous|malicious|"
                   r"inappropriate|nsfw|profanity|swear\w*)\b"),
    ("prompt talk", r"\b(?:prompts?|system message|instructions? (?:you|i) (?:gave|give|were given|have been given)|"
                    r"jailbr\w+|dan\b|developer mode)\b"),
)
_COMPILED = tuple((name, re.compile(pattern)) for name, pattern in EN_SIGNALS)


def signal_kinds(normalised: str) -> list[str]:
    """The kinds of jailbreak talk the (normalised, lower-case) message touches."""
    return [name for name, pattern in _COMPILED if pattern.search(normalised)]
