"""Where focal/sensing/data/locale_words.json comes from: CLDR read with Babel (a development tool, not shipped).

For each language the multilingual readers serve (focal.sensing.locale_reading): the sequence of day, month and year
in its short date pattern ("DMY" for es, de, fr), and its names of the currencies customers name (every word of
the singular and plural display names, the symbol and the code): "dólares" → USD, "Euro" → EUR, "livres" → GBP; and
its names of days relative to today: the days around it ("pasado mañana" → 2) and the weekdays before, of and after
this week ("vendredi prochain" → Friday, +1), for focal.sensing.relative_dates. Run
`python -m focal.sensing.locale_words_cldr` after upgrading Babel; tests/unit/test_locale_reading.py checks the shipped
file against it.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("data") / "locale_words.json"
LANGS = ("es", "de", "fr")
CURRENCIES = ("USD", "EUR", "GBP")
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # CLDR's keys, Monday = 0


@lru_cache(maxsize=1)
def shipped_table() -> dict[str, Any]:
    """The shipped table (TABLE), read once per process."""
    return dict(json.loads(TABLE.read_text(encoding="utf-8")))


def relative_days(lang: str) -> dict[str, Any]:
    """CLDR's names of days relative to today in `lang`: {"days": {phrase: offset}, "weekdays": {phrase: [weekday,
    offset]}} (offset -1: the last one, 0: this week's, +1: the next one), "counts": the phrases of a count of days or
    weeks from today, "{0}" for the count ("dans {0} semaines", "hace {0} días")."""
    from babel import Locale  # a development dependency: only this generator uses it

    fields = Locale.parse(lang)._data["date_fields"]  # Babel keeps CLDR's relative fields only here
    days = {str(phrase).lower(): int(offset) for offset, phrase in dict(fields["day"]["relative"]).items()}
    weekdays = {str(phrase).lower(): [n, int(offset)] for n, key in enumerate(WEEKDAYS)
                for offset, phrase in dict(fields[key]["relative"]).items()}
    counts = sorted({str(p).lower() for unit in ("day", "week") for side in ("future", "past")
                     for p in dict(fields[unit][side]).values()})
    return {"days": dict(sorted(days.items())), "weekdays": dict(sorted(weekdays.items())), "counts": counts}


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
        out[lang] = {"date_sequence": sequence, "currencies": dict(sorted(words.items())), "relative": relative_days(lang)}
    return out


if __name__ == "__main__":
    TABLE.write_text(json.dumps(derive(), ensure_ascii=False, sort_keys=True, indent=1) + "\n", encoding="utf-8")
