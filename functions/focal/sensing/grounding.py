"""Whether a value a sensor model read follows from the customer's message.

A value is grounded when it is written in the message — both read as every check reads text (focal.text's check
view), then case, accents, `_` and dashes as spaces; digits compared as digits ("B-2001" is B2001, "$250.00" is
250) — or follows from it: the offline reader read the same value, the offline typed readers parse that date or
amount out of the message, an allowed value is named by one of its words or synonyms, or the session already holds
that very value for that name. Anything else is the model's own: `grounding` says why, for the trace.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date
from typing import Any

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.session import Session
from focal.sensing import dates, extraction
from focal.sensing.money import message_amount, spelled_numbers
from focal.text.number_words import WORD_RUN, number_value
from focal.text.views import check_view

_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}$")
MIN_DIGIT_RUN = 3  # a value's digits found inside the message's characters: at least this many digits


def _compared(text: Any) -> str:
    """Compared text: the check view (focal.text.views), case-folded, accents dropped in every script, `_` and any
    dash as a space, spaces collapsed."""
    s = unicodedata.normalize("NFKD", check_view(str(text)).casefold())
    s = "".join(c for c in s if not unicodedata.combining(c))
    s = re.sub(r"[_\u2010-\u2015\u2212-]", " ", s)
    return " ".join(s.split())


def _compact(text: str) -> str:
    return re.sub(r"[\W_]+", "", _compared(text))


def _numbers(text: str) -> set[float]:
    out = set()
    for m in _NUMBER.finditer(spelled_numbers(text)):
        try:
            out.add(float(m.group(0).replace(",", "")))
        except ValueError:
            continue
    for m in WORD_RUN.finditer(text):  # "three hundred" is 300
        value = number_value(m.group(0))
        if value is not None:
            out.add(float(value))
    return out


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    raw = str(value).strip().replace(",", "").lstrip("$€£").rstrip("%")
    try:
        return float(raw)
    except ValueError:
        return None


def written(value: Any, message: str) -> bool:
    """The value written in the message (folded, as whole words; digits as digits)."""
    folded = _compared(value)
    if not folded:
        return False
    text = _compared(message)
    if re.search(rf"(?<!\w){re.escape(folded)}(?!\w)", text):
        return True
    number = _as_number(value)
    if number is not None and number in _numbers(message):
        return True
    compact = _compact(str(value))
    digits = sum(c.isdigit() for c in compact)
    return digits >= MIN_DIGIT_RUN and compact in _compact(message)


def _typed(f: ProfileFieldDefinition | None, value: Any, message: str, today: date | None) -> bool:
    """A date, amount or allowed value the offline typed readers take out of the message."""
    if isinstance(value, str) and _ISO.match(value.strip()) and _date_in(value.strip(), message, today):
        return True
    if f is None:
        return False
    if f.field_type in ("money", "percentage"):
        return _amount_in(f, value, message)
    if f.field_type in ("enum", "entity_list") and f.allowed_values:
        return _allowed_named(f, value, message)
    if f.field_type == "boolean" and isinstance(value, bool):
        return extraction.yes_or_no(message) is value
    return False


def _date_in(iso: str, message: str, today: date | None) -> bool:
    """The date (ISO) is one the message states."""
    found = dates.read_dates(message, today) or []
    return iso in {d for _, _, d in found} or dates.read_date(message, today) == iso


def _amount_in(f: ProfileFieldDefinition, value: Any, message: str) -> bool:
    """The amount is the one the message gives for a money field, or any figure it states."""
    number = _as_number(value)
    amount = message_amount(message, f.extraction_hints) if f.field_type == "money" else None
    return number is not None and (amount == number or number in _numbers(message))


def _allowed_named(f: ProfileFieldDefinition, value: Any, message: str) -> bool:
    """Each allowed value (or list of them) is one the message names, by a word or a synonym."""
    said = extraction.extract(f, message)
    wanted = value if isinstance(value, list) else [value]
    named = said if isinstance(said, list) else [said]
    chosen = [extraction.allowed_value(f, w) for w in wanted]
    return all(c is not None and c in named for c in chosen)


def _same(a: Any, b: Any) -> bool:
    if a in (None, "", []) or b in (None, "", []):
        return False
    na, nb = _as_number(a), _as_number(b)
    if na is not None and nb is not None:
        return na == nb
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return _compared(a) == _compared(b)


def grounding(agent: AgentConfig, session: Session, name: str | None, value: Any, message: str,
              offline_values: list[Any], today: date | None) -> str | None:
    """How the value follows from the message (None: it does not — the model made it up)."""
    if value in (None, "", []):
        return None
    if any(_same(value, v) for v in offline_values):
        return "read offline too"
    known = session.slots.get(name or "", session.variables.get(name or ""))
    if _same(value, known):
        return "the value the conversation already holds"
    f = agent.field(name or "")
    if isinstance(value, list):
        if all(written(v, message) or _typed(f, v, message, today) for v in value):
            return "each entry in the message"
        return None
    if not isinstance(value, bool) and written(value, message):
        return "in the message"
    if _typed(f, value, message, today):
        return "read from the message by its type"
    return None
