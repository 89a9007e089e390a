"""Amounts written in another country's style, brought to the one form the reader knows ("$1000.50").

Run by focal.text.amounts.amounts_in_one_form on the checked draft (focal.text.draft_view: a no-break
or narrow space is already a space). Only a figure beside a currency — a sign, an ISO code, a currency
name — is rewritten, so counts, dates and references keep their digits:

- a currency sign the reader does not otherwise know (¥, ₹, ₩, ₽, ₺, ₪, R$ …) or a currency name
  ("75 francs", "Rs 500", "300 kronor") is read as "$": the figure is what is compared with a cap, as
  for any other currency (Focal does not convert);
- digit groups split by spaces or apostrophes ("$1 000", "CHF 1'000"), Indian grouping ("₹1,00,000"),
  dots with a decimal comma ("€1.000,00"), several dot groups ("1.000.000 €") and a decimal comma
  ("€75,00") are the whole figure;
- a single dot group ("€1.000": a thousand, or one with three decimals) cannot be told apart: it is
  rewritten as the larger figure, and `ambiguous_amounts` names it so the reader can answer "cannot
  verify" instead of picking one; so does a figure that goes on in a way no style writes ("$7 5",
  "$7·5", "$1e3": the reader would read the part before the break), and so does a figure with letters drawn like
  digits after a currency ("$5O", "$l00").
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left

_I = re.IGNORECASE
CODES = ("usd|us\\$|eur|gbp|cad|aud|nzd|chf|jpy|inr|sgd|hkd|mxn|sek|nok|dkk|zar|brl|cny|rmb|krw|pln|czk|huf|"
         "try|ils|aed|sar|php|thb|myr|idr|rub|uah|ngn|kes|egp|cop|clp|pen|ars|vnd|pkr|bdt|qar|kwd|btc|eth")
# Currency names the cues do not name: read as the figure, like a sign.
_NAMES = (r"francs?|franken|yen|yuan|renminbi|rupees?|rupiahs?|pesos?|reais|rand|kronor|kronur|kronas?|krone|kroner|"
          r"korunas?|zlotys?|zloties|zloty|forints?|lira|lire|liras|dirhams?|dinars?|riyals?|rials?|ringgits?|baht|rubles?|"
          r"roubles?|hryvnias?|shekels?|lei|leva|dong|nairas?|cedis?|shillings?|kwachas?|takas?|tenge|lari|manats?|"
          r"bitcoins?|satoshis?|dollares|d[oó]lar(?:es)?|dollari|dollaro|euro|sterling|zl|zł|kr|sfr|chf")
_BEFORE_NAMES = r"rs\.?|rp\.?|kr\.?|sfr\.?|fr\.|zł|r\$"
_MARK = rf"[$€£]|\b(?:{CODES})\b"
# A figure in a style other than "1,000.50" or "1000.50" (each alternative needs a non-standard separator).
_STYLED = (r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?"       # Indian: 1,00,000
           r"|\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?"             # dots: 1.000,00 / 1.000.000 / 1.000
           r"|\d{1,3}(?:[ '’]\d{3})+(?:[.,]\d{1,2})?"       # spaces or apostrophes: 1 000 / 1'000.50
           r"|\d+,\d{1,2}")                                 # a decimal comma: 75,00
_END = r"(?![\d%]|[.,'’]\d)"
_NAME_AFTER = re.compile(rf"(?<![\w.,'’])(?P<f>\d[\d,.'’ ]*?\d|\d)\s?(?:{_NAMES})\b", _I)
_NAME_BEFORE = re.compile(rf"(?<!\w)(?:{_BEFORE_NAMES})\s?(?=\d)", _I)
# A figure after a currency that goes on in a way no style writes: "$7 5", "$7·5", "$1-000", "$1e3".
_GOES_ON = re.compile(rf"(?:{_MARK})\s?\d+(?:[.,]\d+)*(?=[ \t]+\d|[^\w\s.,;:!?%)\]'\"]\d|[^\W\d_]+\d)", _I)
_BEFORE = re.compile(rf"(?P<m>{_MARK})\s?(?P<f>{_STYLED}){_END}", _I)
_AFTER = re.compile(rf"(?<![\d.,'’])(?P<f>{_STYLED})\s?(?P<m>{_MARK})", _I)


def _signs(text: str) -> str:
    """Any currency sign but $, €, £ and ¢ as "$"."""
    if text.isascii():
        return text
    return "".join("$" if c not in "$€£¢" and unicodedata.category(c) == "Sc" else c for c in text)


def figure_value(raw: str) -> tuple[str, bool]:
    """(a figure written in one of the styles above as a plain one, "1000.50"; whether its style leaves it in doubt)."""
    raw = raw.replace("’", "'")
    if re.fullmatch(r"\d{1,3}\.\d{3}", raw):
        return raw.replace(".", ""), True  # a thousand, or one with three decimals
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d{1,2})?", raw):
        return raw.replace(".", "").replace(",", "."), False
    if re.fullmatch(r"\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d{1,2})?", raw):
        return raw.replace(",", ""), False
    return re.sub(r"[ ']", "", raw).replace(",", "."), False  # 1 000 / 1'000.50 / 75,00


def _marked(text: str) -> str:
    return _names_after(_NAME_BEFORE.sub("$", _signs(text)))


# `_names_after` reads `_NAME_AFTER` run by run: the pattern itself, tried from each digit of a long run of figure
# characters ("4111 1111 1111 1111 …", "1 2 3 …"), re-reads the rest of the run each time (quadratic in the run).
_FIGURE_RUN = re.compile(r"[\d,.'’ ]+")
_FIGURE_START = re.compile(r"(?<![\w.,'’])\d")  # where `_NAME_AFTER` may start
_BEFORE_NAME = re.compile(rf"\d(?=\s?(?:{_NAMES})\b)", _I)  # a digit a currency name follows
_NAME_NEXT = re.compile(rf"\s?(?:{_NAMES})\b", _I)


def _names_after(text: str) -> str:
    """`_NAME_AFTER.sub(lambda m: f"{m.group('f')} $", text)`, in one pass: a match lies in one run of figure
    characters and starts at the run's first digit it may start at; it is the shortest figure from there to a digit
    a currency name follows (or that digit alone), so a run holds one match at most and later starts in it add none."""
    ends = [m.start() for m in _BEFORE_NAME.finditer(text)]
    if not ends:
        return text
    starts = [m.start() for m in _FIGURE_START.finditer(text)]
    out, last = [], 0
    for run in _FIGURE_RUN.finditer(text):
        a, b = run.span()
        i = bisect_left(starts, max(a, last))
        if i == len(starts) or starts[i] >= b:
            continue
        s = starts[i]
        j = bisect_left(ends, s)
        alone = j < len(ends) and ends[j] == s  # the `|\d` of the pattern: the start itself before the name
        later = j + 1 if alone else j           # the lazy figure: the first digit after the start before a name
        e = ends[later] if later < len(ends) and ends[later] < b else s if alone else None
        if e is None:
            continue
        name = _NAME_NEXT.match(text, e + 1)
        assert name is not None  # `ends` are the digits it follows
        out += [text[last:s], text[s:e + 1], " $"]
        last = name.end()
    return "".join(out) + text[last:]


def restyle(text: str) -> str:
    """Currency signs and names as "$", and figures of other grouping styles beside a currency as plain figures."""
    text = _BEFORE.sub(lambda m: f"{m.group('m')}{figure_value(m.group('f'))[0]}", _marked(text))
    return _AFTER.sub(lambda m: f"{figure_value(m.group('f'))[0]} {m.group('m')}", text)


# A currency sign before letters drawn like digits, with or without digits: "$5O", "$l00", "$1OO", "$lOO" (O, o, I, l, |).
_LETTER_DIGITS = re.compile(r"(?:[$€£]|\b(?:usd|eur|gbp)\b)\s?(?:[\dOoIl|]*\d[\dOoIl|.,]*[OoIl|]|[OoIl|][\dOoIl|.,]*\d"
                            r"|[OoIl|][OoIl|.,]*[OoIl|])(?![^\W\d_])", _I)


def ambiguous_amounts(text: str) -> list[str]:
    """The figures beside a currency (in folded text) whose grouping leaves their value in doubt ("€1.000"), or written
    with letters for digits ("$5O")."""
    text = _marked(text)
    doubtful = [m.group(0) for p in (_BEFORE, _AFTER) for m in p.finditer(text) if figure_value(m.group("f"))[1]]
    return doubtful + [m.group(0) for m in (*_GOES_ON.finditer(restyle(text)), *_LETTER_DIGITS.finditer(text))]
