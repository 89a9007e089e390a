"""Where focal/sensing/data/locale_words.json comes from: CLDR read with Babel (a development tool, not shipped).

For each language the multilingual readers serve (focal.sensing.locale_reading): the sequence of day, month and year
in its short date pattern ("DMY" for es, de, fr), and its names of the currencies customers name (every word of
the singular and plural display names, the symbol and the code): "dólares" → USD, "Euro" → EUR, "livres" → GBP. Run
`python -m focal.sensing.locale_words_cldr` after upgrading Babel; tests/unit/test_locale_reading.py checks the shipped
file against it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("data") / "locale_words.json"
LANGS = ("es", "de", "fr")
CURRENCIES = ("USD", "EUR", "GBP")


def derive() -> dict[str, dict[str, Any]]:
    from babel.dates import get_date_format  # a development dependency: only this generator uses it
    from babel.numbers import get_currency_name, get_currency_symbol

    out: dict[str, dict[str, Any]] = {}
    for lang in LANGS:
        pattern = get_date_format("short", locale=lang).pattern.lower()
        sequence = "".join(c for _, c in sorted((pattern.find(c), c) for c in "dmy" if c in pattern)).upper()
        words: dict[str, str] = {}
        for code in CURRENCIES:
            words[code.lower()] = code
            words[get_currency_symbol(code, locale=lang).lower()] = code
            for count in (1, 2):  # every word of the names: "Britisches Pfund", "US-Dollar", "dólares estadounidenses"
                for word in re.split(r"[\s-]+", get_currency_name(code, count=count, locale=lang).lower()):
                    words[word] = code
        out[lang] = {"date_sequence": sequence, "currencies": dict(sorted(words.items()))}
    return out


if __name__ == "__main__":
    TABLE.write_text(json.dumps(derive(), ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
