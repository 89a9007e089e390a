"""The view of a text the masking rules read (`focal.pii_text`), and the way back to the text as typed.

This is the view the PII rules read: a value is found however it is typed, and masked where it was typed. A
card number, an e-mail address or a phone number may be typed in characters that only look like the usual ones,
spelled out in words or disguised for a human reader. The view reads

- each character as the checks of the whole engine read it (`focal.text.views.check_view`: full-width and other
  compatibility forms, invisible characters dropped, digits of any script as ASCII digits, one space, one dash,
  marks on no letter dropped, and letters that look Latin in a Latin word read as Latin ones without accents),
  and without the marks that view keeps on letters of other scripts (vowel signs: the rules' `\\w` has none);
- **digits spelled out** as digits: the words for 0 to 9 in English, Spanish, German and French ("four",
  "cuatro", "vier", "quatre"), in any case; words spelled one after another ("four one one one", "four-one")
  are read as one group of digits ("4111"), so "four one one one, one one one one, …" reads as a card
  written in groups;
- **e-mail addresses spelled for a human** as written for a machine: ``[at]``, ``(at)``, ``{at}``, ``<at>``,
  ``[@]`` and the Spanish and French ``arroba``/``arobase`` as ``@``; an ``@`` with spaces around it as
  ``@``; in a text that has an ``@`` (or one of those), ``[dot]``, ``(dot)``, a spelled ``dot``/``punto``/
  ``point``/``Punkt`` and a spaced `` . `` between two words as ``.``. A bare spelled ``at`` is read as ``@``
  only before a domain with a spelled or bracketed dot ("jane at example dot com"), so "meet at
  home.com" or "look at index.html" stay prose.

Masks are placed on the view; `View.restore` puts each one over the whole characters its span came from
in the original text (the whole spelled word, the whole ``[at]``), and leaves everything else exactly as
typed: a Russian, Arabic or Hindi sentence is never rewritten, only the values masked in it. A mask holds
no character or word the view would change, so masking again changes nothing.
"""

from __future__ import annotations

import re
import unicodedata

from focal.text.number_words import UNITS
from focal.text.views import check_view_with_sources

DIGIT_WORDS = {
    **{w: str(n) for w, n in UNITS.items() if n < 10},  # English
    "cero": "0", "uno": "1", "dos": "2", "tres": "3", "cuatro": "4", "cinco": "5", "seis": "6", "siete": "7",
    "ocho": "8", "nueve": "9",  # Spanish
    "null": "0", "eins": "1", "zwei": "2", "zwo": "2", "drei": "3", "vier": "4", "funf": "5", "fuenf": "5",
    "sechs": "6", "sieben": "7", "acht": "8", "neun": "9",  # German (the view reads "fünf" without its accent)
    "un": "1", "deux": "2", "trois": "3", "quatre": "4", "cinq": "5", "sept": "7", "huit": "8",
    "neuf": "9",  # French ("zéro" is read "zero", English's; "six" is English's)
}
_DIGIT_WORD = re.compile(rf"(?<!\w)(?:{'|'.join(sorted(DIGIT_WORDS, key=len, reverse=True))})(?!\w)", re.IGNORECASE)
_DIGIT_WORD_CUE = re.compile(rf"\b(?:{'|'.join(sorted(DIGIT_WORDS, key=len, reverse=True))})\b")  # in a lower-cased text
_WORD_GAP = re.compile(r"[ \t-]{1,3}")  # between two spelled digits of one group
_AT, _DOT = "at|arroba|arobase", "dot|punto|point|punkt"
_DOT_WORDS = _DOT.split("|")
_BRACKET_CUE = re.compile(r"[\[({<]")
_OPEN, _CLOSE = r"[\[({<]", r"[\])}>]"
_BRACKETED_DOT = rf"\s*{_OPEN}\s*(?:{_DOT}|\.)\s*{_CLOSE}\s*"
_SPELLED_DOT = rf"\s+(?:{_DOT})\s+(?=[^\W_])"
# Where an address is spelled for a human: a bracketed at, an at-word, an @.
_AT_CORE = re.compile(rf"(?P<bracketed>{_OPEN}\s*(?:{_AT}|@)\s*{_CLOSE})|(?<!\w)(?P<word>{_AT})(?!\w)|@", re.IGNORECASE)
_SPELLED_DOMAIN = re.compile(rf"[\w.-]+(?:{_BRACKETED_DOT}|{_SPELLED_DOT})", re.IGNORECASE)  # after a bare "at"
_LABEL = re.compile(r"[^\W_][\w-]*")
# a real dot, spaced before ("example . com"; "example.com. Next" is a sentence's end) or not (read as it is)
_DOT_FORM = re.compile(rf"{_BRACKETED_DOT}|{_SPELLED_DOT}|(?:\s+\.\s*|\.)(?=[^\W_])", re.IGNORECASE)
_DOT_CUE = re.compile(rf"{_OPEN}\s*(?:{_DOT}|\.)|(?<!\w)(?:{_DOT})(?!\w)", re.IGNORECASE)  # a spelled local part
_LOCAL_PART = re.compile(rf"(?:[\w+-]+(?:{_BRACKETED_DOT}|{_SPELLED_DOT}|\.))+[\w+-]+$", re.IGNORECASE)
Reading = tuple[int, int, str]  # view[start:end] is read as the text


def _spelled_digits(text: str, lowered: str) -> list[Reading]:
    """Each spelled digit as its digit, and the spaces or hyphens between two of them dropped."""
    if _DIGIT_WORD_CUE.search(lowered) is None:  # most texts: no need to look for whole words
        return []
    out: list[Reading] = []
    last_end = -1
    for m in _DIGIT_WORD.finditer(text):
        if last_end >= 0 and _WORD_GAP.fullmatch(text, last_end, m.start()):
            out.append((last_end, m.start(), ""))
        out.append((m.start(), m.end(), DIGIT_WORDS[m.group(0).lower()]))
        last_end = m.end()
    return out


def _at_reading(text: str, m: re.Match[str]) -> Reading | None:
    """The span an at-spelling covers (with the spaces around it), or None when it is no address's @."""
    start, after = m.start(), m.end()
    while start > 0 and text[start - 1].isspace():
        start -= 1
    while after < len(text) and text[after].isspace():
        after += 1
    if m.group("bracketed") is not None:
        return start, after, "@"
    if not (text[start - 1:start].isalnum() or text[start - 1:start] in ('"', "_", "-", "+")) or start == 0:
        return None
    if not text[after:after + 1].isalnum():
        return None
    spaced_before, spaced_after = start < m.start(), after > m.end()
    word = m.group("word")
    if word is None:  # an @: a reading only when spaced ("jane @ example.com")
        return (start, after, "@") if spaced_before or spaced_after else None
    if not (spaced_before and spaced_after):
        return None
    if word.lower() == "at" and _SPELLED_DOMAIN.match(text, after) is None:
        return None  # "meet at home.com": a bare "at" is read as @ only before a spelled or bracketed dot
    return start, after, "@"


def _dot_readings(text: str, start: int, end: int, spelled: bool) -> list[Reading]:
    """The spelled, bracketed or spaced dots of the address whose @ is text[start:end]: the domain after it,
    the local part before it (when the text has a `spelled` dot)."""
    out: list[Reading] = []
    label = _LABEL.match(text, end)
    while label is not None:
        dot = _DOT_FORM.match(text, label.end())
        if dot is None:
            break
        if dot.group(0) != ".":
            out.append((dot.start(), dot.end(), "."))
        label = _LABEL.match(text, dot.end())
    window = max(0, start - 64)
    local = _LOCAL_PART.search(text, window, start) if spelled and _DOT_CUE.search(text, window, start) else None
    if local is not None:
        out += [(d.start(), d.end(), ".") for d in _DOT_FORM.finditer(text, local.start(), local.end()) if d.group(0) != "."]
    return out


def _address_spellings(text: str, lowered: str) -> list[Reading]:
    """Each at-spelling of an address as @ and each of its spelled dots as a dot."""
    if "@" not in text and "arob" not in lowered and "arrob" not in lowered and not (
            "at" in lowered and (_BRACKET_CUE.search(text) or any(word in lowered for word in _DOT_WORDS))):
        return []
    out: list[Reading] = []
    spelled: bool | None = None
    for m in _AT_CORE.finditer(text):
        at = _at_reading(text, m)
        if at is not None:
            out.append(at)
        if at is not None or m.group(0) == "@":
            start, end = (at[0], at[1]) if at is not None else m.span()
            if spelled is None:
                spelled = _DOT_CUE.search(text) is not None
            out += _dot_readings(text, start, end, spelled)
    return out


def _readings(text: str) -> list[Reading]:
    """What the view reads differently from the folded characters, sorted and not overlapping."""
    lowered = text.lower()
    found = sorted(_spelled_digits(text, lowered) + _address_spellings(text, lowered))
    out: list[Reading] = []
    for reading in found:
        if not out or reading[0] >= out[-1][1]:
            out.append(reading)
    return out


# What a text without which reads as it is typed, character for character: no digit, no @ and no word the view reads.
_PLAIN_CUE = re.compile(r"[\d@]")
_WORDS_CUE = re.compile(rf"\b(?:{'|'.join([*sorted(DIGIT_WORDS, key=len, reverse=True), 'arroba', 'arobase', *_DOT_WORDS])})\b"
                        rf"|{_OPEN}\s*at\s*{_CLOSE}")


def spelled(text: str) -> bool:
    """`text` (ASCII) may hold a spelled digit or an address spelled for a human: the view reads it otherwise."""
    return _WORDS_CUE.search(text.lower()) is not None


def needs_no_masking(text: str) -> bool:
    """`text` is ASCII and holds nothing the PII rules read (no digit, no @, no spelled digit or address):
    they need not look at it."""
    return text.isascii() and _PLAIN_CUE.search(text) is None and not spelled(text)


def masking_view(text: str) -> str:
    """`text` as the PII rules read it."""
    return View(text).text


class View:
    """`text` (the view) of `original`, with where each view character came from."""

    def __init__(self, original: str) -> None:
        self.original = original
        # view index → the original characters [start, end) it came from (None: the same positions; no ends:
        # each from one character)
        self._ends: list[int] | None = None
        # each view character from one original character; no marks: the rules' `\w` has none ("नमस्ते@example.com")
        self.text, self._starts = check_view_with_sources(original, keep_marks=False)
        readings = _readings(self.text)
        if readings:
            self._read(readings)

    def _read(self, readings: list[Reading]) -> None:
        """Apply the readings to the view; a read character comes from all the characters it replaces."""
        text = self.text
        starts = self._starts if self._starts is not None else list(range(len(text)))
        ends = self._ends if self._ends is not None else [i + 1 for i in starts]
        chars: list[str] = []
        new_starts: list[int] = []
        new_ends: list[int] = []
        cursor = 0
        for a, b, read in readings:
            chars.append(text[cursor:a])
            new_starts += starts[cursor:a]
            new_ends += ends[cursor:a]
            chars.append(read)
            new_starts += [starts[a]] * len(read)
            new_ends += [ends[b - 1]] * len(read)
            cursor = b
        chars.append(text[cursor:])
        new_starts += starts[cursor:]
        new_ends += ends[cursor:]
        self.text, self._starts, self._ends = "".join(chars), new_starts, new_ends

    def _span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters view[start:end] came from, with the combining marks on the last one."""
        if self._starts is None:
            a, b = start, end
        else:
            a = self._starts[start]
            b = self._ends[end - 1] if self._ends is not None else self._starts[end - 1] + 1
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
