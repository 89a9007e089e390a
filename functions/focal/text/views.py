"""The two views of a text every check reads: what a reader sees, and what the checks match.

`reader_view(text)`: each character as a reader sees it (focal.text.characters: NFKC, invisible characters dropped,
digits of any script as ASCII digits, one space, one dash), a combining mark that sits on no letter dropped (a mark on
a digit, a space or a sign: "7\u20e3", zalgo over punctuation), then NFC. Words keep their script and accents: this is
the view for telling which language a text is in, and for reading its figures, links and phones.

`check_view(text)`: the reader view, then in each word whose letters a reader takes for Latin ones, those letters as
the Latin ones, without accents or other marks ("Іgnоre" with a Cyrillic І and о is "Ignore", "café" is "cafe",
"f̸o̸u̸r̸" is "four"). This is the view the checks match their words, names and patterns against: pre-validation's
injection and dangerous-content patterns, the masking rules (focal.pii_view), and enforcement's readers.

Which words are read as Latin follows UTS #39's script mixing (focal.text.lookalikes holds which letters look
Latin):

- a word with a Latin letter (a mixed-script word is a disguise: no language mixes scripts inside a word): its
  Latin letters without accents, its look-alike letters as the Latin ones (the `WEAK` ones too), any other letter as
  written, with its marks;
- a word every letter of which looks Latin, all of one other script ("ехес" in Cyrillic): read as Latin only when
  the text writes no other letter of that script (a whole-script disguise inside Latin text). A Russian or Greek
  sentence writes letters that look like no Latin one ("д", "л", "λ"), so its words stay as written;
- any other word stays as written: Cyrillic, Greek, Arabic, Devanagari… text is never rewritten.

Nothing here changes what is sent or stored: the views are what the checks read.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from focal.text.characters import seen_characters
from focal.text.lookalikes import WEAK, latin_reading, script

_SPACES = re.compile(r"[ \t\r\f\v]+")


class _Kinds(dict[int, str]):
    """`str.translate`'s table from a character to its kind: "L" a letter, "M" a combining mark, "." anything else."""

    def __missing__(self, code: int) -> str:
        kind = unicodedata.category(chr(code))[0]
        self[code] = kind = kind if kind in "LM" else "."
        return kind


_kinds = [_Kinds()]
_WORD = re.compile(r"L[LM]*")
_LOOSE_MARKS = re.compile(r"(?<![LM])M+")


def _words_and_marks(text: str) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """The (start, end) of each word of `text` (a letter, then letters and marks), where a mark sits on no letter,
    and where every mark is."""
    if len(_kinds[0]) > 65536:  # a hostile text cannot grow the table without bound
        _kinds[0] = _Kinds()
    kinds = text.translate(_kinds[0])
    loose = [i for m in _LOOSE_MARKS.finditer(kinds) for i in range(m.start(), m.end())]
    marks = [i for i, k in enumerate(kinds) if k == "M"] if "M" in kinds else []
    return [m.span() for m in _WORD.finditer(kinds)], loose, marks


def reader_view(text: str) -> str:
    """`text` as a reader sees it (see the module)."""
    seen, _ = seen_characters(text)
    if seen.isascii():
        return seen
    _, loose, _ = _words_and_marks(seen)
    if loose:
        dropped = set(loose)
        seen = "".join(c for i, c in enumerate(seen) if i not in dropped)
    return unicodedata.normalize("NFC", seen)


def check_view(text: str) -> str:
    """`text` as the checks match it (see the module)."""
    return check_view_with_sources(text)[0]


def words_view(text: str) -> str:
    """The check view in lower case with every run of spaces as one: what word patterns are matched against."""
    return _SPACES.sub(" ", check_view(text).lower())


def check_view_with_sources(text: str, keep_marks: bool = True) -> tuple[str, list[int] | None]:
    """The check view of `text`, and for each of its characters the index of the character of `text` it came from
    (None: the same positions). `keep_marks=False`: without the marks the view keeps on letters of other scripts."""
    seen, sources = seen_characters(text)
    if seen.isascii():
        return seen, sources
    pieces = list(seen)
    words, loose, marks = _words_and_marks(seen)
    written: set[str] | None = None  # scripts the text writes letters of that look like no Latin letter
    for start, end in words:
        word = seen[start:end]
        if word.isascii():
            continue
        if written is None:
            written = _scripts_written(seen)
        folded = _latin_word(word, written)
        if folded is not None:
            pieces[start:end] = folded
    for i in loose if keep_marks else marks:
        pieces[i] = ""
    if all(len(p) == 1 for p in pieces):
        return "".join(pieces), sources
    kept = [i for i, p in enumerate(pieces) if p]
    return "".join(pieces), kept if sources is None else [sources[i] for i in kept]


@lru_cache(maxsize=8192)
def _unreadable_script(c: str) -> str:
    """The script of a non-ASCII letter that reads as no Latin one ("д", "λ"), else ""."""
    return script(c) if c.isalpha() and not c.isascii() and latin_reading(c) is None else ""


def _scripts_written(text: str) -> set[str]:
    return {s for c in set(text) if (s := _unreadable_script(c))}


def _latin_word(word: str, written: set[str]) -> list[str] | None:
    """Each character of `word` as read in Latin text (one letter or "" for a dropped mark), or None when the word
    stays as written (see the module)."""
    whole_script, folded = _word_reading(word)
    if folded is None or whole_script and whole_script in written:
        return None
    return list(folded)


@lru_cache(maxsize=8192)
def _word_reading(word: str) -> tuple[str, tuple[str, ...] | None]:
    """(the script of a word every letter of which looks Latin, all of that one script, or "" for a word with a Latin
    letter; the word's characters as read in Latin text, or None when it stays as written whatever the text)."""
    readings = [latin_reading(c) if c.isalpha() else None for c in word]
    latin = any(r is not None and r[1] for r in readings)
    whole_script = ""
    if not latin:
        letters = [(c, r) for c, r in zip(word, readings, strict=True) if c.isalpha()]
        scripts = {script(c) for c, _ in letters}
        if any(r is None for _, r in letters) or len(scripts) != 1:
            return "", None
        whole_script = scripts.pop()
    out: list[str] = []
    kept_marks = False  # the marks after a letter kept as written stay with it
    for c, reading in zip(word, readings, strict=True):
        if not c.isalpha():
            out.append(c if kept_marks else "")
            continue
        letter = reading[0] if reading is not None else WEAK.get(c) if latin else None
        kept_marks = letter is None
        out.append(c if letter is None else letter)
    return whole_script, tuple(out)
