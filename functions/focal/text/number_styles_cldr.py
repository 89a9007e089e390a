"""Where focal/text/data/number_styles.json comes from: CLDR's number symbols, read with Babel (a development tool,
not shipped: its 36 MB of locale data would not fit beside the other Lambda layers).

For each language CLDR has: the decimal sign of its default locale ("en": ".", "de", "es", "fr": ","), the
grouping sizes of that locale's decimal pattern (3 and 3, or 3 and 2 as in "1,00,000"), and the group separators of
every regional locale of the language that shares that decimal sign ("fr": narrow no-break space, no-break space, "."
as in Belgium, "'" as in Switzerland). Run `python -m focal.text.number_styles_cldr` after upgrading Babel;
tests/unit/test_text_numbers.py checks the shipped file against it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("data") / "number_styles.json"


def derive() -> dict[str, dict[str, Any]]:
    from babel import Locale, localedata  # a development dependency: only this generator uses it
    from babel.numbers import get_decimal_symbol, get_group_symbol, parse_pattern

    out: dict[str, dict[str, Any]] = {}
    identifiers = sorted(localedata.locale_identifiers())
    for name in identifiers:
        if "_" in name:
            continue
        locale = Locale.parse(name)
        pattern = locale.decimal_formats.get(None)
        grouping = parse_pattern(pattern.pattern).grouping if pattern is not None else (3, 3)
        decimal = get_decimal_symbol(name)
        groups = {get_group_symbol(other) for other in identifiers
                  if other.split("_")[0] == name and get_decimal_symbol(other) == decimal}
        out[name] = {"decimal": decimal, "groups": sorted(groups - {decimal}), "grouping": list(grouping)}
    return out


if __name__ == "__main__":
    TABLE.write_text(json.dumps(derive(), ensure_ascii=False, sort_keys=True, indent=0) + "\n", encoding="utf-8")
