"""The words of a yes or a no with details at a confirmation (focal.sensing.confirmation_reply), in the turn's language:
English here, Spanish, German and French from the tables of focal.sensing.reply_words.

- a condition or a doubt after the yes ("if", "si", "wenn"), or a refused value ("not", "pas", "nicht"): such details
  are not read (every language's words at once, as the lexicon matches them: reading less is the safe side);
- the words that introduce a value ("… to X", "… a X", "… c'est X"; after a no only the explicit ones: "no, it's X"),
  those that refer to a value instead of stating it ("my home address", "mi dirección", "meine Adresse"), and the
  words that carry an agreeing value ("with", "avec", "con", "mit"): the turn's language's and English;
- an amount agrees with the currency written beside it ("10 euros", "$312"): English names and the turn's language's
  (CLDR, the names the amount reader knows).
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.sensing import reply_words
from focal.sensing.locale_figures import currency_words
from focal.sensing.reading_language import current

_CONDITION = re.compile(r"\b(if|unless|as long as|provided|once|after|until|when|maybe|perhaps|not sure|"
                        r"only|wait|hold on|later|tomorrow|first)\b|\?", re.IGNORECASE)
_REFUSAL = re.compile(r"\b(?:not|never|without|neither|nor|except|instead of|rather than)\b|n't\b"
                      r"|\bno\b(?!\s+(?:problem|worries|rush|hurry)\b)", re.IGNORECASE)
_MARKER = re.compile(r"\b(?:to|is|it's|it is|should be|make it|change it to|use|at|into|for|as)\s+", re.IGNORECASE)
_EXPLICIT = re.compile(r"\b(?:it's|it is|it should be|should be|make it|change it to|use)\s+", re.IGNORECASE)
_REFERENCE = re.compile(r"^(?:my|our|the|this|that|his|her|their|your|same|usual)\b", re.IGNORECASE)
# Words that state no value of their own: a candidate made only of them is none ("it is", "the same").
EMPTY = frozenset("it is as that this the a an one same them there here fine ok okay good right so".split())
# The English words that carry a value without stating one ("yes, go ahead with $10 on account 12").
CARRIERS = frozenset("to it them at for on in with a an the my our that this one is as same".split())
_CURRENCY = ("$", "€", "£", "dollar", "dollars", "usd", "euro", "euros", "eur", "pound", "pounds", "gbp", "bucks")
_TRAILING = re.compile(r"(?:[\s,;.!]+(?:please|instead|thanks|thank you|then|too))+[\s.!]*$|[\s,;.!]+$", re.IGNORECASE)
# The customer's words as the agent says them back: "my home address" → "your home address".
_PERSON = {
    "en": {"my": "your", "our": "your", "mine": "yours", "me": "you", "i": "you", "we": "you", "us": "you"},
    "es": {"mi": "su", "mis": "sus", "nuestro": "su", "nuestra": "su", "nuestros": "sus", "nuestras": "sus"},
    "de": {"mein": "Ihr", "meine": "Ihre", "meinem": "Ihrem", "meinen": "Ihren", "meiner": "Ihrer", "unser": "Ihr",
           "unsere": "Ihre", "unserem": "Ihrem", "unseren": "Ihren"},
    "fr": {"mon": "votre", "ma": "votre", "mes": "vos", "notre": "votre", "nos": "vos"},
}


@lru_cache(maxsize=32)
def _language_pattern(kind: str, lang: str | None, where: str) -> re.Pattern[str] | None:
    said = reply_words.words(kind, lang)
    if not said:
        return None
    alternation = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(said, key=len, reverse=True))
    if where == "before":  # the word introduces what follows it
        return re.compile(rf"(?<![\w'’-])(?:{alternation})\s+", re.IGNORECASE)
    if where == "end":  # the words close the text
        return re.compile(rf"(?:[\s,;.!]+(?:{alternation}))+[\s.!]*$", re.IGNORECASE)
    return re.compile(rf"^(?:{alternation})(?![\w'’-])", re.IGNORECASE)


def puts_a_condition(details: str) -> bool:
    """The details put a condition or a doubt on the yes, or refuse a value: they are not read."""
    return bool(_CONDITION.search(details) or _REFUSAL.search(details) or reply_words.contains("condition", details)
                or reply_words.contains("refuse", details))


_AND = r"(?:and|und|y|e|et)"  # the word that joins thanks to the yes ("ja, und danke")
_THANKS_EN = ("thanks", "thank you", "many thanks", "cheers")
_FOR = r"(?:for|für|fuer|por|pour)"  # what the thanks are for: no value of its own when it holds no figure
# a second clause after the thanks ("thanks, and also a second one free", "danke und auch B30254"): more than thanks
_MORE = re.compile(r"\b(?:and|und|y|et|also|auch|también|aussi|but|aber|pero|mais|please|bitte|por favor|s'il vous)\b",
                   re.IGNORECASE)


def only_thanks(details: str) -> bool:
    """The details after a yes only thank ("and thanks for the quick help", "und danke für die schnelle Hilfe",
    "merci pour votre aide"): thanks, in English or the turn's language, and what they are for, with no figure, no
    second clause and no question; such a yes is as sure as a plain one."""
    if _MORE.search(re.sub(rf"^{_AND}\s+", "", details.strip(), flags=re.IGNORECASE)):
        return False
    said = set(_THANKS_EN) | reply_words.words("thanks", current())
    thanks = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in sorted(said, key=len, reverse=True))
    return re.fullmatch(rf"(?:{_AND}\s+)?(?:{thanks})(?:\s+(?:so\s+much|a\s+lot|again|schön|beaucoup|bien))?"
                        rf"(?:\s+{_FOR}\s+[^\W\d_]+(?:[\s'’-]+[^\W\d_]+)*)?[\s.!]*", details, re.IGNORECASE) is not None


def markers(details: str, explicit: bool) -> list[re.Match[str]]:
    """Where words introduce a value in the details, in order: the turn's language's and English."""
    found = list((_EXPLICIT if explicit else _MARKER).finditer(details))
    own = _language_pattern("explicit" if explicit else "marker", current(), "before")
    if own is not None:
        found += own.finditer(details)
    return sorted(found, key=lambda m: m.end())


def refers(phrase: str) -> bool:
    """The phrase opens with words that refer to a value instead of stating it ("my", "mi", "meine", "mon")."""
    own = _language_pattern("reference", current(), "start")
    return bool(_REFERENCE.match(phrase) or (own is not None and own.match(phrase)))


def without_trailing(text: str) -> str:
    """`text` without the courtesy words after a value ("… please", "… por favor", "… bitte", "… merci")."""
    own = _language_pattern("trailing", current(), "end")
    return _TRAILING.sub("", own.sub("", text) if own is not None else text).strip()


def empty_words() -> frozenset[str]:
    """The words that state no value of their own: English, and the turn's language's carriers."""
    return EMPTY | reply_words.words("carrier", current())


def carrier_words() -> frozenset[str]:
    return CARRIERS | reply_words.words("carrier", current())


def with_currency(amount: str) -> str:
    """An agreeing amount's pattern with the currency written beside it ("10 euros", "$312", "312 Dollar")."""
    lang = current()
    names = set(_CURRENCY) | (set(currency_words(lang)) if lang else set())
    said = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return rf"(?:(?<!\w)(?:{said})\s?)?{amount}(?:\s?(?:{said})(?!\w))?"


def said_back(words: list[str]) -> list[str]:
    """The customer's words as the agent says them back ("my" → "your", "mi" → "su")."""
    person = _PERSON.get(current() or "en", {})
    return [person.get(w.lower(), w) for w in words]


def english_turn() -> bool:
    return current() is None
