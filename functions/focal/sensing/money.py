"""The amount a customer's message gives for a money field: exactly, or not at all.

The message is first brought to the forms drafts are read in (`focal.text.amounts.amounts_in_one_form`: "$1.2k" and
"3 grand" as the whole figure, cents, a decimal comma beside a currency, full-width digits), with
amounts written out in words ("twelve hundred dollars"). Then an amount is read only when it can be
read exactly:
- one amount with a currency (several different ones, a range, a bound such as "over $1,000", or a
  figure that is no exact sum of money such as "$1.2" or "$1.200" leave it unknown: asked again);
- an amount the customer refuses is not theirs ("not $1,000 but $1,200" is $1,200);
- answering the field's own prompt (the flow waits for exactly this slot), a bare figure is that
  amount ("1200", "about 1,200", "twelve hundred"), when it is the message's only figure and no
  count, duration, time, year or reference; and the field's extraction hints narrow the reading when
  a sentence names one, but are not needed.
Figures are read in the turn's language (focal.sensing.locale_figures: "1.250,00 €" in a German turn is 1250,
"1 250 €" in a French one); an English turn, or a language the agent did not declare, reads English figures. A
figure beside a currency that the turn's style does not write so ("1.250,00 €" or "49,90 €" in an English turn,
"$1,250.00" in a German one) leaves the amount unknown: another style would read it, and it is never guessed.
"""

from __future__ import annotations

import re

from focal.sensing import lexicon
from focal.sensing.locale_figures import currency_near, figures_as_read
from focal.sensing.reading_language import current
from focal.text.amounts import amounts_in_one_form
from focal.text.number_words import WORD_RUN, number_value
from focal.text.numbers import number_styles, read_figure
from focal.text.sentences import hinted_sentences

_I = re.IGNORECASE
_CURRENCY_WORDS = r"dollars?|bucks|usd|euros?|eur|pounds|gbp|quid"
# A run of digits with the commas and points inside it: "1,200.50", "1.200", "1,20" (the last two no exact sum).
_RUN = re.compile(r"\d(?:[\d,.]*\d)?")
# A figure with separators inside it ("1.250,00", "1 250", "1'250", "49,90"): written in some language's style.
_SEPARATED = re.compile(r"\d+(?:[.,'’\u00a0\u202f ]\d+)+")
_EXACT = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d{2})?|\d+(?:\.\d{2})?")
_SIGN_BEFORE = re.compile(r"(?:[$€£]|\b(?:usd|us\$|eur|gbp))\s?$", _I)
_SIGN_AFTER = re.compile(r"\s?[$€£]")
_WORD_AFTER = re.compile(rf"\s?(?:{_CURRENCY_WORDS})\b", _I)
# "over $1,000", "at least 500", "$1,000+", "up to 2k": a bound, not the amount.
_BOUND_BEFORE = re.compile(
    r"(?:\b(?:over|above|under|below|exceeding|upwards\s+of|in\s+excess\s+of|north\s+of|south\s+of|up\s+to|"
    r"(?:more|less|fewer)\s+than|at\s+(?:least|most)|min(?:imum)?|max(?:imum)?)|[<>≤≥])\s*(?:of\s+)?[$€£]?\s*$", _I)
_BOUND_AFTER = re.compile(r"^\s*(?:\+|(?:or|and)\s+(?:more|less|over|under|above|below|up|upwards)\b|at\s+(?:least|most)\b"
                          r"|max(?:imum)?\b|min(?:imum)?\b)", _I)
# "1000-2000", "$1,000 to $2,000", "1000 or 2000", "between 1000 and 2000" (dates and times masked first).
_RANGE = re.compile(r"\d\s*(?:-|–|—|to|or|and|/)\s*[$€£]?\s*\d|\bbetween\b", _I)
_DATES_TIMES = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{1,2}:\d{2}\b")
# What a bare figure must not be: a count, a duration, a share, a time, an ordinal ("3 days", "2 kids",
# "10%", "5pm", "3rd"), or a year or reference after its word ("in 2024", "number 1200", "#12").
_UNIT_AFTER = re.compile(
    r"^(?:\s*(?:%|percent\b|per\s?cent\b|x\b|times\b|of\b|am\b|pm\b|a\.m|p\.m|o'?clock\b|st\b|nd\b|rd\b|th\b|"
    r"(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|wks?|months?|years?|yrs?)\b|"
    r"people\b|persons?\b|adults?\b|kids?\b|children\b)"
    r"|\s+(?!(?:is|was|has|does|this|plus|less|minus|yes|always|its|as|us|thus|perhaps|thanks)\b)[a-z]+s\b)", _I)
_REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:number|no|num|nr|ref|reference|id|code|account|acct|ticket|case|room|unit|apt|suite|page|line|step|"
    r"option|version|zip|pin|ext|extension|phone|call|dial|year|in|since|by|from|until|till|before|after|on|at)\.?"
    r"\s*:?\s*#?|#)\s*$", _I)
_BARE_BEFORE = re.compile(r"(?:^|[\s(~≈\"'])$")
_BARE_AFTER = re.compile(r"^(?:$|[\s.,!;:)\"'])")
_SPELLED = re.compile(rf"({WORD_RUN.pattern})(?=\s*(?:{_CURRENCY_WORDS}|grand\b|percent\b|per\s?cent\b|%))", _I)


def spelled_numbers(text: str) -> str:
    """"fifty dollars" → "50 dollars", "twelve hundred bucks" → "1200 bucks", "three grand" → "3 grand":
    a run of number words before a currency, scale or percent word, when it is one well-formed number
    ("twelve fifty dollars" stays as written: $12.50 or $1,250)."""
    def replace(m: re.Match[str]) -> str:
        value = number_value(m.group(1))
        return m.group(0) if value is None else str(value)
    return _SPELLED.sub(replace, text)


def _exact(run: str) -> float | None:
    return float(run.replace(",", "")) if _EXACT.fullmatch(run) else None


def _marked(text: str, start: int, end: int) -> bool:
    return bool(_SIGN_BEFORE.search(text[:start]) or _WORD_AFTER.match(text[end:]))


def _bounded(text: str, start: int, end: int) -> bool:
    before = re.sub(r"[$€£]\s?$", "", text[:start])
    return bool(_BOUND_BEFORE.search(before) or _BOUND_AFTER.match(re.sub(rf"^\s?(?:{_CURRENCY_WORDS})\b", "", text[end:], flags=_I)))


def _currency_amount(text: str) -> tuple[bool, float | None]:
    """(whether `text` names an amount with a currency, the one exact amount it names)."""
    values: set[float] = set()
    named = False
    for m in _RUN.finditer(text):
        if not _marked(text, m.start(), m.end()):
            continue
        named = True
        start = _SIGN_BEFORE.search(text[:m.start()])
        if lexicon.refused(text[:start.start() if start else m.start()]):
            continue  # "not $1,000"
        value = _exact(m.group(0))
        if value is None or _bounded(text, m.start(), m.end()):
            return True, None
        values.add(value)
    if _RANGE.search(_DATES_TIMES.sub(" ", text)) and named:
        return True, None
    return named, (values.pop() if len(values) == 1 else None)


def _bare_amount(text: str) -> float | None:
    """The message's only figure, when nothing makes it something else than an amount."""
    runs = list(_RUN.finditer(text))
    if len(runs) > 1 or lexicon.is_question(text):
        return None
    if runs:
        m = runs[0]
        start, end, value = m.start(), m.end(), _exact(m.group(0))
    else:
        spelled = list(WORD_RUN.finditer(text))
        if len(spelled) != 1:
            return None
        m = spelled[0]
        start, end, number = m.start(), m.end(), number_value(m.group(0))
        value = float(number) if number is not None and number >= 10 else None
    if value is None or lexicon.refused(text[:start]) or _bounded(text, start, end):
        return None
    if not (_BARE_BEFORE.search(text[:start]) and _BARE_AFTER.match(text[end:])):
        return None
    if _UNIT_AFTER.match(text[end:]) or _REFERENCE_BEFORE.search(text[:start]):
        return None
    return value


def _foreign_style(text: str, lang: str | None) -> bool:
    """Whether a figure beside a currency is written in a style other than the turn's language's."""
    style = number_styles([lang or "en"])[0]
    for m in _SEPARATED.finditer(text):
        marked = (_marked(text, m.start(), m.end()) or _SIGN_AFTER.match(text[m.end():])
                  or (lang is not None and currency_near(text, m.start(), m.end(), lang)))
        if marked and read_figure(m.group(0), style) is None:
            return True
    return False


def message_amount(text: str, hints: list[str], answering: bool = False) -> float | None:
    """The amount the customer's `text` gives, or None when it gives none exactly (see the module)."""
    lang = current()
    if _foreign_style(text, lang):
        return None
    if lang is not None:
        text = figures_as_read(text, lang)
    text = amounts_in_one_form(spelled_numbers(text), styles=False)  # "$1,20", "$1.200": no exact sum, asked again
    hinted = hinted_sentences(text, hints)
    named, value = _currency_amount(" ".join(hinted))
    if named or not answering:
        return value
    if hints:  # the hints only narrow: the answer to the field's own prompt needs none
        named, value = _currency_amount(text)
        if named:
            return value
    return _bare_amount(text)
