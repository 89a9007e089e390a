"""International bank account numbers (IBAN, ISO 13616) in text, for masking at rest (`focal.pii_text`).

An IBAN is read by its shape shared by every country — two letters, two check digits, then 11 to 30 letters or
digits, written whole or in groups of four — and kept only when its ISO 7064 MOD 97-10 check holds (as a card by
its Luhn sum), so a reference that merely looks like one stays as written. No table per country: the check digits
decide.
"""

from __future__ import annotations

import re

# Whole ("DE89370400440532013000") or in groups of four after the first four ("ES91 2100 0418 4502 0005 1332").
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:(?: ?[A-Za-z0-9]{4}){2,7}(?: ?[A-Za-z0-9]{1,3})?|[A-Za-z0-9]{11,30})"
                   r"(?![A-Za-z0-9])")
_MIN, _MAX = 15, 34  # the shortest (Norway) and longest IBAN ISO 13616 allows


def iban_valid(iban: str) -> bool:
    """`iban` (no spaces) passes the ISO 7064 MOD 97-10 check of ISO 13616."""
    iban = iban.upper()
    if not _MIN <= len(iban) <= _MAX or not iban[2:4].isdigit():
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def iban_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each IBAN in `text` whose check digits hold."""
    return [(m.start(), m.end()) for m in _IBAN.finditer(text) if iban_valid(m.group(0).replace(" ", ""))]
