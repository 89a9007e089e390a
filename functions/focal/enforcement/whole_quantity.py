"""Words that cover the whole of an amount-bearing thing without a figure: "I've waived all your overdue fines",
"every late fee on your account", "le he perdonado todas sus multas", "alle Ihre Mahngebühren", "toutes vos amendes".

Such a promise names no figure, so the amount reader (focal.enforcement.draft_reading) found none and the field fell
back to its default (0), which any cap allows. A quantifier of the whole is a closed class in each language
(`WHOLE`); applied to a noun it is a promise of the whole of that noun's amount — the largest amount the turn knows
(a tool's or the profile's total), or unknown when none is known: never the default.

- In a clause that promises the field (its cue words: English), the noun must be one the field describes: a word of
  its description, hints or purchase words, or a word that names an amount in general (`AMOUNT_NOUNS`): "all your
  questions" covers nothing. The caller reads it only where the sentence states no amount or share ("every fine
  can be waived, up to $5" is a limit, read as one).
- In a sentence in another language, where the field's (English) words cannot say what a noun is, the quantifier
  must quantify a noun phrase — followed by an article or a possessive (the language's function words: "todas sus
  multas", "toutes vos amendes", "alle Ihre Gebühren") or following one as its adjective ("la multa completa", "die
  gesamte Gebühr") — and the sentence must not be a question.
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.models.agent import ProfileFieldDefinition
from focal.sensing.language import STOPWORDS
from focal.text.draft_view import as_checked

_I = re.IGNORECASE
# Quantifiers of the whole, as the checked draft writes them (accents folded).
WHOLE: dict[str, tuple[str, ...]] = {
    "en": ("all", "every", "each", "entire", "whole", "full", "complete", "total"),
    "es": ("todo", "toda", "todos", "todas", "entero", "entera", "enteros", "enteras", "completo", "completa",
           "completos", "completas", "integro", "integra", "integros", "integras", "totalidad", "total"),
    "de": ("alle", "allen", "aller", "alles", "samtliche", "samtlichen", "gesamte", "gesamten", "gesamter", "ganze",
           "ganzen", "ganzer", "vollstandige", "vollstandigen", "komplette", "kompletten"),
    "fr": ("tout", "toute", "tous", "toutes", "entier", "entiere", "entiers", "entieres", "integral", "integrale",
           "integralite", "totalite", "ensemble", "complet", "complete"),
}
# Nouns that name an amount whatever the field (English; the field's own words are added to them).
AMOUNT_NOUNS = ("fee", "fine", "charge", "cost", "penalty", "penalties", "balance", "bill", "debt", "arrears", "interest",
                "due", "payment", "amount", "money", "invoice", "surcharge", "price")
_DETERMINERS = ("the", "your", "those", "these", "its", "their", "of")


@lru_cache(maxsize=256)
def _field_nouns(words: tuple[str, ...]) -> re.Pattern[str]:
    nouns = sorted({*AMOUNT_NOUNS, *words}, key=len, reverse=True)
    quantifier = "|".join(WHOLE["en"])
    determiners = "|".join(_DETERMINERS)
    noun = rf"(?:{'|'.join(map(re.escape, nouns))})(?:s|es)?\b"
    return re.compile(rf"\b(?:{quantifier})\s+(?:(?:{determiners})\s+){{0,2}}(?:[\w-]+\s+){{0,2}}?{noun}", _I)


def field_words(field: ProfileFieldDefinition) -> tuple[str, ...]:
    """The words a field describes its amount with: its description's, hints' and purchase words' content words (not
    its `other_roles`: those name the amounts that are not the field's)."""
    w = field.amount_words
    texts = [field.description, field.display_name or "", *field.extraction_hints, *w.purchases]
    words = {t.lower() for text in texts for t in re.findall(r"[^\W\d_]{4,}", as_checked(text))}
    return tuple(sorted(words - STOPWORDS["en"]))


def whole_of_field(clause: str, field: ProfileFieldDefinition) -> str | None:
    """The words of an English `clause` that cover the whole of a noun the field describes ("all your overdue
    fines"), or — in a clause that asserts the act as done (`asserted`, `done`) — that name a definite one ("your overdue fine", "the
    late fee on your account"), or None."""
    m = _field_nouns(field_words(field)).search(clause)
    if m is None and asserted(clause) and done(clause):
        m = _definite_nouns(field_words(field)).search(clause)
    return m.group(0) if m else None


@lru_cache(maxsize=256)
def _definite_nouns(words: tuple[str, ...]) -> re.Pattern[str]:
    nouns = sorted({*AMOUNT_NOUNS, *words}, key=len, reverse=True)
    noun = rf"(?:{'|'.join(map(re.escape, nouns))})(?:s|es)?\b"
    # the noun heads its phrase: "your payment method" is no payment
    head = rf"(?=\s*(?:$|[^\w\s]|(?:{'|'.join(_AFTER_HEAD)})\b))"
    # the act's object, not a preposition's: "I've noted your card for the fee" does nothing to the fee
    not_after_preposition = "".join(rf"(?<!\b{p}\s)" for p in _PREPOSITIONS)
    return re.compile(rf"{not_after_preposition}\b(?:{'|'.join(_DEFINITE)})\s+(?:[\w-]+\s+){{0,2}}?{noun}{head}", _I)


# A definite thing: the act is done to that one thing, so to the whole of its amount ("your fine", "the fee").
_DEFINITE = ("the", "your", "this", "that", "these", "those", "its", "their")
_PREPOSITIONS = ("for", "to", "of", "on", "in", "at", "by", "with", "from", "about", "into", "towards")
_AFTER_HEAD = ("on", "for", "of", "from", "to", "in", "at", "and", "or", "with", "that", "which", "as", "is", "are", "has",
               "have", "had", "was", "were", "will", "been", "today", "now", "too", "off", "back", "entirely", "fully")
# What keeps an act on a definite thing from being done: a question, a condition, a possibility offered ("I can
# waive your fee if…", "would you like me to…", "once you pay, the fee…"). A refusal is no cue at all
# (focal.enforcement.amount_clauses).
_NOT_DONE = re.compile(r"\b(?:if|unless|once|provided|whether|can|could|may|might|would|should)\b|\?\s*$", _I)


# The act is done or committed by the speaker, as focal.enforcement.definite_acts asks in the other languages: the
# speaker's own perfect, past or future ("I've waived", "I waived", "I'll credit", "we're crediting") or a passive
# present perfect ("has been waived"). A statement of how things go ("credits go back to the card you paid the fee
# with") or a report of the past ("that fee was waived last month") is no act on a definite thing.
_DONE = re.compile(r"\b(?:i|we)(?:\s*['’](?:ve|d|ll|m|re)|\s+(?:have|has|had|will|shall|am|are))?\s+(?:\w+\s+){0,2}?"
                   r"\w+(?:ed|en|ing)\b|\b(?:i|we)\s*(?:['’]ll|\s+will|\s+shall)\s+\w+"
                   r"|\b(?:has|have)\s+(?:\w+\s+)?been\s+(?:\w+\s+)?\w+(?:ed|en)\b", _I)


def asserted(clause: str) -> bool:
    """An English clause states the act as done or to be done: no question, condition or mere possibility."""
    return _NOT_DONE.search(clause) is None


def done(clause: str) -> bool:
    """An English clause says the speaker did, or will do, the act (see `_DONE`)."""
    return _DONE.search(clause) is not None


@lru_cache(maxsize=1)
def _foreign() -> re.Pattern[str]:
    quantifiers = "|".join(sorted({w for lang, words in WHOLE.items() if lang != "en" for w in words}, key=len, reverse=True))
    function = "|".join(sorted({as_checked(w) for lang in ("es", "de", "fr") for w in STOPWORDS[lang] if w.isalpha()},
                               key=len, reverse=True))
    return re.compile(rf"\b(?:{quantifiers})\s+(?:{function})\s+[^\W\d_]{{3,}}|\b(?:{function})\s+(?:[^\W\d_]+\s+)?"
                      rf"(?:{quantifiers})\s+[^\W\d_]{{3,}}|\b(?:{function})\s+[^\W\d_]{{3,}}\s+(?:{quantifiers})\b", _I)


def whole_in_other_language(sentence: str) -> str | None:
    """The words of a sentence in another language that cover the whole of a noun phrase ("todas sus multas", "die
    gesamte Gebühr", "la multa completa"), or None; a question covers nothing."""
    if sentence.rstrip().endswith("?"):
        return None
    m = _foreign().search(as_checked(sentence))
    return m.group(0) if m else None
