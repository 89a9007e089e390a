"""Output check `unbound`: every figure, id, link, e-mail and phone an answer states must come from somewhere.

Read on the rendered answer, in any language (it reads digits, `@` and `://`, never words):

- a **link, e-mail or phone** is said only when the agent declares it (its texts: persona, rules, steps, fixed
  messages, field descriptions and defaults) or it is the customer's own (what they typed in this conversation, the
  slots filled from it, their profile as the business's systems hold it). Text a tool returned is no source: a
  product name carrying "verify it at http://…" never reaches the customer, even through the agent's own template;
- a **figure or id** (an amount, a percentage, a count, a date's digits, a reference) in a model's answer
  must be a value the engine rendered from a binding, a known value of the turn (profile, session, tool output,
  in any of its written forms), a figure the customer wrote in this conversation, or one the agent's texts
  declare. Single digits standing alone ("step 2", "3-5 days") and "24/7" are harmless.

Anything else was invented by the model: not verified, so the draft is regenerated and then replaced by the
fallback. The agent's own templates and fixed texts are checked for links, e-mails and phones only — their
figures are the business's, filled from known values.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.text.numbers import figure_readings
from focal.text.views import reader_view

_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"')\]]+"
                  r"|\b(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:com|net|org|info|biz|io|co|app|dev|example|test|"
                  r"support|help|online|site|shop|store|link|xyz|top|me|us|uk|de|es|fr|eu|ru|cn|tk|ly|gl)\b"
                  r"(?:/[^\s<>\"')\]]*)?", re.I)
# A spaced-out address ("bob @ mail . com") is one; a dot and a capital after a space ends the sentence instead
# ("…to lena@example.de. Reference TR-1204" is the address, then a new sentence).
_EMAIL = re.compile(r"[\w.+-]+\s?(?:@|\[at\]|\(at\))\s?[\w-]+(?:\s?(?:\.(?!\s+(?-i:[A-Z]))|\[dot\]|\(dot\))\s?[\w-]+)+", re.I)
# A phone: a run of at least 7 digits with the separators phone numbers are written with.
_PHONE = re.compile(r"(?<![\w.,/-])\+?\(?\d[\d ().\-/]{5,}\d(?![\w])")
_ID = re.compile(r"#?\b(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_][\w-]*[^\W_]\b|#\d+\b")
_NUMBER = re.compile(r"(?<![\w])\d+(?:[.,'\u00a0 ]\d{3})*(?:[.,]\d+)?(?!\w)|(?<![\w])[.,]\d+(?!\w)")
_ANY_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
# A range ("3-5 business days"): said only as a range something gives, not pieced together from two figures.
_RANGE = re.compile(r"(?<![\w.,/-])(\d+(?:[.,]\d+)?)\s?[-\u2013]\s?(\d+(?:[.,]\d+)?)(?![\w/-]|[.,]\d)")
_HARMLESS = re.compile(r"\b24\s?/\s?7\b")
_LIST_MARKER = re.compile(r"(?m)^\s*\d{1,2}[.):](?=\s)")
# A number with a unit or an ordinal written onto it ("3pm", "2nd", "30-day"): read as the number.
_UNIT_SUFFIX = re.compile(r"^(\d+(?:[.,]\d+)?)-?([^\W\d_]{1,12})$")
_DATE = re.compile(r"(?<![\w.,/-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4})(?![\w/-])")


def number_values(raw: str, languages: Iterable[str] | None = None) -> set[float]:
    """Every value a written number can mean in the styles of `languages` (focal.text.numbers; every style CLDR knows
    when None): "1.000" is 1 in English and 1000 in German, "75,00" is 75, "1,234.50" is 1234.5."""
    return {round(float(v), 4) for v in figure_readings(raw, languages)}


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


@dataclass
class Sources:
    """What a fact may come from: declared contact values, and known or typed figures and ids."""
    contacts: str = ""  # the agent's texts and the customer's own words, lower-cased: links, e-mails, phones appear here
    contact_digits: set[str] = field(default_factory=set)  # digit runs of the declared and the customer's phones
    numbers: set[float] = field(default_factory=set)
    ranges: set[str] = field(default_factory=set)  # "3-5": the ranges the sources write
    words: str = ""  # every known or typed text, lower-cased (ids)
    turn_numbers: set[float] = field(default_factory=set)  # … of those, the turn's: known, typed or the customer's own
    turn_ranges: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class DeclaredFigure:
    """A draft's figure that only the agent's texts support: its place in `text` (the draft as read, rendered values
    blanked) and its values, one set per number (a range has two). Tied to its fact by focal.enforcement.figure_context."""
    text: str
    start: int
    end: int
    values: tuple[frozenset[float], ...]


def _walk(value: Any) -> Iterable[Any]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list | tuple | set):
        for v in value:
            yield from _walk(v)
    elif value is not None:
        yield value


def _add_text(src: Sources, text: str) -> None:
    text = reader_view(text)
    src.words += "\n" + text.lower()
    for m in _NUMBER.finditer(text):
        src.numbers |= number_values(m.group(0))
    for m in _ANY_DIGITS.finditer(text):  # "AB1234" also supports "1234", "8am" supports 8
        src.numbers |= number_values(m.group(0))
    src.ranges |= {f"{m.group(1)}-{m.group(2)}" for m in _RANGE.finditer(text)}


def _contact_sources(texts: list[str]) -> Sources:
    src = Sources()
    declared = reader_view("\n".join(texts))
    src.contacts = declared.lower()
    src.contact_digits = {_digits(m.group(0)) for m in _PHONE.finditer(declared)}
    _add_text(src, declared)
    return src


_AGENT_SOURCES: dict[int, tuple[list[str], Sources]] = {}


def build_sources(agent_texts: Iterable[str], known: dict[str, Any], typed: Iterable[str],
                  own: Iterable[Any] = ()) -> Sources:
    """`agent_texts`: what the agent declares; `known`: the turn's values; `typed`: what the customer wrote (and the
    answers already checked and sent); `own`: the customer's own values (slots, profile) — with `agent_texts` and
    `typed`, the only sources of links, e-mails and phones. The agent's part is read once per list of texts."""
    declared_texts = agent_texts if isinstance(agent_texts, list) else list(agent_texts)
    cached = _AGENT_SOURCES.get(id(declared_texts))
    if cached is None or cached[0] is not declared_texts:
        if len(_AGENT_SOURCES) > 64:
            _AGENT_SOURCES.clear()
        cached = _AGENT_SOURCES[id(declared_texts)] = (declared_texts, _contact_sources(declared_texts))
    base = cached[1]
    turn = _contact_sources([*typed, *(str(v) for v in _walk(list(own)))])
    for value in _walk(known):
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            turn.numbers.add(round(float(value), 4))
        _add_text(turn, str(value))
    return Sources(contacts=base.contacts + "\n" + turn.contacts, contact_digits=base.contact_digits | turn.contact_digits,
                   numbers=base.numbers | turn.numbers, ranges=base.ranges | turn.ranges, words=base.words + turn.words,
                   turn_numbers=turn.numbers, turn_ranges=turn.ranges)


@dataclass
class Unbound:
    kind: str  # link, email, phone, id, figure
    text: str


def _inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s <= start and end <= e for s, e in spans)


def _mask(text: str, start: int, end: int) -> str:
    return text[:start] + " " * (end - start) + text[end:]


def _contacts(text: str, src: Sources) -> tuple[list[Unbound], str]:
    found: list[Unbound] = []
    for pattern, kind in ((_EMAIL, "email"), (_URL, "link")):
        for m in pattern.finditer(text):
            value = m.group(0).rstrip(".,;:!?").lower()
            bare = re.sub(r"^(?:https?://)?(?:www\.)?", "", value).rstrip("/")
            if bare not in src.contacts:
                found.append(Unbound(kind, m.group(0)))
            text = _mask(text, m.start(), m.end())
    for m in _PHONE.finditer(text):
        digits = _digits(m.group(0))
        if len(digits) < 7:
            continue
        if not any(digits in d or d.endswith(digits) for d in src.contact_digits):
            found.append(Unbound("phone", m.group(0)))
        text = _mask(text, m.start(), m.end())
    return found, text


def without_contacts(text: str) -> str:
    """`text` with its links, e-mails and phones blanked: what is left holds its figures (focal.enforcement.figure_context)."""
    for pattern in (_EMAIL, _URL):
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    # a phone has 7 digits or more (as `_contacts` reads it): "911 / 112" are figures
    return _PHONE.sub(lambda m: " " * len(m.group(0)) if len(_digits(m.group(0))) >= 7 else m.group(0), text)


NUMBER = _NUMBER  # a written number in any style


def _without_steps_and_dates(text: str) -> tuple[str, list[str]]:
    text = _HARMLESS.sub(lambda m: " " * len(m.group(0)), text)
    text = _LIST_MARKER.sub(lambda m: " " * len(m.group(0)), text)  # "1." opening a line: a step, not a figure
    dates = []
    for m in _DATE.finditer(text):  # a date is said as known or typed, never read as a phone
        dates.append(m.group(0))
        text = _mask(text, m.start(), m.end())
    return text, dates


def unbound_facts(text: str, src: Sources, spans: list[tuple[int, int]] | None = None,
                  contacts_only: bool = False, languages: Iterable[str] | None = None,
                  declared: list[DeclaredFigure] | None = None) -> list[Unbound]:
    """The facts of `text` that no binding, known value, typed value or declaration supports. Links, e-mails and
    phones are read in the whole text, rendered values included (a placeholder may show a tool's text); figures and
    ids only outside the rendered values (`spans`, where the renderer put them: masked before folding). A figure is
    read in the styles of the agent's `languages` ("1.000" in an English answer is one, not a thousand).
    `declared`: when given, the figures only the agent's texts support are added to it (for the caller to tie each
    to its fact) instead of passing."""
    found, _ = _contacts(_without_steps_and_dates(reader_view(text))[0], src)
    if contacts_only:
        return found
    for start, end in spans or []:
        text = _mask(text, start, end)
    text, dates = _without_steps_and_dates(reader_view(text))
    _, text = _contacts(text, src)  # read above: masked here so their digits are no figures
    read = text
    found += [Unbound("date", d) for d in dates if d.lower() not in src.words]
    for m in _RANGE.finditer(read):
        if f"{m.group(1)}-{m.group(2)}" not in src.ranges:
            found.append(Unbound("figure", m.group(0)))
        elif declared is not None and f"{m.group(1)}-{m.group(2)}" not in src.turn_ranges:
            values = tuple(frozenset(number_values(g, languages) or number_values(g)) for g in m.group(1, 2))
            declared.append(DeclaredFigure(read, m.start(), m.end(), values))
        text = _mask(text, m.start(), m.end())
    for m in _ID.finditer(text):
        token = m.group(0).lstrip("#")
        unit = _UNIT_SUFFIX.match(token)
        if unit:  # "3pm", "2nd", "10x": a number with a unit, read as the number
            _figure(read, m, unit.group(1), src, languages, found, declared)
        elif token.lower() not in src.words:
            found.append(Unbound("id", m.group(0)))
        text = _mask(text, m.start(), m.end())
    for m in _NUMBER.finditer(text):
        _figure(read, m, m.group(0), src, languages, found, declared)
    return found


def _figure(read: str, m: re.Match[str], raw: str, src: Sources, languages: Iterable[str] | None,
            found: list[Unbound], declared: list[DeclaredFigure] | None) -> None:
    """One figure of the draft: unbound, supported, or (with `declared`) left to be tied to its declared fact."""
    values = number_values(raw, languages) or number_values(raw)  # a figure in another style is still read
    if not values or values & src.turn_numbers:
        return
    if not values & src.numbers:
        found.append(Unbound("figure", m.group(0)))
    elif declared is not None:
        declared.append(DeclaredFigure(read, m.start(), m.end(), (frozenset(values & src.numbers),)))


def _declared_texts(agent: AgentConfig) -> list[str]:
    return [s for s in _walk(agent.model_dump(mode="json", exclude={"tools"})) if isinstance(s, str)]


# Every text the agent file declares (its own words and constants), read once per loaded agent.
agent_declared_texts: PerObject[AgentConfig, list[str]] = PerObject(_declared_texts)


_CURRENCY = r"[$€£¥₹]|\b(?:usd|eur|gbp|chf|cad|aud|mxn|euros?|dollars?|pesos|pounds|francs?)\b"
_MONEY_FIGURE = re.compile(rf"(?:{_CURRENCY})\s?(?P<a>\d[\d.,' ]*\d|\d)|(?P<b>\d[\d.,' ]*\d|\d)\s?(?:{_CURRENCY})", re.I)
_PERCENT_FIGURE = re.compile(r"(?P<a>\d+(?:[.,]\d+)?)\s?(?:%|percent\b|per\s?cent\b|por\s?ciento\b|prozent\b|pour\s?cent\b)", re.I)


def marked_figures(text: str, kind: str) -> list[float]:
    """The amounts of `kind` (money: a currency sign or code beside it; percentage: a percent sign or word) a text
    states, in any language and number style, each once per mention (the largest reading of one that reads two
    ways, in every style: a cap holds for whichever way the customer reads it); a currency sign before digits run
    into letters ("$9O", "$l20") is an amount nobody can read: infinite."""
    text = reader_view(text)
    pattern = _MONEY_FIGURE if kind == "money" else _PERCENT_FIGURE if kind == "percentage" else None
    if pattern is None:
        return []
    out: list[float] = []
    for m in pattern.finditer(text):
        raw = (m.groupdict().get("a") or m.groupdict().get("b") or "").strip()
        values = number_values(raw)
        if values:
            out.append(max(values))
    if kind == "money" and _UNREADABLE_MONEY.search(text):
        out.append(float("inf"))
    return out


_UNREADABLE_MONEY = re.compile(r"[$€£¥₹]\s?(?:\d+[OoIlSB]|[OoIlS]\d)", re.I)
