"""Listed names and words matched in a draft however they are split (read by enforcement's checks on the draft's
check view, focal.text.draft_view): `term_pattern` matches a listed name whole ("Acme-Co", "Acme Co", "AcmeCo"
for "Acme Co"); `joined` rejoins a listed word written with separators inside it ("re-imburse", "c r e d i t",
"c.r.e.d.i.t").
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.text.draft_view import as_checked

_SEPARATOR = r"(?:\s*[-.'’_*·/]{0,2}\s*)"  # what may split a name: spaces, up to two hyphens, dots…


@lru_cache(maxsize=512)
def term_pattern(term: str) -> re.Pattern[str]:
    """A listed name (folded) matched as a whole word, case-insensitively, whether its parts are joined or split by
    spaces or punctuation: "Acme Co" matches "AcmeCo", "Acme-Co", "Acme  Co"; a name of four letters or more also
    matches with a separator inside a word ("Ac-me")."""
    parts = [p for p in re.split(r"[\s\-.'’_*·/]+", as_checked(term).strip()) if p]
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
