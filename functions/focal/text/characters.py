"""One character as a reader sees it: the first step of every view of a text (focal.text.views).

- NFKC: full-width and half-width forms, ligatures, circled, squared, superscript and mathematical letters and
  digits, compatibility spaces;
- invisible characters (focal.text.invisible) as nothing;
- a decimal digit of any script (Arabic-Indic, Devanagari, Thai…) as its ASCII digit;
- every space separator as " ", a line or paragraph separator as a line break, every dash (hyphen, en and em dash,
  minus sign, hyphen bullet, heavy minus…) as "-";
- the few characters that read as an ASCII sign without being one to NFKC: the fraction slash as "/", the Arabic
  decimal and thousands separators as "." and ",", the ideographic full stop as ".", the blank Braille pattern
  (a space that is no space separator) as " ".

Combining marks are kept here: whether one counts depends on the letter it sits on (focal.text.views).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

from focal.text.invisible import invisible

_SAME_AS = {"\u2044": "/", "\u066b": ".", "\u066c": ",", "\u3002": ".", "\u2800": " ",
            "\u2212": "-", "\u2043": "-", "\u2796": "-", "\ufe63": "-"}
_BY_CATEGORY = {"Zs": " ", "Zl": "\n", "Zp": "\n", "Pd": "-"}


@lru_cache(maxsize=8192)
def seen_char(ch: str) -> str:
    """What one character is to a reader: "" (invisible), one character or several (NFKC: "½" is "1/2")."""
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        if c.isascii():
            out.append(c)
        elif not invisible(c):
            digit = unicodedata.decimal(c, None)
            out.append(str(digit) if digit is not None else _SAME_AS.get(c) or _BY_CATEGORY.get(unicodedata.category(c), c))
    return "".join(out)


class _Table(dict[int, str]):
    """`str.translate`'s table: each character folded once, then looked up at C speed; `uneven` holds the
    characters that fold to none or several (the positions shift)."""

    def __init__(self) -> None:
        super().__init__()
        self.uneven: set[str] = set()

    def __missing__(self, code: int) -> str:
        folded = seen_char(chr(code))
        if len(folded) != 1:
            self.uneven.add(chr(code))  # before the table has it: another thread reading it sees it uneven
        self[code] = folded
        return folded


TABLE_LIMIT = 65536  # distinct characters in one table: a hostile text cannot grow it without bound
_tables = [_Table()]


def seen_characters(text: str) -> tuple[str, list[int] | None]:
    """`text` with each character as a reader sees it, and for each character of the result the index of the one it
    came from (None when every character gave exactly one: the same positions)."""
    if text.isascii():
        return text, None
    table = _tables[0]
    if len(table) > TABLE_LIMIT:
        table = _tables[0] = _Table()
    folded = text.translate(table)
    if table.uneven.isdisjoint(text):
        return folded, None
    chars: list[str] = []
    sources: list[int] = []
    for i, ch in enumerate(text):
        piece = ch if ch.isascii() else table[ord(ch)]
        chars.append(piece)
        sources.extend([i] * len(piece))
    return "".join(chars), sources
