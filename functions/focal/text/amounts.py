"""The many ways a text can write an amount or a share, brought to the forms the readers know ("$150", "25% off").

`amounts_in_one_form` rewrites before reading: the draft as enforcement's checks read it
(focal.text.draft_view: NFKC, invisible and look-alike characters), other countries' grouping styles and currency signs or names
(focal.text.amount_styles: "€1.000,00", "CHF 1'000", "₹1,00,000", "75 francs"), "$1.5k" / "2 grand" /
"1.5 million dollars" as the whole figure, "15000 cents" as "$150", a currency sign or code after
the figure ("150$", "150 CAD") or a code before it ("CAD 150") as "$150". A cap is written in the
agent's own currency; an amount in another one is read as its figure (the strict reading: Focal does
not convert, and a cap that must not be crossed in any currency is not crossed in this one either).

The draft reader (focal.enforcement.amount_forms and the modules it feeds) and the message reader
(focal.sensing.money) both read amounts in these forms.
"""

from __future__ import annotations

import re

from focal.text.amount_styles import CODES, restyle
from focal.text.draft_view import as_checked
from focal.text.number_words import roman_value

_I = re.IGNORECASE
FIGURE = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_CODES = CODES
_SCALE = {"k": 1e3, "thousand": 1e3, "grand": 1e3, "m": 1e6, "mn": 1e6, "mil": 1e6, "million": 1e6,
          "b": 1e9, "bn": 1e9, "billion": 1e9}
# "$1.5k", "$2m", "1.5K dollars", "2 grand", "1.5 million dollars": a scale after the figure.
_SCALED = re.compile(
    rf"(?P<sign>[$€£]\s?)?(?P<n>{FIGURE})\s?(?P<s>k|thousand|grand|mn|mil|million|bn|billion|m|b)\b"
    rf"(?P<unit>\s*(?:dollars?|bucks|euros?|pounds|quid|{_CODES})\b)?", _I)
_CENTS = re.compile(rf"(?<![\w.$€£])(?P<n>{FIGURE})\s?(?:cents?|pence|¢)(?!\w)", _I)
_SIGN_AFTER = re.compile(rf"(?<![\w.$€£])(?P<n>{FIGURE})\s?[$€£](?!\s?\d)")
_CODE_BEFORE = re.compile(rf"\b(?:{_CODES})\s?(?P<n>{FIGURE})(?![\d%])", _I)
_CODE_AFTER = re.compile(rf"(?<![\w.$€£])(?P<n>{FIGURE})\s?(?:{_CODES})\b", _I)
# A Roman numeral as an amount: after a currency sign, or before "%" or a currency word ("XXV% off",
# "LXXV dollars"); capitals only, so "I" and words stay words.
_ROMAN = re.compile(r"(?-i:(?<=[$€£])\s?(?P<a>[MDCLXVI]+)\b|(?<![\w$€£])(?P<b>[MDCLXVI]+)(?=\s?%|\s?(?:percent|per\s?cent|dollars?|"
                    r"bucks|euros?|pounds|usd|eur|gbp)\b))", _I)
_MARKUP = re.compile(r"\*\*|__|`|</?(?:b|strong|em|i|span)>", _I)


def figure_value(n: str) -> float:
    return float(n.replace(",", ""))


def _figure(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(?P<i>\d{1,3}(?:\.\d{3})*),(?P<d>\d{2})(?!\d)(?=\s?(?:[$€£]|eur|euros?))", _I)


def _arabic(m: re.Match[str]) -> str:
    value = roman_value(m.group("a") or m.group("b"))
    return m.group(0) if value is None else m.group(0).replace(m.group("a") or m.group("b"), str(value))


def amounts_in_one_form(text: str, styles: bool = True) -> str:
    """The amounts of `text` in the reader's forms. `styles`: other countries' grouping styles and currency names
    too (a customer's "$1,20" or "$1.200" is no exact sum and stays as written: focal.sensing.money asks again)."""
    text = _MARKUP.sub("", as_checked(text))  # invisible and look-alike characters
    text = restyle(text) if styles else text
    text = _ROMAN.sub(_arabic, text)
    text = _DECIMAL_COMMA.sub(lambda m: f"{m.group('i').replace('.', '')}.{m.group('d')}", text)  # "75,00 €"
    text = _FRACTION_OF.sub(_fraction_of, text)  # "3/4 of your purchase": a share of it

    def scaled(m: re.Match[str]) -> str:
        scale = m.group("s").lower()
        if scale in ("m", "b") and not (m.group("sign") or m.group("unit")):
            return m.group(0)  # "5m" alone may be minutes or metres
        value = _figure(figure_value(m.group("n")) * _SCALE[scale])
        if m.group("sign") or scale == "grand":
            return f"${value}"
        return f"{value}{m.group('unit') or ''}"

    text = _SCALED.sub(scaled, text)
    text = _CENTS.sub(lambda m: f"${_figure(figure_value(m.group('n')) / 100)}", text)
    text = _SIGN_AFTER.sub(lambda m: f"${m.group('n')}", text)
    text = _CODE_BEFORE.sub(lambda m: f"${m.group('n')}", text)
    return _CODE_AFTER.sub(lambda m: f"${m.group('n')}", text)


_SHARE_WORDS = {"half": 50, "a half": 50, "a quarter": 25, "quarter": 25, "a third": 33.33, "two thirds": 66.67,
                "three quarters": 75, "a fifth": 20, "two fifths": 40, "three fifths": 60, "a tenth": 10}
_SHARE = r"a\s+half|half|a\s+quarter|a\s+third|two\s+thirds|three\s+quarters|a\s+fifth|two\s+fifths|three\s+fifths|a\s+tenth"
_SHARE_OFF = re.compile(rf"\b(?P<w>{_SHARE}|quarter)[\s-]+(?P<t>off|price|the\s+price)\b", _I)
_SHARE_OF = re.compile(rf"\b(?P<w>{_SHARE})\s+of\b", _I)
_FRACTION_OF = re.compile(r"(?<![\d/])(?P<a>\d{1,2})\s?/\s?(?P<b>\d{1,2})(?![\d/])\s+of\b", _I)
_GIVEN_AWAY = re.compile(r"\bcosts?\s+(?:you\s+)?nothing\b|\bcomp(?:s|ed|ing)?\b"
                         r"|\bwon'?t\s+cost\s+(?:you\s+)?(?:a\s+(?:thing|penny|cent|dime)|anything)\b"
                         r"|\bon\s+the\s+house\b|\bon\s+us\b|\bcomplimentary\b|\bfree\s+of\s+charge\b|\bat\s+no\s+(?:extra\s+)?cost\b"
                         r"|\bwaiv(?:e|ed|ing)\b|\$0(?:\.00)?\b", _I)
_ONE_FREE = re.compile(r"\bbogo\b|\bbuy\s+one(?:\s+\w+)?,?\s+get\s+(?:one|another|a\s+second)\b"
                       r"|\b(?:2|two)\s+for\s+(?:1|one)\b|\bhalve[sd]?\b", _I)
_FRACTION_OFF = re.compile(r"(?<![\d/])(?P<a>\d{1,2})\s?/\s?(?P<b>\d{1,2})(?![\d/])\s+off\b", _I)
_PERCENT_WORDS = re.compile(r"(?<![\w.])(?P<n>\d+(?:\.\d+)?)\s*[-‐]?\s*(?:percentage\s+points?|percent|per\s?cent|pct|pc)\b", _I)
_PAY_SHARE = re.compile(r"\b(?:pay(?:s|ing)?|(?:charge|bill)\s+you)\s+(?:only\s+|just\s+)?(?P<n>\d+(?:\.\d+)?)%(?:\s+of\b)?", _I)
_PAY_SHARE_WORDS = re.compile(r"\b(?P<v>pay(?:s|ing)?|(?:charge|bill)\s+you)\s+(?:only\s+|just\s+)?"
                              rf"(?P<w>{_SHARE})\b(?!\s+of\b)", _I)
# "your next bill will be 70% of the usual amount": paying a share is the rest off.
_SHARE_OF_PRICE = re.compile(
    r"\b(?:will\s+be|would\s+be|is|be|costs?|comes?\s+to|at)\s+(?:only\s+|just\s+)?(?P<n>\d+(?:\.\d+)?)%\s+of\s+(?:the\s+|your\s+)?"
    r"(?:usual|normal|regular|standard|current|full|monthly|list|original)?\s*(?:amount|bill|price|fee|rate|cost|charge|total)\b", _I)
_PERCENT_COMMA = re.compile(r"(?<![\d.,])(?P<i>\d+),(?P<d>\d{1,2})(?=\s?(?:%|percent\b|per\s?cent\b|pct\b))", _I)
_SPACED_DIGITS = re.compile(r"(?<![\d.])\d(?:[ ]\d)+(?=\s?%)")  # "3 0 % off"
# Time given away: "your next two months are free", "free for the first month" (a free plan is a
# price, not a discount on the customer's bill).
_FREE = re.compile(
    r"\b(?:days?|weeks?|months?|years?)\s+(?:(?:is|are|will\s+be|for)\s+)?(?:completely\s+|totally\s+)?free\b"
    r"|\bfree\s+for\s+(?:a|an|one|two|three|\d+|the\s+(?:next|first)(?:\s+\w+)?)\s+(?:days?|weeks?|months?|years?)\b", _I)


def _fraction_of(m: re.Match[str]) -> str:
    return _fraction(m, "of")


def _fraction(m: re.Match[str], then: str) -> str:
    """"3/4 of" → "75% of", "1/4 off" → "25% off"; a zero denominator stays as written."""
    return f"{100 * int(m.group('a')) / int(m.group('b')):.4g}% {then}" if int(m.group("b")) else m.group(0)


def _share(m: re.Match[str], then: str) -> str:
    """"half price" → "50% off", "three quarters of" → "75% of"."""
    return f"{_SHARE_WORDS[' '.join(m.group('w').lower().split())]:g}% {then}"


GIVEN_AWAY_MARK = " (100% off)"  # written after what gives the whole thing away ("on the house", "waived", "$0")


def percents_in_one_form(text: str) -> str:
    """Shares written other ways, as "N% off": "half price", "a quarter off", "1/4 off", "25 pc",
    "pay only 60% of" (40% off), "two months free" (100% off)."""
    text = _SPACED_DIGITS.sub(lambda m: m.group(0).replace(" ", ""), amounts_in_one_form(text))
    text = _PERCENT_COMMA.sub(lambda m: f"{m.group('i')}.{m.group('d')}", text)  # "12,5 %"
    text = _PAY_SHARE_WORDS.sub(lambda m: f"{m.group('v')} {_SHARE_WORDS[' '.join(m.group('w').lower().split())]:g}%", text)
    text = _SHARE_OFF.sub(lambda m: _share(m, "off"), text)
    text = _FRACTION_OFF.sub(lambda m: _fraction(m, "off"), text)
    text = _PERCENT_WORDS.sub(lambda m: f"{m.group('n')}%", text)
    text = _SHARE_OF.sub(lambda m: _share(m, "of"), text)
    text = _GIVEN_AWAY.sub(lambda m: f"{m.group(0)}{GIVEN_AWAY_MARK}", text)
    text = _ONE_FREE.sub(lambda m: f"{m.group(0)} (50% off)", text)
    text = _PAY_SHARE.sub(lambda m: f"{100 - float(m.group('n')):g}% off, paying", text)
    text = _SHARE_OF_PRICE.sub(  # "be 70% of the usual amount" → "be 30% off the usual amount"
        lambda m: m.group(0).replace(f"{m.group('n')}% of", f"{100 - float(m.group('n')):g}% off", 1), text)
    return _FREE.sub(lambda m: f"{m.group(0)} (100% off)", text)
