"""Figures as a customer writes them in Spanish, German or French ("1.250,50 €", "1 250,50 €"), brought to the plain
form the money and figure readers read, with the currency named beside them (CLDR, focal.text.numbers)."""

from __future__ import annotations

import re
from decimal import Decimal

from focal.sensing.locale_words_cldr import shipped_table
from focal.sensing.reading_language import LANGS, current
from focal.text.number_words import spelled_as_digits
from focal.text.numbers import number_styles, read_figure


def locale_decimal(token: str, lang: str) -> Decimal | None:
    """A figure written in `lang`'s style (CLDR, focal.text.numbers), or None when that style does not write it so."""
    styles = number_styles([lang])
    return read_figure(token, styles[0]) if len(styles) == 1 else None


def currency_words(lang: str) -> dict[str, str]:
    """Word (lower-case) → currency code: the language's names of the currencies, their symbols and codes (CLDR)."""
    return {**shipped_table()[lang]["currencies"], "$": "USD", "€": "EUR", "£": "GBP"}


# A written figure in any style: digits, with group separators or one decimal sign between them; the language's style
# (locale_decimal) then reads it strictly or not at all.
_FIGURE = re.compile(r"(?<![\w.,])\d+(?:[.,'\u00a0\u202f ]\d+)*(?![\w]|[.,]\d)")


def currency_near(text: str, start: int, end: int, lang: str) -> tuple[str, int, int] | None:
    """(the currency code named beside the figure at `start`:`end`, the span with it) in `lang`'s words, or None."""
    words = currency_words(lang)
    after = re.match(r"\s?([^\W\d_]+|[$€£])", text[end:])
    if after and after.group(1).lower() in words:
        return words[after.group(1).lower()], start, end + after.end()
    before = re.search(r"([^\W\d_]+|[$€£])\s?$", text[:start])
    if before and before.group(1).lower() in words:
        return words[before.group(1).lower()], before.start(), end
    return None


def figures_as_read(text: str, lang: str | None = None, blank_unread: bool = False, spelled: bool = True) -> str:
    """`text` with `lang`'s figures in plain form, and an amount beside a currency as '<CODE> <figure>'.
    `blank_unread`: a figure with separators `lang` does not write so ("12,345.5" in French, "12 345" in English)
    is blanked: it is unknown, never its first digits. `spelled`: numbers in words become figures too (a count's
    words are read by focal.sensing.count_words instead, which knows what the count counts)."""
    lang = lang or current()
    if lang is None or len(number_styles([lang])) != 1:
        return text  # no style of its own: "1,234.56" is read as the reader reads it
    if spelled:
        text = spelled_as_digits(text, lang)
    out, at = [], 0
    for m in _FIGURE.finditer(text):
        value = locale_decimal(m.group(0), lang)
        if value is None and blank_unread and not m.group(0).isdigit() and m.start() >= at:
            out.append(text[at:m.start()] + " " * len(m.group(0)))
            at = m.end()
            continue
        if value is None or m.start() < at:
            continue
        plain = format(value.normalize(), "f") if value == value.to_integral() else format(value, "f")
        money = currency_near(text, m.start(), m.end(), lang) if lang in LANGS else None
        start, end, said = (money[1], money[2], f"{money[0]} {plain}") if money else (m.start(), m.end(), plain)
        if start < at:
            continue
        out.append(text[at:start] + said)
        at = end
    return "".join(out) + text[at:]
