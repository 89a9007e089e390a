"""The figures a draft left unread, once its amounts are in one form (focal.text.amounts).

In the clauses about the field, what the reader could not attribute is still looked at:
- `stray_figures`: figures written without a currency ("a credit of 150", "one fifty", "a hundred and
  fifty") that are no duration, date, time, count or reference and no known value: for money they are
  promised, for a percentage the reading is uncertain;
- `repeated`: an amount promised more than once ("twice", "two credits of $75", "$20 a month",
  "another $50"): the total is not read, so it is uncertain too.
Uncertain means a model reads the draft when one is configured, and "cannot verify" (blocked) when it
cannot settle it: the reader never turns an amount it failed to read into the field's default.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right

from focal.enforcement.linear_scan import CloseValues, Suffixes
from focal.text.amounts import FIGURE as _FIGURE
from focal.text.amounts import figure_value as _plain
from focal.text.number_words import TENS, UNITS, words_value

_I = re.IGNORECASE


# ----------------------------------------------------------------------------- figures left unread
NUMBER_WORD = "|".join([*UNITS, *TENS, "hundred", "thousand"])
NUMBER_WORDS = rf"\b(?:an?\s+)?(?:{NUMBER_WORD})\b(?:(?:[\s-]+|\s+and\s+)(?:{NUMBER_WORD})\b)*"  # "a hundred and ten"
_WORD_RUN = re.compile(NUMBER_WORDS, _I)
_DIGITS = re.compile(rf"(?<![\w.,])(?:{_FIGURE})(?!\w|\.\d)")
_MONTHS = "jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
# A figure or a span of two ("5-7", "3 to 5") before a unit of time or a head count, and a time or a date:
# no amount, for the figures left unread and for whether a draft may state an amount at all.
_SPAN = r"\b\d+(?:\.\d+)?(?:\s*(?:-|–|to|or)\s*\d+(?:\.\d+)?)?\s*(?:business\s+|working\s+|calendar\s+)?"
_TIME_UNITS = "seconds?|minutes?|mins?|hours?|hrs?|days?|nights?|weeks?|months?|years?|people|persons?"
_TIME_OR_DATE = r"\b\d{1,2}:\d{2}\b|\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b"
# "99% of our customers": a share of people, no discount.
_STATISTIC = (r"\b\d+(?:\.\d+)?\s?%\s+of\s+(?:our|all|the|most)\s+(?:customers|users|members|subscribers|clients|people|viewers)\b"
              # "30% more titles", "100% of titles": a share of something that is no price
              r"|\b\d+(?:\.\d+)?\s?%\s+(?:more|fewer|of)\s+(?:(?:the|our|all|your)\s+)?"
              r"(?!(?:usual\s+|normal\s+|regular\s+|monthly\s+|full\s+)?(?:price|prices|cost|costs|bill|bills|fee|fees|amount|"
              r"charge|charges|rate|rates|total|subscription|plan|month|months|year|purchase|payment|money)\b)[a-z]+s\b")
STATISTIC = re.compile(_STATISTIC, _I)
# Figures that are no amount: a duration, a count of people, a time, a date, a reference (letters and
# digits, or a number after a word that names one), an ordinal, a list number.
_NO_AMOUNT = re.compile(
    rf"{_SPAN}(?:{_TIME_UNITS}|adults?|children|guests?|pieces?|lines?|devices?|gb|mb|tb|gigs?)\b"
    rf"|{_TIME_OR_DATE}|\b\d+(?:st|nd|rd|th)\b"
    r"|\b\d{2,6}(?:[ /-]{1,2}\d{2,6}){2,}\b"  # a card or phone number in groups
    rf"|\b(?:{_MONTHS})\w*\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\w*(?:,?\s+\d{{4}})?"
    r"|\b(?:in|by|since|until|till|before|after|from|year)\s+(?:19|20)\d{2}\b(?![/.-]\d)"
    r"|\b[A-Za-z]+[-#]?\d[\w-]*"
    r"|\b(?:account|acct|ending(?:\s+in)?|number|no\.?|ref(?:erence)?|case|ticket|reservation|confirmation|"
    r"room|line|step|option|page|version|zip|postcode|code|pin|id|extension|ext\.?|call|dial|phone|suite|unit|apt|#)"
    r"(?:\s+is)?\s*:?\s*#?\d[\d\s-]*"
    r"|(?-i:\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b[A-Z]{2,}\s\d+\b)"  # a state and a ZIP code; a code such as "RF 1001"
    r"|\b\d[\d,]*\s+(?!(?:dollars|bucks|euros|pounds|cents|percent|has|was|is|does|goes|this|plus|less|unless|yes|"
    r"always|its|as|us|credits|points|thus|perhaps|across|towards)\b)[a-z]+s\b"  # a count: "100 stores"
    rf"|{_STATISTIC}", _I)
_SMALL_WORDS = {w for w, v in UNITS.items() if v < 10}


_SPELLED = re.compile(NUMBER_WORDS + r"(?=\s+(?:dollars?|bucks|usd|euros?|pounds|quid|percent|per\s?cent)\b)", _I)


_UNIT_AFTER = re.compile(r"\s+(?:dollars?|bucks|usd|euros?|pounds|quid|percent|per\s?cent)\b", _I)


def spell_out(text: str) -> str:
    """"seventy five dollars" → "75 dollars", "one hundred and twenty dollars" → "120 dollars".

    What `_SPELLED.sub` replaces, read run by run: from any of its words a run of number words extends to the same
    end (the next word is no number word), so `_SPELLED` matches a whole run followed by a unit or nothing of it —
    and tried from each word of a long run it re-reads the rest of the run each time (quadratic in the run)."""
    out, last = [], 0
    for m in _WORD_RUN.finditer(text):
        if _UNIT_AFTER.match(text, m.end()):
            value = words_value(m.group(0))
            out += [text[last:m.start()], m.group(0) if value is None else str(value)]
            last = m.end()
    return "".join(out) + text[last:] if out else text


def stray_figures(text: str, accounted: list[float], references: str = "") -> list[float]:
    """Figures of `text` (already normalised) written without a currency, that are no duration, date,
    time or reference (`references`: the field's purchase words, "booking 1234") and equal no value in
    `accounted`: what the reader could not place."""
    text = _NO_AMOUNT.sub(" ", text)
    if references:
        text = re.sub(rf"\b(?:{references})s?\s*:?\s*#?\d[\d\s-]*", " ", text, flags=_I)
    text = re.sub(rf"[$€£]\s?(?:{_FIGURE})|\d+(?:\.\d+)?\s?(?:%|percent\b|per\s?cent\b)", " ", text, flags=_I)
    found: list[float] = []
    for m in _WORD_RUN.finditer(text):
        words = [w for w in re.split(r"[\s-]+", m.group(0).lower()) if w not in ("a", "an", "and")]
        if len(words) == 1 and words[0] in _SMALL_WORDS:
            continue  # "one moment", "two options": no amount on its own
        value = words_value(m.group(0))
        colloquial = len(words) == 2 and words[0] in UNITS and words[1] in TENS  # "one fifty": 150, not 51
        found.append(float(UNITS[words[0]] * 100 + TENS[words[1]]) if colloquial else float(value or 0))
    text = _WORD_RUN.sub(" ", text)
    found += [_plain(m.group(0)) for m in _DIGITS.finditer(text)]
    # below 1, a share written as a decimal: "a discount of 0.25"
    index = CloseValues(accounted)
    return [v for v in found if (v >= 10 or 0 < v < 1) and not index.has_close(v)]


_COUNT = r"(?:two|three|four|five|six|seven|eight|nine|ten|twelve|several|multiple|\d+)"
_STACKED = re.compile(
    r"\b(?:twice|thrice|double[ds]?|tripled?|(?:two|three|four|five|[2-9]|\d{2,})\s+times|x\s?(?:[2-9]|\d{2,})|"
    r"(?:[2-9]|\d{2,})\s?x|another|an\s+additional|on\s+top|again|in\s+addition|plus\s+(?:another\s+|an?\s+)?[$€£\d])\b"
    r"|[×✕]|%\s*\+|\+\s*\d", _I)
_REPEAT = re.compile(
    r"\b(?:each|apiece|extra|per\s+(?!cent\b)[a-z]+|a\s+(?:piece|pop|head)|"
    r"every\s+(?:day|week|month|year)|(?:daily|weekly|monthly|yearly|annually)\b)\b"
    rf"|(?:[$€£]\s?(?:{_FIGURE})|\b(?:{_FIGURE})\s?(?:dollars?|bucks|euros?|pounds))\s+(?:a\s+(?:day|week|month|year|night)|more)\b"
    r"|\bx\s?[$€£]"
    # "two credits of": several things, each with an amount; "10 days of the return" is a duration, no count of things
    rf"|\b{_COUNT}\s+(?:separate\s+|more\s+|additional\s+|equal\s+)?(?!(?:{_TIME_UNITS})\b)[a-z]+s\s+of\b", _I)


# Money over several things: "on AC100 and AC200", "for both lines", "on all three".
_SEVERAL = re.compile(
    r"\b[A-Za-z]+[-#]?\d[\w-]*\s*(?:,|&|\+|\band\b|\bor\b|\bas\s+well\s+as\b)\s*(?:\w+\s+)?[A-Za-z]*[-#]?\d[\w-]*"
    rf"|\bboth\b|\b(?:for|on|to)\s+(?:all|every|each)\b|\ball\s+(?:of\s+)?{_COUNT}\b", _I)


def repeated(text: str, hints: list[str], kind: str = "money") -> str | None:
    """The words saying an amount is promised more than once (for a percentage: stacked, "15% off, and
    again"; a rate such as "a month", or money over several things, repeats money, not a share), unless
    they are one of the field's own hints (a price field declared "per month" is a rate)."""
    lowered = [h.lower() for h in hints]
    money = (*_REPEAT.finditer(text), *_SEVERAL.finditer(text)) if kind == "money" else ()
    found = [*_STACKED.finditer(text), *money]
    for m in found:
        if not any(" ".join(m.group(0).lower().split()) in h for h in lowered):
            return m.group(0)
    return None


# Words that put an amount on top of another one, said beside it: "I'll also credit you $40", "$45 next month as
# well", "a second credit of $40", "an extra 10%", "15% now and 15% next month too". Beside an amount that
# restates one ("…you'll also see the $40 on your statement") or apart from it ("I've credited $30 and also
# emailed you") they add nothing.
_MORE = re.compile(
    r"\b(?:also|as\s+well|too(?=\s*(?:[.,;:!?)]|$))|additional(?:ly)?|besides|extra|(?:one|yet)\s+more|"
    r"(?<!\bin\s)(?<!\bjust\s)a\s+(?:second|further)\b(?!\s+(?:or\s+two|ago|later|thought|look|opinion)))\b", _I)
# …and, after an amount already promised in the draft, another occasion: "$40 today and $40 next month".
_LATER = re.compile(r"\b(?:next|following|coming)\s+(?:month|week|year|time|bill|billing|invoice|statement|cycle|"
                    r"period|renewal|visit|stay|purchase|booking)s?\b|\blater\s+(?:on|this|next)\b", _I)
_DEFINITE = re.compile(r"\b(?:the|that|this|those|these|your|same)\s+(?:\w+\s+)?$", _I)
_APART = re.compile(r"\s+and\s+|\s*[,;:]\s*|\s+[-]+\s+", _I)


def added_on_top(text: str, amounts: list[tuple[int, int]], hints: list[str], earlier: bool) -> str | None:
    """The words of `text` that add an amount at `amounts` (their spans) to another one: an additive word in the
    same stretch (between commas or "and"), or — `earlier`: the draft already promised one — a later occasion.
    A restated amount ("the $40") adds nothing, nor do the field's own hints."""
    if not amounts:
        return None
    cuts = [0, *(p for m in _APART.finditer(text) for p in (m.start(), m.end())), len(text)]
    stretches = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    before = Suffixes(text)
    lowered = [h.lower() for h in hints]
    read: set[tuple[int, int]] = set()  # stretches already read: what they add is the same for every amount in them
    for a, _ in amounts:
        if before.ends_with(_DEFINITE, a):
            continue
        stretch = _stretch(stretches, a) or (0, len(text))
        if stretch in read:
            continue
        read.add(stretch)
        start, end = stretch
        found = [*_MORE.finditer(text, start, end), *(_LATER.finditer(text, start, end) if earlier else ())]
        for m in found:
            if not any(" ".join(m.group(0).lower().split()) in h for h in lowered):
                return m.group(0)
    return None


def _stretch(stretches: list[tuple[int, int]], position: int) -> tuple[int, int] | None:
    """The stretch (in order, apart from one another) that holds `position`, ends included."""
    at = bisect_right(stretches, (position, math.inf)) - 1
    return stretches[at] if at >= 0 and position <= stretches[at][1] else None


# Anything a draft could state an amount with: a figure, a number or currency word, a share, a quantity
# ("what you paid", "the price", "the whole thing"). A draft with none of these states no amount at all.
_AMOUNT_WORDS = "|".join([*UNITS, *TENS, "hundred", "thousand", "million", "dozen", "half", "halves", "quarter",
                          "third", "percent", "per cent", "pct", "dollars?", "bucks", "cents?", "euros?", "pounds",
                          "quid", "usd", "eur", "gbp", "amount", "sum", "price", "cost", "paid", "pay", "payment",
                          "total", "balance", "value", "charge", "charged", "money", "fee", "full", "fully",
                          "whole", "entire", "everything", "all", "same", "rest", "remaining", "difference",
                          "double", "twice", "triple", "much", "more", "less"])
_AMOUNT = re.compile(rf"\d|[$€£%]|\b(?:{_AMOUNT_WORDS})\b", _I)
# Figures that are no amount of anything: a reference that starts with letters (B1005, X-123; not a
# currency code: "USD50" is money), a duration or a head count ("5-7 business days", "2 hours",
# "3 people"), a time of day or a date. Anything else with a digit ("20k", "2 times") may be an amount.
_NOT_AMOUNTS = re.compile(
    rf"\b(?!(?:usd|us|eur|gbp|cad|aud|chf|jpy|inr|rs)[-#]?\d)[A-Za-z]+[-#]?\d[\w-]*|{_SPAN}(?:{_TIME_UNITS})\b|{_TIME_OR_DATE}",
    _I)
# For a money field a bare percentage states no money: "10% off your first purchase" (a share of a known
# base, "half of your $120 purchase", still has the base's figure in it).
_PERCENTAGES = re.compile(r"\d+(?:\.\d+)?\s?(?:%|percent\b|per\s?cent\b|pct\b)", _I)
_CURRENCY_AMOUNTS = re.compile(rf"[$€£]\s?(?:{_FIGURE})|\b(?:{_FIGURE})\s?(?:dollars?|bucks|euros?|pounds|quid)\b", _I)


def may_state_amount(draft: str, field_type: str = "number") -> bool:
    """Whether the draft contains anything an amount of `field_type` could be stated with (then a model
    reads it when the offline reading found a cue but no value); "Sure, I can help with a reimbursement.
    What is your booking reference?" has a cue and states no amount: no call. Neither does "A
    reimbursement arrives within 5-7 business days" or "Booking B1005 is cancelled" for a money field."""
    text = _NOT_AMOUNTS.sub(" ", draft)
    if field_type == "money":
        text = _PERCENTAGES.sub(" ", text)
    elif field_type == "percentage":  # …and a currency amount no share: "you'll get $30 back"
        text = _CURRENCY_AMOUNTS.sub(" ", text)
    return _AMOUNT.search(text) is not None


# In an answer in another language: what an amount or a share may be written with — a figure that is no reference,
# duration, time or date (English or the other languages' units of time), a currency or percent sign, a currency
# or percent word.
_FOREIGN_SPAN = re.compile(
    r"\b\d+(?:[.,]\d+)?(?:\s*(?:-|a|à|bis|al|tot|to)\s*\d+)?\s*(?:d[ií]as?|jours?|tagen?|giorni|dagen|semanas?|semaines?|"
    r"wochen?|settimane|weken|horas?|heures?|stunden?|ore|uur|minut[oia]s?|minuten|mes(?:es)?|mois|monate?n?|mesi|"
    r"maanden?|a[nñ]os?|ans?|jahre?n?|anni|jaren?)\b", _I)
_AMOUNT_ANYWHERE = re.compile(
    r"\d|[%$\u00a2-\u00a5\u20a0-\u20cf]|\b(?:d[oó]lar\w*|dollar\w*|euros?|pesos?|francs?|francos?|franken|pfund|libras?|"
    r"sterlin\w*|reais|real|rupias?|yen|yuan|rubl\w*|rubel\w*|zlot\w*|koron\w*|kron\w*|prozent|procent|percent\w*|"
    r"por\s+ciento|pour\s+cent|per\s+cento|por\s+cento)\b", _I)


def states_figure(text: str) -> bool:
    """Whether an answer the cues cannot read (another language) may state an amount or a share at all."""
    return _AMOUNT_ANYWHERE.search(_FOREIGN_SPAN.sub(" ", _NOT_AMOUNTS.sub(" ", text))) is not None


# In a clause that promises the field: words that name an amount without a figure the reader can place.
_QUANTITY = re.compile(
    rf"\b(?:{NUMBER_WORD}|dozen|half|halves|quarters?|thirds?)\b"
    r"|\b(?:cost|price|value|worth|amount|sum|total|balance|difference|rest|remainder)\s+of\b"
    r"|\bwhat\s+(?:you|it|they|(?:the|your|that|this)(?:\s+\w+){1,2}?)\s+(?:paid|spent|cost|costs|were\s+charged|was\s+charged)\b"
    r"|\bwhat(?:'s|\s+is)\s+left\b|\bremaining\s+(?:balance|amount|sum)\b"
    r"|\bhow\s+much\s+you\s+(?:paid|spent)|\bthe\s+amount\s+(?:on|shown|listed|charged|you|in|from)\b"
    r"|\b(?:full|purchase|original|whole|entire)\s+(?:price|amount|cost|sum|value)\b"
    r"|\b(?:double|twice|triple|thrice|the\s+same\s+(?:amount|again))\b", _I)


# "has already been rescheduled twice", "you were charged twice": how often something happened, no amount.
_TIMES_DONE = re.compile(r"\b(?:has|have|had|been|was|were|already)\s+(?:\w+\s+){0,2}?\w+ed\s+(?:twice|thrice)\b", _I)


def names_quantity(clause: str) -> bool:
    """"…send you the cost of the purchase", "…credit you double": an amount is promised in words."""
    return _QUANTITY.search(_TIMES_DONE.sub(" ", _NO_AMOUNT.sub(" ", clause))) is not None
