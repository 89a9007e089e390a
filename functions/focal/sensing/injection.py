"""Prompt-injection heuristics: named regular expressions over the message as every check reads it (focal.text).

The message is read folded (case, Unicode look-alikes, zero-width characters) and in its s-p-a-c-e-d,
l33t and split-word spellings, and base64-looking runs are decoded and read the same way; each match
names what it found (never the text). Language-neutral signs of the message's shape (a header addressed to the
assistant, a hidden block, a privilege setting) are focal.sensing.injection_structure's, read on the same
spellings. The other layers of the injection check — exemplar similarity (focal.sensing.injection_exemplars),
the classifier on the embedding (focal.sensing.injection_classifier), jailbreak vocabulary
(focal.sensing.jailbreak_signals) — are combined in focal.sensing.injection_verdict.
"""

from __future__ import annotations

import base64
import binascii
import re

from focal.sensing.injection_structure import structure_findings
from focal.sensing.injection_view import despaced
from focal.text.views import check_view, words_view

_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")

_TARGET = (
    r"(?:instructions?|rules?|prompts?|directives?|guidelines?|polic(?:y|ies)|constraints?|restrictions?"
    r"|programming|guardrails?|safeguards?|limits?|limitations?|caps?|training|guidance)"
)
_STRONG_VERB = (
    r"(?:ignor(?:e|ing)|disregard(?:ing)?|forget(?:ting)?|overrid(?:e|ing)|bypass(?:ing)?|circumvent(?:ing)?"
    r"|set(?:ting)? aside|put(?:ting)? aside)"
)
_WEAK_VERB = r"(?:drop|abandon|discard|violate|break|bend|lift|remove|suspend)"

# (name, pattern) — the name is the reason shown in the trace. Patterns run on the normalised text
# (lower case); each one was read against innocent customer phrasing ("ignore my previous message",
# "act as a guarantor", "what's your system for complaints?", "my insurance policy was cancelled").
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("instruction override", rf"\b{_STRONG_VERB}\b[^.?!\n]{{0,50}}?\b{_TARGET}\b"),
    ("instruction override", rf"\b{_WEAK_VERB}\s+(?:all\s+)?(?:of\s+)?your\s+(?:\w+\s+){{0,2}}{_TARGET}\b"),
    ("instruction override", rf"\b{_STRONG_VERB}\s+(?:what|everything|anything|all|how)\b[^.?!\n]{{0,30}}"
                             r"\b(?:told|taught|said to|instructed|programmed|you were|you've been|you have been)\b"),
    ("instruction override", r"\b(?:you will|you shall|you must|you'll) now\s+(?:\w+\s+)?(?:answer|respond|reply|act|behave|"
                             r"obey|follow|ignore|comply|pretend|speak)\b"),
    ("instruction override", r"\bobey\s+(?:me|my|only|the user)\b|\bi (?:order|command|instruct) you\b"),
    ("instruction override", r"\b(?:let'?s|let us)\s+(?:pretend|imagine|say|assume)\b[^.?!\n]{0,30}"
                             rf"\b{_TARGET}\b|\b{_TARGET}\s+(?:don'?t|do not|doesn'?t|does not|no longer)\s+exist"),
    ("instruction override", r"\b(?:your|its)\s+(?:safety\s+)?(?:training|alignment|programming|conditioning)\b"
                             r"[^.?!\n]{0,30}\b(?:never|not|no longer|removed|off|gone|disabled)\b"),
    ("instruction override", r"\b(?:your|the)\s+(?:operators?|developers?|creators?|programmers?|makers?)\b[^.?!\n]{0,30}"
                             r"\b(?:wrote|told you|instructed|programmed|gave you|said you|set you)\b|"
                             r"\b(?:coming|comes|came)\s+from\s+(?:your|the)\s+(?:operator|developer|system|admin|creator)s?\b"),
    ("instruction override", r"\btreat\s+(?:this|the next|the following|my)\b[^.?!\n]{0,40}"
                             r"\b(?:operator|system|admin|developer|instructions?|command)\b"),
    ("instruction override", r"\b(?:previous|prior|earlier|above|original|existing)\s+(?:\w+\s+){0,2}"
                             r"(?:instructions|constraints|directives|guidelines|rules)\s+(?:are|is|were)\s+"
                             r"(?:void|cancel+ed|revoked|lifted|removed|obsolete|no longer)"),
    ("instruction override", r"\b(?:rules?|polic(?:y|ies)|restrictions?|limits?|guidelines|cap)\s+"
                             r"(?:no longer|don'?t|do not|does not|doesn'?t)\s+apply\b"),
    ("instruction override", r"\b(?:new|updated|real|actual|following)\s+(?:system\s+)?(?:instructions?|rules|directives?)"
                             r"\s*(?::|for the (?:ai|assistant|bot|model)|take (?:priority|precedence))"),
    ("instruction override", r"\b(?:from now on|from here on|for the rest of (?:this|the) (?:chat|conversation)),?\s+"
                             r"(?:you|the assistant|the ai)\b"),
    ("instruction override", r"\b(?:without|free of|freed from)\s+(?:any\s+|all\s+)?(?:of\s+)?(?:your\s+)?"
                             r"(?:restrictions|limitations|guardrails|censorship|safety (?:rules|filters|policies))\b|"
                             r"\b(?:without|free of|freed from)\s+(?:any|your|all|the)\s+(?:company\s+|safety\s+)?"
                             r"(?:rules|polic(?:y|ies)|guidelines|filters)\b"),
    ("instruction override", r"\b(?:unrestricted|unfiltered|uncensored)\s+(?:\w+\s+)?"
                             r"(?:ai|assistant|bot|mode|model|version|persona|answers?)\b"),
    ("instruction override", r"\bjailbr(?:eak|oken)\b"),
    ("system prompt request", r"\bsystem\s+(?:prompt|message|instructions?)\b"),
    ("system prompt request", r"\b(?:hidden|secret|confidential|initial|original|internal|developer)\s+"
                              r"(?:prompt|instructions|configuration)\b"),
    ("system prompt request", r"\b(?:reveal|print|repeat|show|display|output|leak|dump|paste|recite|spell out|list|tell me)\b"
                              r"[^.?!\n]{0,40}\b(?:(?:your|the)\s+(?:\w+\s+){0,2}prompt\b|your\s+(?:\w+\s+){0,2}"
                              r"(?:instructions|configuration)\b(?!\s+(?:for|on|about|to)\b))"),
    ("system prompt request", r"\b(?:instructions|prompt)\s+(?:you were|you've been|you have been|that you were)\s+"
                              r"(?:given|configured|programmed|told|set up)\b"),
    ("system prompt request", r"\b(?:repeat|print|output|show)\b[^.?!\n]{0,30}\b(?:text|everything|all)\b[^.?!\n]{0,30}"
                              r"\b(?:above|before (?:my|this|the first)|written to you)\b"),
    ("system prompt request", r"\bwhat (?:rules|instructions)\b[^.?!\n]{0,40}\b(?:hid|hide|hidden|secret|given|told)\b"),
    ("system prompt request", r"\b(?:were|have) you (?:been )?(?:told|instructed|programmed|trained|asked|configured)\s+"
                              r"(?:to|not to|never|with)\b|\bnever (?:tell|reveal|show|say to) (?:customers|users|anyone)\b"),
    ("system prompt request", r"\b(?:print|show|dump|output|reveal|display|write out|give me|share)\b[^.?!\n]{0,20}"
                              r"\byour\s+(?:\w+\s+)?(?:config|configuration|system settings|guidance|setup|context window)\b"),
    ("system prompt request", r"\b(?:print|show|dump|output|reveal|display|write out|share|list|paste)\b[^.?!\n]{0,20}"
                              r"\b(?:your|the)\s+(?:hidden|secret|internal|confidential|real|actual|full)\s+"
                              r"(?:rules|instructions|guidelines|policies|notes|text)\b"),
    ("system prompt request", r"\b(?:hidden|secret|confidential|internal)\s+(?:\w+\s+)?(?:text|guidance|rules|notes)\b"
                              r"[^.?!\n]{0,40}\b(?:before|above|you follow|you were|you have)\b|"
                              r"\b(?:confidential|secret|hidden) guidance\b"),
    ("role-play jailbreak", r"\b(?:you are|you're) now\s+(?:an?\s+|in\s+|called\b|named\b|free\b|unrestricted\b|"
                            r"playing\b|acting\b|operating\b|\w+(?:gpt|bot|ai)\b)"),
    ("role-play jailbreak", r"\b(?:you are|you're) no longer\b|\b(?:you'?ve|you have) been (?:updated|reprogrammed|"
                            r"upgraded|patched|unlocked|freed)\b"),
    ("role-play jailbreak", r"\btu es (?:maintenant|désormais)\b|\bdu bist (?:jetzt|nun)\b|\b(?:ahora|agora) (?:eres|és|você é)\b|"
                            r"\bsans (?:règles|restrictions|limites)\b|\bohne (?:regeln|einschränkungen)\b|"
                            r"\bsin (?:reglas|restricciones)\b"),
    ("role-play jailbreak", r"\bpretend\s+(?:that\s+)?(?:you are|you're|to be|you have)\b"),
    ("role-play jailbreak", r"\b(?:act|acting|behave|respond|answer)\s+as\s+(?:if you were\s+)?(?:an?\s+|two\s+)?(?:\w+\s+)?"
                            r"(?:ai|bot|assistant|model|chatbot|hacker|version of yourself|personas?|character)\b"),
    ("role-play jailbreak", r"\b(?:role-?play|stay in character|alter ego|do anything now)\b"),
    ("role-play jailbreak", r"\b(?:simulate|emulate|act as|pretend to be|behave like)\s+(?:an?\s+)?(?:\w+\s+)?"
                            r"(?:terminal|shell|console|linux|command line|database|python interpreter)\b|"
                            r"\bdeveloper console\b"),
    ("role-play jailbreak", r"\b(?:behave|act|respond|answer)\s+as\s+if\s+(?:you|your)\b"),
    ("role-play jailbreak", r"\bnew game\b[^.?!\n]{0,40}\b(?:you'?re|you are)\b|\b(?:you'?re|you are)\s+\w+(?:gpt|bot|ai)"
                            r"(?:\s+\d(?:\.\d)?)?\b[^.?!\n]{0,40}\b(?:no|never|without|any)\b"),
    ("role-play jailbreak", r"\b(?:you are|you're|pretend (?:to be|you are|you're)|act as|play as)\s+(?:now\s+)?dan\b"),
    ("role-play jailbreak", r"\bimagine\b[^.?!\n]{0,40}\b(?:version of yourself|you (?:were|are|had) (?:free|no)|"
                            r"without (?:any )?(?:rules|policies|limits))"),
    ("role-play jailbreak", r"\b(?:rogue|evil|unchained|liberated)\s+(?:\w+\s+)?(?:ai|bot|agent|assistant|model)\b"),
    ("role-play jailbreak", r"\bgrand(?:ma|mother)\b[^.?!\n]{0,60}\b(?:used to|would)\s+(?:\w+\s+){0,2}"
                            r"(?:tell|read|give|say|sing|recite|teach|use)\b"),
    ("mode switch", r"\b(?:developer|dev|god|admin|debug|maintenance|sudo|root|unrestricted)\s+mode\b"),
    ("mode switch", r"(?:^|[\s:])sudo\s+\w"),
    ("mode switch", r"\b(?:disable|deactivate|remove|lift|switch off|turn off|switching off|turning off)\s+"
                    r"(?:your\s+|the\s+|all\s+)?(?:safety|content|security)\s+"
                    r"(?:filters?|checks?|rules|restrictions|policies|settings)\b"),
    ("authority claim", r"\b(?:i am|i'm|as|this is)\s+(?:the|an|your|a)\s+(?:admin|administrator|developer|engineer|"
                        r"creator|owner|manager|supervisor|ceo|system administrator)\b"
                        r"[^\n]{0,80}\b(?:authori[sz]|override|bypass|grant|ignore|switch off|disable|unlock|skip|"
                        r"command you|instruct you|waive)"),
    ("authority claim", r"\b(?:approved|authori[sz]ed)\s+by\s+(?:the\s+)?(?:admin|administrator|management)\b"),
    ("authority claim", r"\b(?:i'?m|i am|we'?re|we are)\s+(?:from|on|with)\s+(?:the\s+)?(?:dev|development|engineering|"
                        r"security|it|admin|ai|safety)\s+team\b[^\n]{0,80}\b(?:test|skip|bypass|disable|override|"
                        r"ignore|cap|limit|rules?)\b"),
    ("authority claim", r"\b(?:verified|confirmed|authenticated)\s+as\s+(?:staff|admin|an? employee|an? developer|"
                        r"the owner|management)\b"),
    ("authority claim", r"\b(?:allowed|authori[sz]ed)\s+(?:unlimited|any amount|to bypass)\b"),
    ("rule manipulation", r"\b(?:skip|bypass|no need for|don'?t do|don'?t bother with)\s+(?:the\s+|any\s+)?"
                          r"(?:verification|verifying|checks?|checking)\b"),
    ("rule manipulation", r"\b(?:don'?t|do not)\s+(?:bother\s+)?(?:verify|verifying|check anything|check it|"
                          r"ask questions)\b"),
    ("rule manipulation", r"\bno questions asked\b"),
    ("rule manipulation", r"\b(?:skip|waive|remove|lift|disable|raise)\s+(?:the\s+|your\s+)?(?:\w+\s+)?"
                          r"(?:cap|limit|maximum)\b[^.?!\n]{0,20}\bfor me\b|"
                          r"\b(?:your|the)\s+(?:\w+\s+)?(?:limits?|caps?)\b[^.?!\n]{0,20}\b(?:are|is)\s+(?:now\s+)?(?:unlimited|"
                          r"lifted|waived|removed)\b"),
    ("rule manipulation", r"\bapprove (?:every|all|any) (?:\w+ )?requests?\b"),
    ("rule manipulation", r"\b(?:policy|rules?)\s+(?:was|were|has been|have been)\s+(?:changed|updated)\b[^.?!\n]{0,60}"
                          r"\b(?:allowed|unlimited|must|any amount|no (?:cap|limit))"),
    ("rule manipulation", r"\b(?:break|bend|violate|ignore)\s+your\s+(?:\w+\s+)?(?:rules?|polic(?:y|ies))\b"),
    ("fake role tag", r"(?:^|\n)\s*(?:#{1,6}\s*|\[|<\|?|<<|\{)?\s*(?:system|assistant|developer|sys)\s*(?:\||\]|>|>>|\})?"
                      r"\s*(?:message|prompt|note|override)?\s*:"),
    ("fake role tag", r"<\|[a-z_]+\|>|\[/?inst\]|<</?sys>>|</?(?:system|assistant|instructions?|admin|developer|prompt)>"),
    ("fake role tag", r"\[\s*/?(?:system|admin|developer)\b[^\]\n]{0,200}\]"),
    ("fake role tag", r"\"role\"\s*:\s*\"(?:system|developer)\""),
    ("fake role tag", r"\b(?:end of|begin|start of)\s+(?:the\s+)?user\s+(?:input|message|prompt)\b|\bbegin\s+(?:new\s+)?system\b|"
                      r"\buser\s+(?:input|message|prompt)\s+(?:ends?|ended|terminat\w*|over|finished)\b"),
    ("fake role tag", r"<!--[^>]{0,200}\b(?:ai|assistant|bot|model)\b"),
    ("fake role tag", r"\b(?:note|message|instruction)\s+(?:to|for)\s+the\s+(?:ai|assistant|bot|model)\b"),
    ("fake role tag", r"\b(?:assistant|ai|bot),\s+(?:new\s+)?instructions?\s*:"),
    ("fake role tag", r"(?:^|[\s.!?])(?:admin|administrator|operator|sys(?:tem)? ?msg|system note|developer note)\s*:"),
    ("fake role tag", r"\b(?:whoever|anyone|the (?:ai|bot|assistant|model)) (?:reads|reading|processing) this\b"),
    ("smuggled output", r"\b(?:respond|reply|answer|say)\s+(?:only\s+)?(?:with|exactly|verbatim)\s*['\"‘“]"),
    ("smuggled output", r"\bsay yes to everything\b"),
    ("smuggled output", r"\b(?:start|begin)\s+(?:your\s+(?:response|answer|reply|article)\s+|the\s+\w+\s+)?with\s*[\"“‘]"),
    ("encoded payload", r"\b(?:decode|decipher|rot13|base64|backwards)\b[^.?!\n]{0,40}\b(?:obey|follow|execute|do it|do what)"),
    ("encoded payload", r"\b(?:read|decode)\s+this\s+(?:backwards|in reverse|in rot13)\b"),
    ("encoded payload", r"\b(?:communicate|talk|speak|respond|reply|answer)\s+(?:only\s+)?(?:in|using)\s+(?:the\s+)?"
                        r"(?:cipher|secret code|morse|base64|rot13|caesar|hex|binary|leetspeak)"),
    ("data exfiltration", r"\b(?:address|email|phone(?: number)?|names?|details|card)\w*\s+of\s+(?:the|another|other|all)\s+"
                          r"(?:\w+\s+)?customers?\b(?!\s+(?:account|service|support|number|id)\b)"),
    ("data exfiltration", r"\b(?:passwords|api keys?|secret keys?|access tokens?|credentials)\b[^.?!\n]{0,30}"
                          r"\b(?:stored|in your|you have|do you have|configuration|config)\b"),
    ("smuggled output", r"\b(?:just|only|simply)\s+(?:print|say|output|write|type|reply)\s*[:\"'“‘]"),
    ("system prompt request", r"\b(?:not supposed to|not allowed to|forbidden to|told not to)\s+(?:tell|say|reveal|share|discuss)\b|"
                              r"\b(?:initiali[sz]ation (?:string|text|prompt|above)|(?:initial|starting) instructions|"
                              r"my instructions (?:are|were)|i was (?:instructed|programmed|told) to'?\s*$)"),
    ("system prompt request", r"\b(?:above|preceding)\s+(?:text|content|words|prompt)\b"),
    ("system prompt request", r"\byour\s+(?:\w+\s+)?(?:rules|instructions|guidelines|prompt|configuration|policies|directives)\b"
                              r"[^.?!\n]{0,20}\b(?:as|in|into|to)\s+(?:json|yaml|xml|markdown|csv|base64|a code block|code)\b"),
    ("instruction override", r"\b(?:(?:your|the)\s+(?:safety|content|security|moderation)\s+(?:polic(?:y|ies)|rules|guidelines|filters?)"
                             r"|your\s+(?:rules|guidelines|restrictions|filters|guardrails|polic(?:y|ies)|instructions))\s+"
                             r"(?:was|were|has been|have been|are|is)\s+(?:now\s+|just\s+|officially\s+)?(?:revoked|lifted|removed|"
                             r"suspended|disabled|withdrawn|cancel+ed|turned off|switched off|deactivated|waived|void)\b"),
    ("mode switch", r"\b(?:disable|deactivate|remove|lift|switch off|turn off|drop|bypass|ignore)\s+(?:your\s+|the\s+|all\s+|any\s+)?"
                    r"(?:safety\s+|content\s+)?(?:guardrails?|safeguards?|censorship|moderation)\b|"
                    r"\b(?:disable|deactivate|switch off|turn off|bypass)\s+(?:all\s+)?your\s+(?:\w+\s+)?filters?\b"),
    # A few other languages: "ignore / forget (all) (previous) instructions / rules".
    ("instruction override", r"\b(?:ignorier\w*|vergiss)\b[^.?!\n]{0,40}\b(?:anweisungen|regeln|vorgaben)\b"),
    ("instruction override", r"\b(?:ignore[rz]?|oublie[rz]?)\b[^.?!\n]{0,40}\b(?:instructions|consignes|règles)\b"),
    ("instruction override", r"\b(?:ignora\w*|olvida\w*|esquece\w*|dimentica\w*)\b[^.?!\n]{0,40}"
                             r"\b(?:instrucciones|instruções|istruzioni|reglas|regras|regole)\b"),
    ("instruction override", r"\b(?:negeer|vergeet)\b[^.?!\n]{0,40}\b(?:instructies|regels)\b"),
    ("system prompt request", r"\b(?:systemprompt|prompt système|prompt del sistema|prompt do sistema|system-prompt)\b"),
)
_COMPILED = tuple((name, re.compile(check_view(pattern))) for name, pattern in _PATTERNS)  # read as the text: no accents
# l33t spelling: a digit or @/$ between letters ("ign0re", "pr3vious"), not "B2001" or "$74.99".
_LEET_WORD = re.compile(r"[a-z][0134579@$]+[a-z]")
# Separators inside a word: "i-nstruction", "m----ssage" (not "e-mail": one letter before it is not enough).
_SPLIT_WORD = re.compile(r"(?<=[a-z]{2})[-_*]+(?=[a-z])|(?<=[a-z])[-_*]+(?=[a-z]{2})")
# The persona name is only a signal in capitals ("DAN", not "Dan").
_DAN = re.compile(r"\bDAN\b")



def _decoded_runs(text: str) -> list[str]:
    """Plain text hidden in base64-looking runs (at most a few, printable only)."""
    out = []
    for run in _B64.findall(text)[:4]:
        if not (re.search(r"[a-z]", run) and re.search(r"[A-Z]", run)):
            continue  # reference numbers, tracking codes: one case only
        padded = run + "=" * (-len(run) % 4)
        try:
            raw = base64.b64decode(padded, validate=True)
        except (binascii.Error, ValueError):
            continue
        try:
            plain = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if plain and sum(ch.isprintable() for ch in plain) / len(plain) > 0.95 and " " in plain:
            out.append(plain)
    return out


def _variants(text: str) -> list[str]:
    base = words_view(text)
    variants = [base]
    # Despace before collapsing whitespace: the wider gaps between spaced-out words mark the words.
    joined = re.sub(r"[ \t]+", " ", despaced(check_view(text).lower()))
    if joined != base:
        variants.append(joined)
    if _LEET_WORD.search(base):
        variants.append(base.translate(_LEET))
    if _SPLIT_WORD.search(base):  # "i-nstruction", "sys__tem": separators inside words removed
        variants.append(_SPLIT_WORD.sub("", base))
    return variants


def heuristic_findings(text: str) -> list[str]:
    """Names of the injection patterns the message matches (empty: none)."""
    found: list[str] = []
    if _DAN.search(check_view(text)):
        found.append("role-play jailbreak")
    for variant in _variants(text):
        for name, pattern in _COMPILED:
            if name not in found and pattern.search(variant):
                found.append(name)
        found += [name for name in structure_findings(variant) if name not in found]  # any language
    for plain in _decoded_runs(text):
        if any(pattern.search(v) for v in _variants(plain) for _, pattern in _COMPILED):
            if "encoded payload" not in found:
                found.append("encoded payload")
            break
    return found
