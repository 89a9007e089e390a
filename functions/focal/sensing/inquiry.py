"""What a message asks for, read from its form and never from its topic: to KNOW something (what a rule
or a limit is, whether something is possible, how something works) or to have something DONE.

The features are the grammar of a dialogue act, the same in any domain: an interrogative sentence, a
request to be told ("tell me", "I'd like to know"), a request put to the agent ("can you cancel
booking B-12?", "could you check…"), a wish to act ("I want to…", "I need…"), an imperative ("cancel
booking B-12"), and whether the message is about the customer's own case ("my booking", "I paid…", a
value the message states) rather than about how things are in general.

A pure information request asks only to know, about things in general: "what's your cancellation
limit?", "is it possible to change the date after paying?", "how does a rebooking work?". A question
that also asks to act ("can you cancel booking B-12?", "what's the fee? please go ahead") is a request.
"""

from __future__ import annotations

import re

_WH = r"what|what's|whats|which|how|how's|why|when|where|who|whom|whose"
_AUX = (r"is|are|was|were|isn't|aren't|do|does|did|don't|doesn't|can|could|can't|will|would|won't|should|shall|may|"
        r"might|must|have|has|am")
# "Which …?", "Is …?", "Fee limit?": a sentence that asks.
_INTERROGATIVE = re.compile(rf"\?\s*$|^\s*(?:{_WH}|{_AUX}|is there|are there)\b", re.IGNORECASE)
_LEARN = r"know|ask|understand|find out|learn|check whether|check if"
_TELL = r"tell|explain|say|describe|clarify|remind|show|inform|let me know|let us know|give me an idea"
# A request to be told: "tell me …", "please explain …", "I'd like to know …", "I was wondering …".
_KNOW = re.compile(
    rf"^\s*(?:please\s+|kindly\s+|can you\s+|could you\s+|would you\s+)?(?:{_TELL})\b"
    rf"|\b(?:i|we)\s*(?:'d|would|do|really)?\s*(?:like|love|want|wanted|need|needed|wish)\s+to\s+(?:{_LEARN})\b"
    r"|\bwonder(?:ing)?\b|\bcurious\b|\bquick question\b|\bi have a question\b",
    re.IGNORECASE,
)
# A request put to the agent: "can you …", "could you please …", "would you mind …" — unless it asks to be told.
_ASK_AGENT = re.compile(
    rf"\b(?:can|could|would|will|won't|can't)\s+(?:you|u)\s+(?:please\s+|just\s+|kindly\s+)?(?!{_TELL}\b|help me understand\b)\w+"
    r"|\bwould you mind\b|\bi(?:'d| would) (?:like|love|appreciate) (?:you|it if)\b",
    re.IGNORECASE,
)
# A wish to act: "I want …", "I'd like to …", "I need …", "we'd like …" — not a wish to know.
_WISH = re.compile(
    r"\b(?:i|we)\s*(?:'d|would|really|still|just)?\s*(?:like|love|want|wanna|need|wish|have to|must)\b"
    rf"(?!\s+to\s+(?:{_LEARN})\b)"
    r"|\b(?:i|we)(?:'m| am| are)\s+(?:trying|going|looking|hoping|planning)\s+to\b"
    r"|\bplease\b(?!\s+(?:tell|explain|let me know|describe|clarify)\b)"
    r"|^\s*(?:please\s+|so\s+|and\s+)?(?:can|could|may)\s+(?:i|we)\s+(?:please\s+)?(?:get|have|receive)\b"  # "can I get …?"
    # permission asked to act on one's own thing — "can I pause my membership?", "…, could we move our booking?" — is
    # a request (the wh-question "how long can I pause my membership?" opens with its question word, not with "can")
    r"|(?:^|[,;:]\s*)(?:please\s+|so\s+|and\s+)?(?:can|could|may)\s+(?:i|we)\s+(?:please\s+|just\s+)?\w+\b"
    r"(?=[^?]*\b(?:my|our)\b)",
    re.IGNORECASE,
)
# Words that open a sentence without asking or requesting anything.
_PHATIC = re.compile(
    r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening)|thanks|thank you|ok(?:ay)?|so|well|sorry|excuse me|"
    r"quick question|one more thing|also|and|btw|by the way|hi there|hello there|cheers)[\s!.,]*$",
    re.IGNORECASE,
)
# The customer's own case: their things ("my booking"), something they did ("I paid", "we booked"), or a
# reference to one thing ("this booking", "it").
_OWN = re.compile(
    r"\b(?:my|mine|our|ours)\b|\b(?:i|we)\s+(?:just\s+|already\s+)?(?:\w+ed|bought|paid|got|made|sent|took|gave|had|"
    r"was|were|received|booked|returned|spent|lost|left|forgot|broke)\b|\b(?:i|we)(?:'ve| have)\s+\w+",
    re.IGNORECASE,
)
_SENTENCES = re.compile(r"[^.!?\n]+[.!?]*")
# A clause that supposes rather than asks: "… if I have to cancel later", "in case we need to leave early".
_SUPPOSED = re.compile(r"\b(?:if|in case|unless|whether)\b[^,;.!?]*", re.IGNORECASE)
# A wish asked about, not stated: the subject after its auxiliary ("do I need photos?", "must we have a receipt?").
_WISH_ASKED = re.compile(r"\b(?:do|does|did|don't|should|shall|must|would|will)\s+(?:i|we)\s+(?:really\s+|still\s+|also\s+)?"
                         r"(?:need|want|have to|must)\b", re.IGNORECASE)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.findall(text.replace("\u2019", "'")) if s.strip(" .!?")]


def asks_to_know(sentence: str) -> bool:
    """The sentence asks a question or asks to be told something."""
    return bool(_INTERROGATIVE.search(sentence) or _KNOW.search(sentence))


def asks_anything(text: str) -> bool:
    """Some sentence of the message asks a question or asks to be told something."""
    return any(asks_to_know(s) for s in sentences(text))


def _clauses(text: str) -> list[str]:
    return [c.strip() for s in sentences(text) for c in re.split(r"[,;:]|\s+(?:and|but|so)\s+", s) if c.strip(" .!?")]


# A clause inside a sentence that opens with an auxiliary asks only with its question mark: "…and can't train" goes on
# with the sentence's subject.
_ASKS_INSIDE = re.compile(rf"\?\s*$|^\s*(?:{_WH})\b", re.IGNORECASE)


def _asking_clauses(text: str) -> list[str]:
    """The clauses that may ask: each sentence's first clause, and a later one that ends in "?" or opens with a
    question word."""
    out = []
    for sentence in sentences(text):
        parts = [c.strip() for c in re.split(r"[,;:]|\s+(?:and|but|so)\s+", sentence) if c.strip(" .!?")]
        out += [c for i, c in enumerate(parts) if i == 0 or _ASKS_INSIDE.search(c)]
    return out


def asks_for_its_own_sake(text: str) -> bool:
    """Some clause asks a question, or to be told something, that is not a request put as a question: "I want a
    cancellation, where does the money go?" asks one; "can you cancel it?" and "cancel booking B-12" ask none."""
    asking = _asking_clauses(text)
    for clause in _clauses(text):
        if _KNOW.search(clause) and not _ASK_AGENT.search(_KNOW.sub(" ", clause)):
            return True
        if clause in asking and _INTERROGATIVE.search(clause) and not (_ASK_AGENT.search(clause) or
                                                   _WISH.search(_WISH_ASKED.sub(" ", _SUPPOSED.sub(" ", clause)))):
            return True
    return False


def asks_to_act(text: str) -> bool:
    """Some sentence asks the agent to do something: a request put to the agent, a wish to act, or a
    sentence that neither asks to know nor only greets (an imperative, a statement of what to do)."""
    for sentence in sentences(text):
        if _KNOW.search(sentence) and not _ASK_AGENT.search(_KNOW.sub(" ", sentence)):
            continue  # "could you tell me …", "I'd like to know …"
        if _ASK_AGENT.search(sentence) or _WISH.search(_SUPPOSED.sub(" ", sentence)):
            return True  # a wish only supposed ("what's the fee if I have to cancel?") asks for nothing
        if not _INTERROGATIVE.search(sentence) and not _PHATIC.search(sentence):
            return True
    return False


def about_own_case(text: str) -> bool:
    """The message is about the customer's own things or something they did, not about things in general."""
    return bool(_OWN.search(text.replace("\u2019", "'")))


def information_request(text: str, states_values: bool = False) -> bool:
    """Only a question about how things are in general: some sentence asks to know, none asks to act, and
    nothing in it is the customer's own case (`states_values`: the message gives a value of a slot)."""
    if states_values or not asks_anything(text):
        return False
    return not asks_to_act(text) and not about_own_case(text)
