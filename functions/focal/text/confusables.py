"""Letters a reader takes for Latin ones, as those Latin letters (read by focal.text.normalise).

Two sources, in the spirit of Unicode's confusables (UTS #39 skeletons), without a dependency:

- every Latin letter of the extended Latin blocks (Latin-1 Supplement to Latin Extended-G, IPA, phonetic
  extensions) whose Unicode name says which basic letter it is: small capitals ("ʀ", "ꜰ": LATIN LETTER
  SMALL CAPITAL R/F), a letter with a hook, a stroke, a tail or a fishhook ("ƒ", "ɾ", "ł"), a dotless,
  script, open or closed form ("ı", "ɡ"). Turned and reversed letters are left alone: they read as
  another letter or none. The table is derived from `unicodedata` once, at import (a few thousand names);
- a curated list of letters of other scripts drawn like Latin ones (Cyrillic, Greek, Armenian, Cherokee,
  Lisu) and IPA letters named after a Greek one ("ɑ", "ɩ").

Compatibility forms (full-width, circled, squared, mathematical, modifier letters "ʳ") are NFKC's, before
this table is used.
"""

from __future__ import annotations

import re
import unicodedata

_NAMED = re.compile(
    r"^LATIN (?P<case>SMALL |CAPITAL )?LETTER (?P<form>SMALL CAPITAL |DOTLESS |SCRIPT |CLOSED |OPEN |LONG |BARRED |SIDEWAYS |"
    r"INSULAR |BROKEN |TAILLESS |MIDDLE-WELSH |STRETCHED |LENIS |FLATTENED OPEN )?(?P<letter>[A-Z])(?: WITH [A-Z -]+)?$")
_LATIN_BLOCKS = ((0x00C0, 0x024F), (0x0250, 0x02AF), (0x1D00, 0x1DBF), (0x1E00, 0x1EFF), (0x2C60, 0x2C7F),
                 (0xA720, 0xA7FF), (0xAB30, 0xAB6F), (0x10780, 0x107BF), (0x1DF00, 0x1DFFF))


def _named_latin() -> dict[str, str]:
    out = {}
    for first, last in _LATIN_BLOCKS:
        for code in range(first, last + 1):
            c = chr(code)
            m = _NAMED.match(unicodedata.name(c, ""))
            if m is None:
                continue
            letter = m.group("letter")
            out[c] = letter if m.group("case") == "CAPITAL " else letter.lower()  # a small capital reads as the letter
    return out


OTHER_SCRIPTS = {
    # Cyrillic
    "А": "A", "В": "B", "Е": "E", "Ё": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ї": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y", "Ӏ": "I", "Һ": "H",
    "Ԁ": "D", "Ɛ": "E", "Ꮃ": "W", "Ѵ": "V",
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "ԛ": "q", "ԝ": "w", "ү": "y", "ӏ": "l", "һ": "h",
    "ԁ": "d", "ɡ": "g", "ѵ": "v", "ѡ": "w", "ꙇ": "i",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P",
    "Τ": "T", "Υ": "Y", "Χ": "X", "Ϲ": "C", "Ϳ": "J",
    "α": "a", "ο": "o", "ν": "v", "ι": "i", "κ": "k", "ρ": "p", "υ": "u", "χ": "x", "ϲ": "c", "ϳ": "j", "τ": "t",
    # Armenian
    "օ": "o", "ս": "u", "ո": "n", "հ": "h", "ց": "g", "ք": "f", "զ": "q", "Տ": "S", "Օ": "O", "Ս": "U",
    # Cherokee (capitals drawn as Latin ones)
    "Ꭺ": "A", "Ᏼ": "B", "Ꮯ": "C", "Ꭼ": "E", "Ꮋ": "H", "Ꮖ": "I", "Ꭻ": "J", "Ꮶ": "K", "Ꮮ": "L", "Ꮇ": "M",
    "Ꮲ": "P", "Ꮪ": "S", "Ꭲ": "T", "Ꮩ": "V", "Ꮤ": "W", "Ꮓ": "Z", "Ꮢ": "R", "Ꮐ": "G", "Ꭰ": "D",
    # Lisu
    "ꓮ": "A", "ꓐ": "B", "ꓚ": "C", "ꓓ": "D", "ꓰ": "E", "ꓝ": "F", "ꓖ": "G", "ꓧ": "H", "ꓲ": "I", "ꓙ": "J",
    "ꓗ": "K", "ꓡ": "L", "ꓟ": "M", "ꓠ": "N", "ꓳ": "O", "ꓑ": "P", "ꓣ": "R", "ꓢ": "S", "ꓔ": "T", "ꓴ": "U",
    "ꓦ": "V", "ꓪ": "W", "ꓫ": "X", "ꓬ": "Y", "ꓜ": "Z",
    # IPA letters named after Greek ones
    "ɑ": "a", "ɩ": "i", "ɣ": "y",
}
# Letters of the other scripts in LOOKALIKES, the Latin ones with a name that says their letter, and the curated ones.
LOOKALIKES = {**_named_latin(), **OTHER_SCRIPTS}
