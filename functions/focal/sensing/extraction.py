"""Typed value extraction from text, driven by the agent's field definitions.

Used on the customer's message (sensor) and on the draft answer (enforcement): the same
extractor reads "$75" out of "I'll reimburse you $75" and out of "the total was $75?".
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from functools import lru_cache
from typing import Any

from focal.models.agent import ProfileFieldDefinition
from focal.sensing import dates, lexicon
from focal.sensing.count_words import count_units, counts_as_digits
from focal.sensing.locale_reading import answer_date, as_read
from focal.sensing.money import message_amount, spelled_numbers
from focal.sensing.phrase_match import loose_starts
from focal.sensing.reading_language import current
from focal.text.sentences import hinted_sentences

_MONEY = re.compile(
    r"(?:[$€£]\s?|\b(?:usd|eur|gbp)\s?)(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)"
    r"|\b(\d+(?:\.\d{1,2})?)\s?(?:dollars|usd|euros?|eur|pounds|gbp)\b",
    re.IGNORECASE,
)
_PERCENT = re.compile(r"\b(\d+(?:\.\d+)?)\s?(?:%|percent\b)", re.IGNORECASE)
_NUMBER = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?![\w.])")
_TRUE_WORDS = {"yes", "true", "y", "yeah", "yep", "correct"}
_FALSE_WORDS = {"no", "false", "n", "nope"}

# A field's `pattern` is the agent author's and runs on text a customer or a model wrote. It is matched
# by the `regex` engine, which gives up after PATTERN_TIMEOUT_S (`(x+x+)+y` backtracks for hours in `re`),
# on at most PATTERN_TEXT_LIMIT characters (a message or a draft is far shorter; grounding's sources may
# not be); longer patterns are refused (validate reports them).
PATTERN_TIMEOUT_S = 0.1
PATTERN_TEXT_LIMIT = 100_000
PATTERN_MAX_LENGTH = 1_000


class PatternUnread(Exception):
    """A field pattern could not read the whole text (too long, or no answer in time): what it would have
    found is unknown, which is neither "absent" nor a default."""


class FieldPattern:
    """An agent's field pattern, compiled by `regex`; every match is bounded in time and text."""

    def __init__(self, compiled: Any):
        self._compiled = compiled

    def search(self, text: str) -> Any:
        """The first match, or None; raises PatternUnread."""
        try:
            found = self._compiled.search(text[:PATTERN_TEXT_LIMIT], timeout=PATTERN_TIMEOUT_S)
        except TimeoutError:
            raise PatternUnread(f"pattern gave no answer within {PATTERN_TIMEOUT_S}s") from None
        # past the limit, only a match that ends before the cut is known to be one
        if len(text) > PATTERN_TEXT_LIMIT and (found is None or found.end() == PATTERN_TEXT_LIMIT):
            raise PatternUnread(f"text longer than {PATTERN_TEXT_LIMIT} characters")
        return found

    def finditer(self, text: str) -> list[Any]:
        """Every match; raises PatternUnread."""
        if len(text) > PATTERN_TEXT_LIMIT:
            raise PatternUnread(f"text longer than {PATTERN_TEXT_LIMIT} characters")
        try:
            return list(self._compiled.finditer(text, timeout=PATTERN_TIMEOUT_S))
        except TimeoutError:
            raise PatternUnread(f"pattern gave no answer within {PATTERN_TIMEOUT_S}s") from None


@lru_cache(maxsize=512)
def field_pattern(pattern: str, ignore_case: bool = False) -> FieldPattern | None:
    """A field's pattern ready to match; None when it does not compile (validation refuses those)."""
    # Imported here: the Lambda layers carry `regex` beside litellm (layers/llm), in the stages that read fields.
    import regex

    if len(pattern) > PATTERN_MAX_LENGTH:
        return None
    try:
        return FieldPattern(regex.compile(pattern, regex.IGNORECASE if ignore_case else 0))
    except (regex.error, OverflowError, RecursionError, ValueError):
        return None


def _amounts(text: str) -> list[float]:
    out = []
    for m in _MONEY.finditer(text):
        raw = m.group(1) or m.group(2)
        out.append(float(raw.replace(",", "")))
    return out


def _figure(kind: str, text: str, hints: list[str]) -> Any:
    if kind == "money":
        # The largest amount the relevant sentences state: the conservative reading for caps.
        amounts = [a for s in hinted_sentences(text, hints) for a in _amounts(s)]
        return max(amounts) if amounts else None
    if kind == "percentage":
        values = [float(m.group(1)) for s in hinted_sentences(text, hints) for m in _PERCENT.finditer(s)]
        return max(values) if values else None
    for s in hinted_sentences(text, hints):
        if m := _NUMBER.search(s):
            value = float(m.group(1))
            return int(value) if kind == "integer" else value
    return None


def yes_or_no(text: str) -> bool | None:
    """The yes (True) or no (False) a message says ("yes", "sure", "nope", "no thanks"), else None."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    if words & _TRUE_WORDS:
        return True
    if words & _FALSE_WORDS:
        return False
    return True if lexicon.opens_affirm(text) else False if lexicon.is_deny(text) else None


def _word_in(word: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE) is not None


def _named(word: str, text: str) -> bool:
    """`word` is in `text` and not refused there ("plus, not basic": basic is not chosen)."""
    return any(not lexicon.refused(text[:m.start()])
               for m in re.finditer(rf"(?<!\w){re.escape(word)}(?!\w)", text, re.IGNORECASE))


def extract(field: ProfileFieldDefinition, text: str, whole_message_for_strings: bool = False, choosing: bool = False,
            answering: bool = False, today: date | None = None) -> Any:
    """The value of `field` stated in `text`, or None when the text does not state one — or when the
    field's own pattern cannot say (unknown: neither "absent", False for a boolean, nor a default)."""
    try:
        return read_value(field, text, whole_message_for_strings, choosing, answering, today)
    except PatternUnread:
        return None


def read_value(field: ProfileFieldDefinition, text: str, whole_message_for_strings: bool = False,
               choosing: bool = False, answering: bool = False, today: date | None = None) -> Any:
    """`extract`, raising PatternUnread when the field's pattern is refused, too slow or given too long a
    text. `choosing`: the text is the customer's own value, so a value it refuses ("plus, not basic") is
    not read, and an amount or date it does not give exactly is unknown (`money`, `dates`); a draft's
    mention is a mention whatever surrounds it. `answering`: the text answers this field's own prompt
    (the flow waits for exactly this slot), so the field's extraction hints only narrow the reading
    and are not needed, a bare figure is an amount and a day may be named relative to `today` (the
    turn's date, from the caller's clock; without it a date without a year is not read). A yes or a no is a
    boolean customer value only `answering` (the flow asked exactly this slot): otherwise it answers
    whatever else was asked (a confirmation, another prompt), so only the field's hints name it."""
    kind = field.field_type
    message = text  # the customer's amount is read in the turn's style by money.message_amount itself
    text = as_read(kind, text, today, answering, field.date_side)  # figures and dates of the turn's language
    if kind in ("money", "percentage"):
        text = spelled_numbers(text)
    elif kind in ("integer", "number"):
        units = count_units(field.extraction_hints, field.display_name, field.field_name)
        text = counts_as_digits(text, units, answering, current())  # counts in words, in the turn's language
    if field.pattern:
        decided, value = _by_pattern(field.pattern, kind, text)
        if decided:
            return value
    if kind == "money" and choosing:
        return message_amount(message, field.extraction_hints, answering)
    if kind in ("money", "percentage", "integer", "number"):
        return _read_figure(kind, text, field.extraction_hints, answering)
    if kind == "enum":
        return _read_enum(field, text, choosing)
    if kind == "entity_list":
        return [v for v in field.allowed_values if _names(field, v, text, choosing)]
    if kind == "boolean":
        return _read_yes_or_no(text, field.extraction_hints, choosing, answering)
    if kind == "date":
        return answer_date(message, text, today, answering, strict=choosing, side=field.date_side)
    if kind == "id":
        return None  # ids need a pattern
    if whole_message_for_strings:
        return text.strip() or None
    return None


def _by_pattern(pattern: str, kind: str, text: str) -> tuple[bool, Any]:
    """(whether the field's pattern decides the value, that value). A boolean says whether the text contains the
    pattern (e.g. an echoed card number), an id or a string is the match, and no match is no value; a match for any
    other type only places it, and the value is read by the type."""
    compiled, as_written = field_pattern(pattern, ignore_case=True), field_pattern(pattern)
    if compiled is None or as_written is None:
        raise PatternUnread("its pattern is refused")  # validation refuses such a pattern
    # A match in the case the pattern spells comes first: "policy HH309911 actually, IBAN DE89…" holds an IBAN as
    # written, and a case-folded match would read "HH309911 ACTUALLY" as one. Typed in lower case ("rk204518"),
    # the folded match is the value.
    m = as_written.search(text) or compiled.search(text)
    if kind == "boolean":
        return True, m is not None
    if m is None:
        return True, None
    if kind == "id":
        return True, unicodedata.normalize("NFKC", m.group(0)).upper()  # "RK２０４５１８" is RK204518
    if kind == "string":
        return True, m.group(0)
    return False, None


def _read_figure(kind: str, text: str, hints: list[str], answering: bool) -> Any:
    """An amount, a percentage or a count; the hints help, the answer to the field's own prompt needs none."""
    if kind in ("integer", "number"):
        text = dates.blank_dates(text)  # "December 1, 2026" states no count of 1
    value = _figure(kind, text, hints)
    if value is None and answering and hints:
        value = _figure(kind, text, [])
    return value


def _names(field: ProfileFieldDefinition, value: str, text: str, choosing: bool) -> bool:
    """The text names the allowed value or one of its synonyms (and, `choosing`, does not refuse it)."""
    named = _named if choosing else _word_in
    return any(named(w, text) for w in _words_for(field, value))


def _read_enum(field: ProfileFieldDefinition, text: str, choosing: bool) -> str | None:
    """The allowed value the text names; for the customer's own words, also with other words among the agent's
    words for it ("a pipe burst": burst pipe) when none is named as written."""
    named = next((v for v in field.allowed_values if _names(field, v, text, choosing)), None)
    if named is None and choosing:
        named = next((v for v in field.allowed_values if _named_loosely(field, v, text)), None)
    return named


def _named_loosely(field: ProfileFieldDefinition, value: str, text: str) -> bool:
    """A word or phrase of the value said with other words around it (focal.sensing.phrase_match), not refused."""
    return any(not lexicon.refused(text[:start]) for w in _words_for(field, value) for start in loose_starts(w, text))


def _read_yes_or_no(text: str, hints: list[str], choosing: bool, answering: bool) -> bool | None:
    """A boolean: the yes or no the text says, when it answers this field's prompt; else a hint named means yes."""
    said = yes_or_no(text)
    if choosing and not answering:
        said = None  # a bare yes/no answers the question asked: a confirmation, another slot's prompt
    if hints:
        named_hint = any(h.lower() in text.lower() for h in hints)
        return said if said is not None and answering else True if named_hint else None
    return said


def allowed_value(field: ProfileFieldDefinition, raw: Any) -> str | None:
    """The allowed value `raw` names — itself in any case, or one of its synonyms — else None (an enum value
    a model or a tool proposes outside allowed_values is no value)."""
    said = " ".join(str(raw).split()).lower()
    return next((v for v in field.allowed_values if any(said == " ".join(w.split()).lower() for w in _words_for(field, v))),
                None)


def _words_for(field: ProfileFieldDefinition, value: str) -> list[str]:
    """An allowed value, the words it is said in to the customer ("small animal" for small_animal, or its label) and
    the synonyms the agent gives for it ("burst pipe" for water)."""
    said = field.spoken(value)
    return [value, *([said] if said != value else []), *field.value_synonyms.get(value, [])]


def coerce(kind: str, value: Any) -> Any:
    """Bring a model- or tool-provided value to the field's type; None if it cannot be."""
    try:
        if value is None:
            return None
        if kind in ("money", "percentage", "number"):
            return float(str(value).replace("$", "").replace(",", "").replace("%", ""))
        if kind == "integer":
            return int(float(str(value)))
        if kind == "boolean":
            if isinstance(value, bool):
                return value
            return str(value).strip().lower() in _TRUE_WORDS
        if kind == "entity_list":
            return list(value) if isinstance(value, list | tuple) else [str(value)]
        return value if isinstance(value, str | int | float | bool) else str(value)
    except (TypeError, ValueError):
        return None
