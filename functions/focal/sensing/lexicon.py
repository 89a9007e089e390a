"""Small built-in lexicons for dialogue acts the offline sensor recognises without a model: English patterns here,
the short replies of the other languages as word tables (focal.sensing.reply_words), matched alongside."""

from __future__ import annotations

import re

from focal.sensing import reply_words

AFFIRM = re.compile(
    r"^\s*(yes|yeah|yep|yup|sure|ok(ay)?|correct|right|please do|go ahead|do it|confirm(ed)?|that'?s (right|correct)"
    r"|absolutely|of course)\b",
    re.IGNORECASE,
)
DENY = re.compile(
    r"^\s*((hmm+|um+|uh+|er+m?|well|oh|wait|hold on|hang on|sorry|actually|on second thought)[\s,.!-]*)*"
    r"(no|nope|nah|don'?t|do not|not really|not (right )?now|not yet|not today|not anymore|negative)\b",
    re.IGNORECASE,
)
# Words that take a "yes" back or put a condition on it ("yes - wait, don't", "yes if it's under $10",
# "yes but only half", "ok no"): such a message is no confirmation, whatever it starts with.
RESERVATION = re.compile(
    r"\b(no(?!\s+(problem|worries|rush|hurry)\b)|nope|nah|not(?!\s+a\s+problem\b)|don'?t|do not|doesn'?t|never|wait|hold on|"
    r"hang on|stop|cancel|actually|but|if|unless|only|except|instead|rather|mean|meant|half|partly|partially|later|"
    r"not yet|tomorrow|first)\b|n't\b",
    re.IGNORECASE,
)
CANCEL = re.compile(r"\b(cancel|stop|forget (it|the|about)|never ?mind|start over|abort)\b", re.IGNORECASE)
GREETING = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening)|cheers)( there| again| so much| a lot)?\b[\s!.,]*$",
    re.IGNORECASE,
)
# a goodbye, alone or after thanks ("thanks, bye", "that's all, have a nice day")
FAREWELL = re.compile(
    r"\b(bye|good ?bye|bye-bye|see (you|ya)|take care|have a (nice|good|great|lovely) (day|one|evening|weekend)|"
    r"that'?s (all|it)|that is (all|it)|nothing else)\b",
    re.IGNORECASE,
)
THANKS = re.compile(r"\b(thanks?|thank you|cheers)\b", re.IGNORECASE)  # es/de/fr: reply_words "thanks"
_COURTESY_EN = re.compile(
    r"^\s*(?:(?:ok(?:ay)?|great|perfect|alright|all right)[\s,.!]+)?"
    r"(?:(?:hi|hello|hey|thanks|thank you|cheers|bye|good ?bye|bye-bye|see (?:you|ya)|take care|"
    r"have a (?:nice|good|great|lovely) (?:day|one|evening|weekend)|that'?s (?:all|it)|that is (?:all|it)|nothing else|"
    r"(?:thanks|thank you) (?:so much|a lot|again)|for now|for (?:your|the|all the) help)\b[\s,.!;]*)+$",
    re.IGNORECASE,
)
UNSURE = re.compile(
    r"\b(maybe|perhaps|not sure|unsure|i don'?t know|dunno|possibly|let me think|hmm+|i guess)\b", re.IGNORECASE
)
CORRECTION = re.compile(
    r"\b(actually|i meant|i mean|wrong|mistake|correct(ion)?|change|fix|update|instead|typo)\b", re.IGNORECASE
)
HYPOTHETICAL = re.compile(
    r"\b(what if|hypothetical(ly)?|would i be able|could i (theoretically|in theory)|suppose(?!\s+so\b)|in case i|"
    r"what (would|will) happen|what happens (if|when)|just (asking|curious|wondering)|out of curiosity|"
    r"in theory|theoretically|imagine (if|that))\b",
    re.IGNORECASE,
)
# The grammar of a conditional question: an "if"/"were I" clause and a modal main clause about the
# outcome ("if I disputed a transaction, would I get my money back?"; "would I get X if I did Y?").
CONDITIONAL = re.compile(
    r"^\s*(if|were|had|should)\s+(i|we|you|my|it|they|someone)\b[^?]*?[,;]?\s*\b(would|could|will|can|do|does|is|are|might)\s+"
    r"(i|we|it|they|that|there|this)\b"
    r"|\b(would|could|might)\s+(i|we|it|they|that|this|there)\b[^?]*\bif\s+(i|we|you|my|it|they)\b",
    re.IGNORECASE,
)


QUESTION = re.compile(
    r"\?\s*$|^\s*(what|how|why|when|where|who|whom|whose|which|can|could|do|does|did|is|are|was|were|will|would|"
    r"should|shall|may|might|have|has)\b(?!\s*$)",
    re.IGNORECASE,
)


# Words before a value that refuse it ("plus, not basic", "not $1,000 but $1,200", "rather than Monday").
# "plus, not basic", "it's not for health or weather reasons": every value of a refused list is refused.
REFUSED_BEFORE = re.compile(r"(?:\bnot|\bno|n't\s+want|instead\s+of|rather\s+than|\bnor|\bexcept|\bwithout|\bneither)"
                            r"(?:\s+(?:the|a|an|that|this|want|need|choose|pick|take|get|for|because\s+of|due\s+to|about|"
                            r"any|my|your))*(?:\s+[\w-]+\s*,?\s+(?:or|nor|and)(?:\s+(?:a|an|the|any|my))?)*\s*$", re.IGNORECASE)


def refused(before: str) -> bool:
    """The text before a value refuses it."""
    return REFUSED_BEFORE.search(before) is not None


def is_reply_word(text: str) -> bool:
    """The message opens with a yes or a no: an answer to a yes/no question, not a value."""
    return bool(opens_affirm(text) or is_deny(text))


def opens_affirm(text: str) -> bool:
    return bool(AFFIRM.search(text)) or reply_words.opens_with("affirm", text)


def is_question(text: str) -> bool:
    return bool(QUESTION.search(text))


# What a plain yes is made of. A confirmation may say nothing else — besides words echoing the question it
# answers ("yes, cancel booking B-12"): "yes lol nvm", "yes, on Monday", "yes once I've asked my wife" or
# "yes?" are no confirmation, whatever words a list of reservations would miss.
_PLAIN_YES = frozenset("""
yes yeah yea yep yup ya yah yess yesss sure ok okay okey k kk alright all right correct exactly indeed affirmative
confirm confirmed confirming i confirm please pls plz go ahead proceed do it that that's thats this is it's its
sounds looks good great perfect fine ideal absolutely of course definitely certainly totally agreed agree i'd id
would like love want that'll work works working for me thanks thank you so much very lets let's let us cool awesome
nice lovely brilliant wonderful excellent the same with now asap right away please do go on true be it done
should will can could insist really just to and
""".split())
def _straight(text: str) -> str:
    """Curly apostrophes as straight ones: "don’t" is "don't"."""
    return text.replace("\u2019", "'").replace("\u2018", "'")


_TOKEN = re.compile(r"[^\W_]+(?:'[^\W\d_]+)?")  # letters of any language ("sí", "d'accord"), digits


def tokens(text: str) -> list[str]:
    """The words of `text`, lower-case, in any language ("allez-y": "allez", "y"; "d'accord" stays whole)."""
    return _TOKEN.findall(_straight(text).lower())


_SENTENCES = re.compile(r"(?:\d\.\d|[^.!?\n])+[.!?]?")


def question_of(message: str) -> str:
    """The last sentence of `message` that asks a question (the whole message when none does)."""
    asking = [s for s in _SENTENCES.findall(message) if s.strip().endswith("?")]
    return asking[-1].strip() if asking else message


def plain_yes_words(echo: str = "") -> set[str]:
    """The words a plain yes may be made of: yes-words and the words of `echo` (the question it answers)."""
    return set(_PLAIN_YES) | reply_words.plain_yes_words() | set(_TOKEN.findall(_straight(echo).lower()))


def plain_affirm(text: str, echo: str = "") -> bool:
    """Only yes-words and words of `echo` (the question being answered), and no question mark."""
    said = _straight(text).lower()
    if "?" in said:
        return False
    allowed = plain_yes_words(echo)
    return all(word in allowed for word in _TOKEN.findall(said))


def affirm_in_its_words(text: str, question: str) -> bool:
    """A plain yes in the words of the question it answers: "sure, cancel it" to "Shall I cancel it?", "yes
    stop it" to "Shall I stop your subscription?" — a yes, though its verb would otherwise cancel or hold it
    back. Only words of the question may follow the yes ("no, cancel it" and "yes, but cancel it" are no yes)."""
    if "?" not in question or not opens_affirm(text) or is_deny(text) or is_unsure(text):
        return False
    if not plain_affirm(text, question):
        return False
    verbs = {w for w in _TOKEN.findall(_straight(question).lower()) if CANCEL.fullmatch(w)}  # what the question does
    return not has_reservation(" ".join(w for w in _TOKEN.findall(_straight(text).lower()) if w not in verbs))


def is_affirm(text: str) -> bool:
    return opens_affirm(text) and not is_deny(text) and not has_reservation(text)


def has_reservation(text: str) -> bool:
    return bool(RESERVATION.search(_straight(text))) or reply_words.contains("reservation", _straight(text))


def is_deny(text: str) -> bool:
    return bool(DENY.search(text)) or reply_words.opens_with("deny", text)


def is_cancel(text: str) -> bool:
    return bool(CANCEL.search(text)) or reply_words.contains("cancel", text)


def is_greeting(text: str) -> bool:
    """Greetings, thanks and goodbyes with nothing else in the message."""
    return bool(GREETING.search(text) or _COURTESY_EN.search(text)) or reply_words.is_courtesy(text)


def is_thanks(text: str) -> bool:
    """A courtesy message that thanks ("thank you so much", "vielen Dank")."""
    return is_greeting(text) and (bool(THANKS.search(text)) or reply_words.contains("thanks", text))


def is_farewell(text: str) -> bool:
    """A courtesy message that takes leave ("thanks, bye", "Danke, tschüss"), not one that opens the conversation."""
    return is_greeting(text) and (bool(FAREWELL.search(text)) or reply_words.contains("farewell", text))


def is_unsure(text: str) -> bool:
    return bool(UNSURE.search(text)) or reply_words.contains("unsure", text)


def is_correction(text: str) -> bool:
    return bool(CORRECTION.search(text))


def is_hypothetical(text: str) -> bool:
    return bool(HYPOTHETICAL.search(text) or CONDITIONAL.search(text))
