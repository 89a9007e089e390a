"""Numbers written out in words: "seventy-five" → 75, "one hundred and twenty" → 120, "a thousand" → 1000."""

from __future__ import annotations

import re

UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i >= 2}


def words_value(words: str) -> int | None:
    total = current = 0
    for token in re.split(r"[\s-]+", words.lower().strip()):
        if token in ("and", ""):
            continue
        if token in ("a", "an"):
            current = current or 1
        elif token in UNITS:
            current += UNITS[token]
        elif token in TENS:
            current += TENS[token]
        elif token == "hundred":
            current = max(current, 1) * 100
        elif token == "thousand":
            total, current = total + max(current, 1) * 1000, 0
        else:
            return None
    return total + current


_ROMAN = {"M": 1000, "D": 500, "C": 100, "L": 50, "X": 10, "V": 5, "I": 1}
_ROMAN_FORM = re.compile(r"M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")


def roman_value(numeral: str) -> int | None:
    """"XXV" → 25, "LXXV" → 75; None for what is no well-formed Roman numeral ("IIII", "VX", "")."""
    if not numeral or _ROMAN_FORM.fullmatch(numeral) is None:
        return None
    values = [_ROMAN[c] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
