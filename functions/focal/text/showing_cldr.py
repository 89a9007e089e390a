"""Where focal/text/data/showing_styles.json comes from: how CLDR writes a number and a date for a reader of each
language the engine answers in besides English (es, de, fr), read with Babel (a development tool, not shipped).

Per language, its default locale's decimal sign and group separator ("fr": "," and a narrow no-break space), its
long date pattern ("d MMMM y") and its month names as a date writes them ("mars", "März", "marzo"). Read by
focal.text.shown_values. Run `python -m focal.text.showing_cldr` after upgrading Babel; tests/unit/test_shown_values.py
checks the shipped file against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("data") / "showing_styles.json"
LANGS = ("es", "de", "fr")


def derive() -> dict[str, dict[str, Any]]:
    from babel.dates import get_date_format, get_month_names  # a development dependency: only this generator uses it
    from babel.numbers import get_decimal_symbol, get_group_symbol

    return {lang: {"decimal": get_decimal_symbol(lang), "group": get_group_symbol(lang),
                   "date": get_date_format("long", locale=lang).pattern,
                   "months": [str(get_month_names("wide", "format", locale=lang)[m]) for m in range(1, 13)]}
            for lang in LANGS}


if __name__ == "__main__":
    TABLE.write_text(json.dumps(derive(), ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
