"""Letters a reader takes for Latin ones, and the Latin letter each is read as (used by focal.text.views).

The source is Unicode's confusables table (UTS #39, confusables.txt) as the `confusable-homoglyphs` package ships it,
with its script of every code point (Scripts.txt). The table groups characters drawn alike ("а", "ɑ", "α" with "a");
a letter of another script is read as the ASCII letter of its group ("а" as "a", "І" as "I"). The one group holding
two ASCII letters, "I" and "l", gives a capital its capital and a small letter its small one. A group without an
ASCII letter may hold a Latin letter that names its letter: Cyrillic "в" is drawn as the small capital "ʙ", read "b".

Latin letters themselves are read without their accents, and a Latin letter whose Unicode name says which basic
letter it is (small capitals "ʀ", "ꜰ"; hooked, stroked, tailed, dotless, script, open or closed forms "ƒ", "ɾ",
"ł", "ı", "ɡ") as that letter; turned and reversed letters are left alone (they read as another letter or none).

`WEAK` lists a few letters the table does not group with an ASCII one (or groups with a Latin letter read as
another: "ε" with "ꞓ", a c with a bar) but that read as a Latin one inside a Latin word ("гeply", "Acmε"); they are
read so only beside a Latin letter (focal.text.views), never in a word of their own.
"""

from __future__ import annotations

import json
import re
import threading
import unicodedata
from bisect import bisect_right
from functools import lru_cache
from importlib import resources
from typing import Any

_NAMED = re.compile(
    r"^LATIN (?P<case>SMALL |CAPITAL )?LETTER (?P<form>SMALL CAPITAL |DOTLESS |SCRIPT |CLOSED |OPEN |LONG |BARRED |SIDEWAYS |"
    r"INSULAR |BROKEN |TAILLESS |MIDDLE-WELSH |STRETCHED |LENIS |FLATTENED OPEN )?(?P<letter>[A-Z])(?: WITH [A-Z -]+)?$")
_LATIN_BLOCKS = ((0x00C0, 0x024F), (0x0250, 0x02AF), (0x1D00, 0x1DBF), (0x1E00, 0x1EFF), (0x2C60, 0x2C7F),
                 (0xA720, 0xA7FF), (0xAB30, 0xAB6F), (0x10780, 0x107BF), (0x1DF00, 0x1DFFF))
WEAK = {"п": "n", "г": "r", "ь": "b", "ε": "e", "η": "n", "γ": "y", "ω": "w", "χ": "x",
        "Ԛ": "Q", "Һ": "H", "Ԁ": "D", "Ꮖ": "I"}


def _named_latin() -> dict[str, str]:
    out = {}
    for first, last in _LATIN_BLOCKS:
        for code in range(first, last + 1):
            c = chr(code)
            m = _NAMED.match(unicodedata.name(c, ""))
            if m is not None:
                letter = m.group("letter")
                out[c] = letter if m.group("case") == "CAPITAL " else letter.lower()  # a small capital reads as the letter
    return out


def _data(name: str) -> Any:
    """One of the package's data files (read directly: its modules import urllib, 0.1 s, to download new ones)."""
    return json.loads(resources.files("confusable_homoglyphs").joinpath(name).read_text(encoding="utf-8"))


class _Scripts:
    """The script of each code point: the package's ranges of Scripts.txt, searched by their first code point."""

    def __init__(self) -> None:
        data = _data("categories.json")
        ranges = data["code_points_ranges"]  # [first, last, script index, category index], sorted
        self.firsts = [r[0] for r in ranges]
        self.ranges = ranges
        self.names = data["iso_15924_aliases"]

    def of(self, c: str) -> str:
        code = ord(c)
        i = bisect_right(self.firsts, code) - 1
        return self.names[self.ranges[i][2]] if i >= 0 and code <= self.ranges[i][1] else "Unknown"


def _groups() -> list[set[str]]:
    """The table's groups of single characters drawn alike."""
    data = _data("confusables.json")
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, glyphs in data.items():
        for glyph in glyphs:
            other = glyph["c"].strip("\u200e")  # right-to-left glyphs come between left-to-right marks
            if len(key) == 1 and len(other) == 1:
                parent[root(key)] = root(other)
    groups: dict[str, set[str]] = {}
    for c in parent:
        groups.setdefault(root(c), set()).add(c)
    return list(groups.values())


def _pick(c: str, letters: set[str]) -> str:
    """The one of a group's Latin `letters` that `c` reads as: of its own case when there are several."""
    if len(letters) > 1:
        same_case = {x for x in letters if x.islower() == c.islower()} if c.islower() or c.isupper() else \
            {x for x in letters if x.isupper()}
        letters = same_case or letters
    return min(letters)


def _build() -> tuple[dict[str, str], dict[str, str], _Scripts]:
    named = _named_latin()
    scripts = _Scripts()
    others: dict[str, str] = {}
    for group in _groups():
        letters = {c for c in group if c.isascii() and c.isalpha()} or {named[c] for c in group if c in named}
        if letters:
            for c in group:
                if not c.isascii() and c.isalpha() and scripts.of(c) != "LATIN":
                    others[c] = _pick(c, letters)
    return named, others, scripts


_built: list[tuple[dict[str, str], dict[str, str], _Scripts]] = []
_lock = threading.Lock()


def _tables() -> tuple[dict[str, str], dict[str, str], _Scripts]:
    """(Latin letters named after a basic one, letters of other scripts drawn like Latin ones, the scripts): built
    once, on the first text that needs them."""
    if not _built:
        with _lock:
            if not _built:
                _built.append(_build())
    return _built[0]


@lru_cache(maxsize=8192)
def script(c: str) -> str:
    """The script of one character ("LATIN", "CYRILLIC", "COMMON"…)."""
    return _tables()[2].of(c)


@lru_cache(maxsize=8192)
def latin_reading(c: str) -> tuple[str, bool] | None:
    """How a reader of Latin text reads the letter `c`: (the Latin letter, whether the letter is itself Latin), or
    None for a letter that reads as no Latin one (a Latin "ß" or "æ", most letters of other scripts)."""
    base = unicodedata.normalize("NFD", c)[0]
    named, others, _ = _tables()
    if script(c) == "LATIN":
        if base.isascii():
            return base, True
        return (named[base], True) if base in named else None
    if c in WEAK or base in WEAK:
        return None  # read as Latin only beside a Latin letter (focal.text.views)
    if base in others:
        return others[base], False
    return (others[c], False) if c in others else None
