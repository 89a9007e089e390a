"""Phone numbers in text, for masking at rest (`focal.pii_text`): read on the folded view (`focal.pii_view`).

Two kinds of number are read as a phone number:

- **With their country**, found and checked by Google's libphonenumber (the `phonenumbers` package, lite
  edition: the numbering plans without the geocoding data): a number written after ``+`` that is a
  possible number of its country (``+1 415 555 0199``, ``+44 (0)20 7946 0958``, ``+49 (30) 901820-0``), or
  after an international dialling prefix, ``00`` (most of the world) or ``011`` (North America), that is
  a valid number of its country and is written in groups (``0044 20 7946 0958``, ``00 49 30 901820``,
  ``011 44 20 7946 0958``). A bare run of digits that begins with ``00`` (``0012345678901``) is a
  reference, not a phone number.
- **North American numbers written like one**: ``(415) 555-0199``, ``415-555-0199``, ``415.555.0199``,
  optionally after ``1-``. A bare run of digits, or digits grouped by spaces only, is not a phone number:
  it may be a booking reference, a tracking number or an amount.
"""

from __future__ import annotations

import re

from phonenumbers import Leniency, PhoneNumberMatcher, is_valid_number

# The view writes every dash as "-".
_NANP = re.compile(r"(?<![\w.+-])(?:1-)?(?:\(\d{3}\) ?\d{3}[- .]\d{4}|\d{3}-\d{3}-\d{4}|\d{3}\.\d{3}\.\d{4})(?![\w-]|\.\d)")
_WITH_COUNTRY = re.compile(r"(?<![\w.,])(?:\+|00|011)[\s(]*\d")  # where a number with its country may begin
# North America dials out with 011, most of the world with 00: the matcher reads each prefix in a region that dials it.
_REGIONS = ("US", "GB")


def _with_country(text: str) -> list[tuple[int, int]]:
    spans: set[tuple[int, int]] = set()
    for region in _REGIONS:
        for m in PhoneNumberMatcher(text, region, leniency=Leniency.POSSIBLE):
            raw = m.raw_string
            if raw.startswith("+"):
                spans.add((m.start, m.end))
            elif raw.startswith(("00", "011")) and not raw.isdigit() and is_valid_number(m.number):
                spans.add((m.start, m.end))
    return sorted(spans)


def phone_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each phone number in `text` (the folded view), sorted; overlapping spans are merged."""
    found = [(m.start(), m.end()) for m in _NANP.finditer(text)]
    if _WITH_COUNTRY.search(text):
        found += _with_country(text)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def is_phone(value: str) -> bool:
    """`value` (folded, stripped) is, as a whole, one phone number."""
    return phone_spans(value) == [(0, len(value))]
