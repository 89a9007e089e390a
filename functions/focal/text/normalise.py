"""One folding of a draft for everything enforcement reads from it without a model.

The amount reader, the boolean and typed field reading, the agents' field patterns (an echoed card
number), entity lists (names a rule forbids) and the grounding claims all read `fold(draft)`, never the
raw text, so a character the customer cannot see or tell apart changes nothing they read:

- NFKC (full-width letters and digits, ligatures, compatibility spaces);
- invisible characters dropped: every format character (category Cf: zero-width space and joiners,
  soft hyphen, bidi marks and overrides, word joiner, BOM) and the other default-ignorable code points
  (combining grapheme joiner U+034F, variation selectors U+FE00–FE0F and U+E0100–E01EF, Hangul fillers,
  Khmer inherent vowels, Mongolian variation selectors, tags);
- every space separator (no-break, narrow no-break, thin, figure, ideographic…) as a plain space, line
  and paragraph separators as a newline; every dash (hyphen, non-breaking hyphen, en and em dash,
  minus sign…) as "-"; between digits an underscore or a spaced dash as "-", a run of spaces as one; a
  combining mark on a digit dropped; the Arabic decimal and thousands separators as "." and ",";
  emphasis markup (**, __, `, <b>, <em>…) dropped;
- in a word that has a Latin letter, or whose every letter looks like one, the Cyrillic, Greek and other
  look-alikes of Latin letters as those letters (focal.text.confusables: small capitals "ʀᴇꜰ", hooked
  and stroked letters "ƒ", "ɾ"), and accents dropped ("rеfund" with a Cyrillic е, "réfund").
  A word of another script stays as written: a reply in Russian is still read as Russian.

The answer sent is never changed: only what the checks read. `plain` is the same without the
look-alike folding (for telling which language a draft is in); `term_pattern` matches a listed name
however it is split ("Acme-Co", "Acme Co", "AcmeCo" for "Acme Co"); `joined` rejoins a listed word written
with separators inside it ("re-imburse", "c r e d i t", "c.r.e.d.i.t").
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from focal.text.confusables import LOOKALIKES

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties) outside category Cf, which is dropped whole.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
_DASHES = "\u2212\u2043\u2796\ufe63\uff0d"  # minus sign, hyphen bullet, heavy minus, small and full-width hyphen-minus
# Letters that look like Latin ones: focal.text.confusables (Cyrillic, Greek, Armenian, Cherokee, Lisu, and
# every extended Latin letter whose name says its letter: small capitals, hooks, strokes, dotless and script forms).
_LOOKALIKES = LOOKALIKES
# Weaker look-alikes, folded only in a word that already has a Latin letter ("Acmе" with a Cyrillic е is "Acme";
# the Russian "по" stays Russian).
_IN_LATIN = {"п": "n", "г": "r", "ь": "b", "ε": "e", "η": "n", "γ": "y", "ω": "w", "ł": "l", "ø": "o", "đ": "d",
             "ħ": "h", "ŀ": "l"}
_LOOKALIKE_TABLE = str.maketrans({**_IN_LATIN, **_LOOKALIKES})
# Characters read as another: the fraction slash ("¾" is "3⁄4" after NFKC), the Arabic decimal and thousands
# separators, the blank Braille pattern (a space that is no space separator).
_SAME_AS = {"\u2044": "/", "\u066b": ".", "\u066c": ",", "\u2800": " "}
# A combining mark on a digit ("7\u20e3" is a keycap 7, "7\u0300" a 7 with a grave): the digit.
_MARK_ON_DIGIT = re.compile(r"(?<=\d)[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")
_WORD = re.compile(r"[^\W\d_]+")
# Presentation markup that changes nothing the customer reads ("**4111** **1111**"), spaces run together between
# digit groups ("4111   1111") and a dash spaced out between groups of four ("4111 - 1111"; not "B2001 - 100%").
_MARKUP = re.compile(r"\*\*(?P<a>[^*\s](?:[^*]*[^*\s])?)\*\*|__(?P<b>[^_\s](?:[^_]*[^_\s])?)__|`|</?(?:b|strong|em|i|span)>", re.I)
_DIGIT_GAP = re.compile(r"(?<=\d{4}) +- +(?=\d{4})|(?<=\d)(?: {2,}|\t+)(?=\d)")
_DIGIT_UNDERSCORE = re.compile(r"(?<=\d)_+(?=\d)")


def _ignorable(c: str) -> bool:
    if unicodedata.category(c) == "Cf":
        return True
    code = ord(c)
    return any(a <= code <= b for a, b in _IGNORABLE_RANGES)


@lru_cache(maxsize=4096)
def _char(c: str) -> str:
    """What one character is read as (the empty string when it is invisible)."""
    if c.isascii():
        return c
    if _ignorable(c):
        return ""
    category = unicodedata.category(c)
    if category == "Zs":
        return " "
    if category in ("Zl", "Zp"):
        return "\n"
    if category == "Pd" or c in _DASHES:
        return "-"
    return _SAME_AS.get(c, c)


def plain(text: str) -> str:
    """NFKC, without invisible characters, with one space, one dash and one fraction slash."""
    text = unicodedata.normalize("NFKC", text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", "".join(_char(c) for c in text))  # marks joined once the invisibles are gone
    text = _MARKUP.sub(lambda m: m.group("a") or m.group("b") or "", _MARK_ON_DIGIT.sub("", text))  # "****" stays
    return _DIGIT_GAP.sub(lambda m: "-" if "-" in m.group(0) else " ", _DIGIT_UNDERSCORE.sub("-", text))


def _latin_word(m: re.Match[str]) -> str:
    word = m.group(0)
    if word.isascii():
        return word
    if not any(c.isascii() for c in word) and not all(c in _LOOKALIKES or c.isascii() for c in word):
        return word  # a word of another script: read as written
    folded = unicodedata.normalize("NFD", word.translate(_LOOKALIKE_TABLE))
    return unicodedata.normalize("NFC", "".join(c for c in folded if unicodedata.category(c) != "Mn"))


def fold(text: str) -> str:
    """`plain`, with look-alike letters and accents of Latin-looking words as the Latin letters."""
    text = plain(text)
    return text if text.isascii() else _WORD.sub(_latin_word, text)


_SEPARATOR = r"(?:\s*[-.'’_*·/]{0,2}\s*)"  # what may split a name: spaces, up to two hyphens, dots…


@lru_cache(maxsize=512)
def term_pattern(term: str) -> re.Pattern[str]:
    """A listed name (folded) matched as a whole word, case-insensitively, whether its parts are joined or split by
    spaces or punctuation: "Acme Co" matches "AcmeCo", "Acme-Co", "Acme  Co"; a name of four letters or more also
    matches with a separator inside a word ("Ac-me")."""
    parts = [p for p in re.split(r"[\s\-.'’_*·/]+", fold(term).strip()) if p]
    letters = sum(len(p) for p in parts)
    inner = _SEPARATOR if letters >= 4 else ""
    body = _SEPARATOR.join(inner.join(re.escape(c) for c in part) for part in parts)
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


_PIECE = re.compile(r"[^\W\d_]+")
# What may split a word the customer still reads whole (not an apostrophe: "money's" is no "moneys").
_INNER_GAP = re.compile(r"[ \t]{1,2}|[ \t]?[-.·_*/~+|]{1,2}[ \t]?")
_ENDINGS = ("", "s", "es", "ed", "d", "ing", "ment", "ments", "al")


def joined(text: str, words: frozenset[str]) -> str:
    """`text` with every run of letter groups split only by spaces or punctuation ("re-imburse", "r e i m b u r s e",
    "r.e.i.m.b.u.r.s.e") written as one word when, joined, it is exactly one of `words` (lower case) or one with an
    inflection ("credit" → "c-r-e-d-i-t-e-d"). Only the whole joined run counts, never part of a word: "pre-paid"
    joins to "prepaid", which is no listed "repaid", and "a void" to "avoid", not "void"."""
    pieces = list(_PIECE.finditer(text))
    if len(pieces) < 2 or not words:
        return text
    gaps = [_INNER_GAP.fullmatch(text, a.end(), b.start()) is not None for a, b in zip(pieces, pieces[1:], strict=False)]
    longest = _longest_ascii if text.isascii() else _longest
    parts = [p.group(0).lower() for p in pieces] if text.isascii() else [p.group(0) for p in pieces]
    out, last, i = [], 0, 0
    while i < len(pieces):
        reach = i
        while reach < len(gaps) and reach - i < 15 and gaps[reach]:
            reach += 1
        match = longest(parts, i, reach, words) if reach > i else None
        if match is None:
            i += 1
            continue
        out += [text[last:pieces[i].start()], "".join(p.group(0) for p in pieces[i:match + 1])]
        last, i = pieces[match].end(), match + 1
    return "".join(out) + text[last:]


def _longest(pieces: list[str], i: int, reach: int, words: frozenset[str]) -> int | None:
    """The last piece up to `reach` that, joined from piece `i` (two pieces at least), makes a listed word."""
    for j in range(reach, i, -1):
        word = "".join(pieces[i:j + 1]).lower()
        if len(word) <= 24 and any(word.endswith(e) and word[:len(word) - len(e)] in words for e in _ENDINGS):
            return j
    return None


def _longest_ascii(lowered: list[str], i: int, reach: int, words: frozenset[str]) -> int | None:
    """`_longest` on ASCII pieces (already lower case, so a joined word is the pieces joined): grown piece by piece
    while it still begins a listed word with an ending (a longer join of a word that begins none begins none)."""
    inflected, beginnings = _inflected(words)
    word, match = lowered[i], None
    for j in range(i + 1, reach + 1):
        if word not in beginnings:
            break
        word += lowered[j]
        if len(word) > 24:
            break
        if word in inflected:
            match = j
    return match


@lru_cache(maxsize=64)
def _inflected(words: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Every listed word with each ending, and every beginning of those."""
    inflected = frozenset(w + e for w in words for e in _ENDINGS)
    return inflected, frozenset(x[:k] for x in inflected for k in range(1, len(x) + 1))
