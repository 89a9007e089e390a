"""Dates in a text, as ISO strings ("2025-03-03").

Always read: ISO dates, a month name with its day and year ("March 3, 2025", "the 3rd of March 2025"),
and a numeric date with a four-digit year when its day and month cannot be mistaken: "14/3/2025" and
"3/14/2025" are both 14 March (a day above 12), "3/3/2025" is 3 March either way; "3/4/2025" may be
4 March or 3 April and is not read.

With the turn's date (`today`, the caller's clock — never the wall clock here):
- a month name with a day and no year ("March 3", "the 3rd of March") is the occurrence nearest to
  today, before or after it (an incident last week, a flight next month), as long as that one is
  within NEAREST_DAYS; further away, which year is meant is not clear and the date is not read. A field that
  declares the side its dates lie on (`date_side`: an arrival is "future", an incident "past") takes the next
  or the latest occurrence, today included, however far;
- answering the date's own prompt, a day named relative to today: "today", "this morning",
  "tonight", "yesterday", "last night", "the day before yesterday", "3 days ago", "tomorrow",
  "the day after tomorrow", "in 3 days", "in two weeks", "a week from today", "last Tuesday" (the latest
  Tuesday before today), "this Friday" / "this coming Friday" (the coming one, today included) and "next
  Monday" when that Monday is in the coming week either way (said on a Thursday; said on a Monday, a week
  on). A weekday alone ("on Tuesday") may be either side of today, and "next Friday" said on a Tuesday may be
  this week's or the next: neither is read, and the customer is asked again.

A day without a year right next to a dated one takes its year ("from March 3 to March 5, 2026"; across the new
year "December 28 until January 3, 2027" is 28 December 2026). `read_dates` gives every date of a message, first
to last, for a flow with several date slots (`assign`); a number inside a written date is no count (`blank_dates`).

The customer's own value (`strict`): several different dates, an impossible one ("February 30") or a
numeric one whose day and month may be swapped leave the date unknown, and a date the message refuses ("not
yesterday") is not theirs. A draft's mention (not strict) is the first date it states.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from focal.sensing import lexicon
from focal.text.number_words import WORD_RUN, number_value

NEAREST_DAYS = 120
UNREAD = "\u2047unread date\u2047"  # set by another reader for a date it cannot tell (locale_reading): unknown
_ANY_DAY = date(2000, 1, 15)  # where relative days are only looked for
_I = re.IGNORECASE
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = (r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)(?![a-z])")
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?(?![\d:])"
_YEAR = r"(?:,?\s+((?:19|20)\d{2})(?!\d))?"
_ISO = re.compile(r"(?<![\d/-])(?<!\d\.)(\d{4})-(\d{1,2})-(\d{1,2})(?![\d/-]|\.\d)")
_MONTH_FIRST = re.compile(rf"\b{_MONTH}\.?\s+(?:the\s+)?{_DAY}{_YEAR}", _I)
_DAY_FIRST = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\.?{_YEAR}", _I)
_NUMERIC = re.compile(r"(?<![\d/-])(?<!\d\.)(\d{1,2})([/.-])(\d{1,2})\2(\d{4})(?![\d/-]|\.\d)")
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_RELATIVE = [
    (re.compile(r"\bthe\s+day\s+before\s+yesterday\b", _I), -2),
    (re.compile(r"\bthe\s+day\s+after\s+tomorrow\b", _I), 2),
    (re.compile(r"\byesterday\b|\blast\s+night\b", _I), -1),
    (re.compile(r"\btomorrow\b", _I), 1),
    (re.compile(r"\btoday\b|\btonight\b|\bthis\s+(?:morning|afternoon|evening)\b", _I), 0),
]
_DAYS_AGO = re.compile(rf"(?<![\w.])(\d{{1,2}}|an?|{WORD_RUN.pattern})\s+days?\s+ago\b", _I)
_LAST_WEEKDAY = re.compile(rf"\b(?:last|this\s+past|past)\s+({'|'.join(_WEEKDAYS)})\b", _I)
_THIS_WEEKDAY = re.compile(rf"\b(?:this|this\s+coming|coming)\s+({'|'.join(_WEEKDAYS)})\b", _I)
_NEXT_WEEKDAY = re.compile(rf"\bnext\s+({'|'.join(_WEEKDAYS)})\b", _I)
_IN_DAYS = re.compile(rf"\bin\s+(\d{{1,2}}|an?|{WORD_RUN.pattern})\s+(days?|weeks?)(?:'?\s+time)?\b"
                      rf"|\b(\d{{1,2}}|an?|{WORD_RUN.pattern})\s+(days?|weeks?)\s+from\s+(?:today|now)\b", _I)


class _Found:
    """The dates a text names, with the spans read so far (a span is read once, by its fullest form)."""

    def __init__(self, text: str, strict: bool, side: str = "either"):
        self.text, self.strict, self.side = text, strict, side
        self.spans: list[tuple[int, int]] = []
        self.dates: list[date] = []
        self.at: list[tuple[int, int, date]] = []  # each date read, with its span
        self.unreadable = False

    def taken(self, m: re.Match[str]) -> bool:
        return any(s < m.end() and m.start() < e for s, e in self.spans)

    def add(self, m: re.Match[str], value: date | None) -> None:
        self.spans.append((m.start(), m.end()))
        if self.strict and lexicon.refused(self.text[:m.start()]):
            return  # "not yesterday"
        if value is None:
            self.unreadable = True
        else:
            self.dates.append(value)
            self.at.append((m.start(), m.end(), value))


def _month(name: str) -> int:
    return next(i for i, m in enumerate(_MONTHS, start=1) if m.startswith(name.lower()[:3]))


def _make(y: int, mo: int, d: int) -> date | None:
    try:
        return date(y, mo, d)
    except ValueError:
        return None


def _nearest(mo: int, d: int, today: date | None, side: str = "either") -> date | None:
    """The day `d` of month `mo` nearest to `today`, if it is within NEAREST_DAYS of it; on the `side` the value is
    expected ("future": the next occurrence, "past": the latest, today included either way) at any distance."""
    if today is None:
        return None
    options = [c for y in (today.year - 1, today.year, today.year + 1) if (c := _make(y, mo, d)) is not None]
    if side == "future":
        return min((c for c in options if c >= today), default=None)
    if side == "past":
        return max((c for c in options if c <= today), default=None)
    best = min(options, key=lambda c: abs((c - today).days), default=None)
    return best if best is not None and abs((best - today).days) <= NEAREST_DAYS else None


_FIGURE = re.compile(r"\d+(?:[.,:/-]\d+)*")
_DAY_ALONE = re.compile(r"(?<!\d)(\d{1,2})(?:st|nd|rd|th|er|re|e|º|ª|°)?(?![\w.,:/-]*\d)", re.IGNORECASE)


def day_alone(text: str, month_of: date) -> date | None:
    """A day of the month named alone ("the 5th", "el 5", "le 5"): that day in the month of `month_of` (the date
    it replaces). None when the message holds no figure, or any other figure (a year, a time, a reference)."""
    figures = _FIGURE.findall(text)
    m = _DAY_ALONE.search(text) if len(figures) == 1 and len(figures[0]) <= 2 else None
    return _make(month_of.year, month_of.month, int(m.group(1))) if m else None


def _numeric(a: int, b: int, y: int) -> date | None:
    """"14/3/2025", "3/14/2025", "3/3/2025"; None when day and month may be swapped ("3/4/2025") or no date fits."""
    if a == b or (a > 12) != (b > 12):
        return _make(y, b, a) if a > 12 else _make(y, a, b)
    return None


_RANGE_GAP = re.compile(r"\D{0,25}")  # " to ", " until ", " and out on ", " - "


def _shared_year(before: str, rest: str, mo: int, d: int) -> int | None:
    """A day without a year next to a dated one takes its year: "March 3 to March 5, 2026", "March 3, 2026
    until March 5"; across the new year, "December 28 until January 3, 2027" is 28 December 2026."""
    for pattern, day_group, month_group in ((_MONTH_FIRST, 2, 1), (_DAY_FIRST, 1, 2)):
        n = pattern.search(rest)
        if n is not None and n.group(3) and _RANGE_GAP.fullmatch(rest[:n.start()]):
            year = int(n.group(3))
            return year - 1 if (mo, d) > (_month(n.group(month_group)), int(n.group(day_group))) else year
        p = next((p for p in reversed(list(pattern.finditer(before))) if p.group(3)), None)
        if p is not None and _RANGE_GAP.fullmatch(before[p.end():]):
            year = int(p.group(3))
            return year + 1 if (mo, d) < (_month(p.group(month_group)), int(p.group(day_group))) else year
    return None


def blank_dates(text: str) -> str:
    """`text` with the dates it writes out blanked: the figures of "December 1, 2026" are no count or amount."""
    for pattern in (_ISO, _MONTH_FIRST, _DAY_FIRST, _NUMERIC):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def _count(words: str) -> int | None:
    """"3", "a", "two" → 3, 1, 2."""
    if words.isdigit():
        return int(words)
    value = 1 if words.lower() in ("a", "an", "one") else number_value(words)
    return int(value) if value is not None and float(value).is_integer() else None


def _relative(text: str, today: date) -> list[tuple[re.Match[str], date | None]]:
    """The days `text` names relative to `today`, with their matches."""
    out: list[tuple[re.Match[str], date | None]] = []
    for m in _IN_DAYS.finditer(text):
        words, unit = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        n = _count(words)
        out.append((m, None if n is None else today + timedelta(days=n * (7 if unit.lower().startswith("week") else 1))))
    for pattern, offset in _RELATIVE:  # after "a week from today", which holds a "today" of its own
        out += [(m, today + timedelta(days=offset)) for m in pattern.finditer(text)]
    for m in _DAYS_AGO.finditer(text):
        n = _count(m.group(1))
        out.append((m, None if n is None else today - timedelta(days=n)))
    for m in _LAST_WEEKDAY.finditer(text):
        back = (today.weekday() - _WEEKDAYS.index(m.group(1).lower())) % 7 or 7
        out.append((m, today - timedelta(days=back)))
    for m in _THIS_WEEKDAY.finditer(text):  # the coming one, today included
        out.append((m, today + timedelta(days=(_WEEKDAYS.index(m.group(1).lower()) - today.weekday()) % 7)))
    for m in _NEXT_WEEKDAY.finditer(text):
        ahead = (_WEEKDAYS.index(m.group(1).lower()) - today.weekday()) % 7
        # said on a Thursday, "next Monday" is the coming one (next week either way); "next Friday" may be
        # tomorrow or the week after, so it is not read
        out.append((m, today + timedelta(days=ahead or 7) if ahead == 0 or _WEEKDAYS.index(m.group(1).lower()) < today.weekday()
                    else None))
    return out


def read_date(text: str, today: date | None = None, answering: bool = False, strict: bool = False,
              side: str = "either") -> str | None:
    """The date `text` states, as an ISO string, or None (see the module); `side`: where from `today` the value is
    expected, for a date without its year (the field's `date_side`)."""
    found = _read(text, today, answering, strict, side)
    if not strict:
        return found.dates[0].isoformat() if found.dates else None
    if found.unreadable or len(set(found.dates)) != 1:
        return None
    return found.dates[0].isoformat()


def read_dates(text: str, today: date | None = None, answering: bool = False,
               side: str = "either") -> list[tuple[int, int, str]] | None:
    """Every date the customer's `text` states, first to last, as (start, end, ISO string) — "from
    March 3 to March 5" gives two; a date repeated is one. None when one of them cannot be read (strict, as
    the customer's own value: an impossible date, a year unclear, a day and month that may be swapped)."""
    found = _read(text, today, answering, True, side)
    if found.unreadable:
        return None
    out: list[tuple[int, int, str]] = []
    for start, end, value in sorted(found.at, key=lambda a: a[0]):
        if all(value.isoformat() != v for _, _, v in out):
            out.append((start, end, value.isoformat()))
    return out


def date_spans(text: str, today: date | None = None, answering: bool = False,
               side: str = "either") -> list[tuple[int, int, str]]:
    """Every place the customer's `text` states a date, first to last, as (start, end, ISO string); a date repeated
    is there each time, and one that cannot be read is left out."""
    return [(start, end, value.isoformat()) for start, end, value in sorted(_read(text, today, answering, True, side).at)]


def _read(text: str, today: date | None, answering: bool, strict: bool, side: str = "either") -> _Found:
    found = _Found(text, strict, side)
    for m in re.finditer(UNREAD, text):
        found.add(m, None)
    for m in _ISO.finditer(text):
        found.add(m, _make(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    _read_month_names(found, today)
    _read_shared_month(found)
    _read_numeric(found)
    if answering:
        _read_relative(found, today)
    return found


def _read_month_names(found: _Found, today: date | None) -> None:
    """"March 3", "3 March", with a year, the year of the range they are in, or the nearest to `today`."""
    text = found.text
    for pattern, day_group, month_group in ((_MONTH_FIRST, 2, 1), (_DAY_FIRST, 1, 2)):
        for m in pattern.finditer(text):
            if found.taken(m):
                continue
            mo, d = _month(m.group(month_group)), int(m.group(day_group))
            if m.group(3):
                found.add(m, _make(int(m.group(3)), mo, d))
            elif (year := _shared_year(text[:m.start()], text[m.end():], mo, d)) is not None:
                found.add(m, _make(year, mo, d))  # "from March 3 to March 5, 2026": the range's year
            elif (near := _nearest(mo, d, today, found.side)) is not None or _make(2000, mo, d) is None:
                found.add(m, near)  # "February 30" is no date
            elif found.strict:
                found.unreadable = True  # no year, and no clock or too far from today to tell which


# A range whose ends share one month name: "from the 3rd to the 5th of May", "3-5 May", "May 3 to 5"; in the other
# languages once their month is put in English (focal.sensing.locale_reading): "vom 3. bis May 5", "del 3 al May 5".
_RANGE_WORD = r"(?:\s*[-–]\s*|\s+(?:to|until|till|through|thru|bis|al|a|hasta|au|à|jusqu['’]au)\s+)"
_BARE_DAY = r"(?<![\w.,:/-])(?:the\s+)?(\d{1,2})(?:st|nd|rd|th|\.|º|er|e)?"
_DAY_BEFORE_RANGE = re.compile(rf"{_BARE_DAY}{_RANGE_WORD}(?:the\s+)?$", _I)
_DAY_AFTER_RANGE = re.compile(
    rf"{_RANGE_WORD}(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th|\.|º|er|e)?(?![\w.,:/-]*\d)"
    rf"(?!\s*(?:{_MONTH}|am\b|pm\b|h\b|uhr\b|o['’]clock|[a-z]*\s*(?:nights?|days?|weeks?|people|guests?|adults?|persons?)\b))",
    _I)
_DAY_TOKEN = re.compile(r"(?:the\s+)?\d{1,2}(?:st|nd|rd|th|º|er|e)?", _I)


def _read_shared_month(found: _Found) -> None:
    """The bare day at the other end of a range from a date read with its month takes that month (and year): the
    day before it, or the month before when it is the larger day ("the 28th to the 3rd of May" starts in April);
    the day after it, or the month after when it is the smaller."""
    for start, end, value in list(found.at):
        before = _DAY_BEFORE_RANGE.search(found.text[:start])
        if before is not None and not found.taken(before):
            day = int(before.group(1))
            month = value.replace(day=1) if day <= value.day else (value.replace(day=1) - timedelta(days=1))
            found.add(_DAY_TOKEN.search(found.text, before.start(), before.end()) or before,
                      _make(month.year, month.month, day))
        after = _DAY_AFTER_RANGE.match(found.text, end)
        if after is not None and not found.taken(after):
            day = int(after.group(1))
            month = value.replace(day=1) if day >= value.day else (value.replace(day=28) + timedelta(days=4))
            found.add(_DAY_TOKEN.search(found.text, after.start(), after.end()) or after,
                      _make(month.year, month.month, day))


def _read_numeric(found: _Found) -> None:
    """Dates in figures ("03/05/2026"); one that may be read two ways is no date, and strictly it is unreadable."""
    for m in _NUMERIC.finditer(found.text):
        if not found.taken(m):
            value = _numeric(int(m.group(1)), int(m.group(3)), int(m.group(4)))
            if value is not None or found.strict:
                found.add(m, value)


def _read_relative(found: _Found, today: date | None) -> None:
    """Days named relative to `today` ("yesterday", "next Monday"): read only with the turn's date."""
    for m, value in _relative(found.text, today or _ANY_DAY):
        if found.taken(m):
            continue
        if today is not None and value is not None:
            found.add(m, value)
        elif found.strict:
            found.unreadable = True  # "yesterday" without the turn's date: unknown, never the wall clock
