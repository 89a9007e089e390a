"""Which characters a reader cannot see: they are dropped from every view of a text (focal.text.views).

Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt) is the set a renderer shows as nothing unless it
does something with it: every format character (category Cf: zero-width space, joiners and non-joiner, word joiner,
soft hyphen, the BOM U+FEFF, the bidirectional marks, embeddings, overrides and isolates, tags, the interlinear
annotation and shorthand format controls) and the code points listed in `_IGNORABLE_RANGES`: the combining grapheme
joiner, Hangul and Khmer fillers, Mongolian free variation selectors, variation selectors (U+FE00–FE0F and the
supplement U+E0100–E01EF), the reserved U+FFF0–FFF8, the musical beam and phrase controls and the rest of the tags
plane. The categories come from `unicodedata`; the ranges are the property's code points outside category Cf.
"""

from __future__ import annotations

import unicodedata

_IGNORABLE_RANGES = (
    (0x034F, 0x034F), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def invisible(c: str) -> bool:
    """`c` (one character) is shown as nothing: a format character or another default-ignorable code point."""
    if unicodedata.category(c) == "Cf":
        return True
    code = ord(c)
    return any(a <= code <= b for a, b in _IGNORABLE_RANGES)
