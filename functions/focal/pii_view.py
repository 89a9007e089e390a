"""The view of a text the masking rules read (`focal.pii_text`), and the way back to the text as typed.

A card number, an e-mail address or a phone number may be typed in characters that only look like the
usual ones: full-width, superscript, circled or mathematical digits, the digits of another script
(Arabic-Indic, Persian, Devanagari, …), a full-width or small ``＠``, an ideographic full stop, a
zero-width or other invisible character between two digits, a combining mark on a digit. The rules read
a *view* of the text in which each character is

- folded by NFKC (full-width and compatibility forms, no-break and other wide spaces to a space);
- dropped when it is invisible (format characters such as a zero-width space or joiner, a soft hyphen,
  a bidirectional mark, variation selectors, the combining grapheme joiner, Hangul and Khmer fillers)
  or a combining mark (accents, vowel signs: the letter they sit on stays);
- written as its ASCII digit when it is a decimal digit of any script, and ``。`` as ``.``.

Masks are placed on the view; `View.restore` puts each one over the whole characters its span came from
in the original text, and leaves everything else exactly as typed: a Russian, Arabic or Hindi sentence is
never rewritten, only the values masked in it. A mask holds no character the view would change, so
masking again changes nothing.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

# Invisible characters that are not format characters (Cf): the combining grapheme joiner, Hangul and
# Khmer fillers, the Mongolian vowel separator, variation selectors.
INVISIBLE = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180e\u3164\uffa0") | frozenset(map(chr, range(0xFE00, 0xFE10)))
_LOOK_ALIKES = {"\u3002": "."}  # the ideographic full stop (NFKC keeps it)
_DROPPED_CATEGORIES = frozenset({"Mn", "Mc", "Me", "Cf"})


@lru_cache(maxsize=8192)
def fold_char(ch: str) -> str:
    """What one character is in the view: "" (invisible, a mark), one character or several (NFKC: "½")."""
    out = []
    for c in unicodedata.normalize("NFKC", ch):
        if c in INVISIBLE or unicodedata.category(c) in _DROPPED_CATEGORIES:
            continue
        digit = unicodedata.decimal(c, None)
        out.append(str(digit) if digit is not None else _LOOK_ALIKES.get(c, c))
    return "".join(out)


class _Table(dict[int, str]):
    """`str.translate`'s table: each character folded once, then looked up at C speed; `uneven` holds the
    characters that fold to none or several (the positions of the view shift)."""

    def __init__(self) -> None:
        super().__init__()
        self.uneven: set[str] = set()

    def __missing__(self, code: int) -> str:
        folded = fold_char(chr(code))
        if len(folded) != 1:
            self.uneven.add(chr(code))  # before the table has it: another thread reading it sees it uneven
        self[code] = folded
        return folded


_TABLE_LIMIT = 65536  # distinct characters in one table: a hostile text cannot grow it without bound
_tables = [_Table()]


def fold(text: str) -> str:
    """`text` as the rules read it."""
    return text if text.isascii() else View(text).text


class View:
    """`text` (the view) of `original`, with where each view character came from."""

    def __init__(self, original: str) -> None:
        self.original = original
        self._src: list[int] | None = None  # view index → original index (None: the same positions)
        if original.isascii():
            self.text = original
            return
        table = _tables[0]
        if len(table) > _TABLE_LIMIT:
            table = _tables[0] = _Table()
        self.text = original.translate(table)
        if table.uneven.isdisjoint(original):
            return
        chars: list[str] = []
        src: list[int] = []
        for i, ch in enumerate(original):
            folded = ch if ch.isascii() else table[ord(ch)]
            chars.append(folded)
            src.extend([i] * len(folded))
        self.text, self._src = "".join(chars), src

    def _span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters view[start:end] came from, with the combining marks on the last one."""
        if self._src is None:
            a, b = start, end
        else:
            a, b = self._src[start], self._src[end - 1] + 1
        while b < len(self.original) and unicodedata.category(self.original[b]).startswith("M"):
            b += 1
        return a, b

    def restore(self, masks: list[tuple[int, int, str]]) -> str:
        """The original text with each (start, end, mask) of the view — sorted, not overlapping — in place
        of the characters it came from."""
        if not masks:
            return self.original
        out, cursor = [], 0
        for start, end, mask in masks:
            a, b = self._span(start, end)
            if a < cursor:  # two masks over one character that folds to several ("⑴"): one mask
                a = cursor
                mask = ""
            out += [self.original[cursor:a], mask]
            cursor = max(cursor, b)
        out.append(self.original[cursor:])
        return "".join(out)
