"""The variables an enforcement expression reads, read from a draft without any model.

Only the names the expressions use are read (from each expression's syntax tree), and only for fields
whose `sources` include `response` (an amount the answer promises, competitors it names, a card
number it echoes). Money, percentage and number fields are read by focal.enforcement.draft_reading,
which fails closed: an amount it cannot attribute makes the field *uncertain*, and a rule that reads an
uncertain field is "cannot verify" rather than evaluated on the default. Other types use the typed
patterns of focal.sensing.extraction. `offline_reading` also names the fields a model should read
(focal.enforcement.variables asks it); nothing here calls a model, so validation can use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from focal import expressions
from focal.enforcement.amount_cues import EXCEPTION, REFUSED_AFTER, TURNAROUND
from focal.enforcement.amount_forms import may_state_amount, states_figure
from focal.enforcement.amount_known import amount_roles, known_names, known_values, names_in, other_fields_hints
from focal.enforcement.comparison_words import in_reader_words, languages_of
from focal.enforcement.date_promises import vague_promise
from focal.enforcement.definite_acts import definite_act
from focal.enforcement.draft_reading import NUMERIC, policy_figures, read_amount
from focal.enforcement.linear_scan import Suffixes
from focal.enforcement.terms import term_pattern
from focal.enforcement.whole_quantity import whole_in_other_language
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.models.turn import Violation
from focal.pii_view import masking_view, spelled
from focal.sensing.extraction import PatternUnread, coerce, read_value
from focal.sensing.language import foreign_parts
from focal.text.draft_view import as_checked, as_read
from focal.text.shown_values import long_dates_as_iso, showing

PROBES = {"money": (0.0, -1e12, 1e12), "percentage": (0.0, -1e12, 1e12), "number": (0.0, -1e12, 1e12),
           "integer": (0, -10**12, 10**12), "boolean": (True, False)}


def expression_names(rules: list[Rule]) -> set[str]:
    out: set[str] = set()
    for rule in rules:
        if rule.enforcement_expression:
            try:
                out |= expressions.names(rule.enforcement_expression)
            except ExpressionError:
                continue  # reported as a violation when evaluated
    return out


@dataclass
class DraftReading:
    values: dict[str, Any] = field(default_factory=dict)     # what the draft states, field by field
    uncertain: dict[str, str] = field(default_factory=dict)  # field → why its value cannot be read reliably
    unexplained: dict[str, list[float]] = field(default_factory=dict)  # the amounts behind an uncertainty
    repeated: set[str] = field(default_factory=set)  # fields promised more than once: no written amount bounds them


def _worth_asking(field: ProfileFieldDefinition, draft: str) -> bool:
    """For other types: the draft talks about the field (one of its hints appears) without a value the
    patterns can read, or the field has no default to fall back on."""
    lowered = draft.lower()
    return field.default is None or any(h.lower() in lowered for h in field.extraction_hints)


def offline_reading(
    agent: AgentConfig, draft: str, names: set[str], known: dict[str, Any] | None = None, model_written: bool = True,
    today: date | None = None,
) -> tuple[DraftReading, list[ProfileFieldDefinition]]:
    """The reading without a model, and the fields a model should read (`draft_variables` asks it). Every check
    reads the checked draft (focal.text.draft_view). `model_written`: not one of the agent's own texts —
    then a draft with a sentence or a clause in another language than the cues' (English) states no amount the
    reading can place, once it states a figure or names one of the turn's known purchases. `today`: the turn's date
    (the caller's clock), from which a date named vaguely ("in about two months") is read as a range."""
    known = known or {}
    fields = [f for n in sorted(names) if (f := agent.field(n)) is not None and "response" in f.sources
              and not f.privileged]
    reading, ask = DraftReading(), []
    # in the languages the text is written in (and the turn's, which filled it): "au plus 50 €" compares and adds
    # nothing, "3 de marzo de 2027" is a date and no amounts (focal.enforcement.comparison_words, focal.text.shown_values)
    read = as_read(draft)
    languages = sorted({*languages_of(read), *filter(None, [showing()])})
    text = in_reader_words(long_dates_as_iso(as_checked(draft), languages), languages)
    foreign = foreign_parts(read) if model_written and any(
        f.field_type in ("money", "percentage") or _read_by_hints(f) for f in fields) else []
    draft_read = _Draft(agent, text, known, {f.field_name for f in fields}, foreign)
    for f in (_folded(f) for f in fields):
        asked = draft_read.amount(f, reading) if f.field_type in NUMERIC else _read_other(f, text, reading, foreign)
        if f.field_type == "date":
            asked = _vague_date(f, read, tuple(agent.languages), today, reading) or asked
        if asked:
            ask.append(f)
    return reading, ask


@dataclass
class _Draft:
    """What every numeric field of one draft is read against."""
    agent: AgentConfig
    text: str                       # the folded draft
    known: dict[str, Any]
    read: set[str]                  # the fields read from the draft: no known value
    foreign: list[tuple[str, str]]  # its parts in another language (language, text)

    def amount(self, f: ProfileFieldDefinition, reading: DraftReading) -> bool:
        """Read a money, percentage or number field into `reading`; True when a model should read it."""
        agent, text, kind = self.agent, self.text, f.field_type
        purchases = known_names(agent, f, self.known, self.read)
        knowns = known_values(agent, kind, self.known, self.read)
        if self.foreign and kind in ("money", "percentage") and (states_figure(text) or names_in(purchases, text)
                                                                  or knowns or self._whole_in_words()):
            # "Le reembolsamos $75", "…un reembolso completo del pedido B-123", "le devolvemos la cuota íntegra" (the
            # turn knows the fee): the cue words are English, so what a sentence in another language promises cannot
            # be read offline once the answer states a figure, names a known purchase or the turn knows an amount
            # it could promise without a figure, or a sentence covers the whole of something ("todas sus multas":
            # focal.enforcement.whole_quantity) — a model reads it
            reading.uncertain[f.field_name] = _not_english(self.foreign, f"what it promises for {f.field_name}")
            return True
        amount = read_amount(f, text, knowns, policy_figures(agent, kind),
                             purchases if kind == "money" else (), amount_roles(agent, f) if kind == "money" else (),
                             other_fields_hints(agent, f))
        if amount.value is not None:
            reading.values[f.field_name] = coerce(kind, amount.value)
        if amount.uncertain:
            reading.uncertain[f.field_name] = amount.uncertain
            reading.unexplained[f.field_name] = amount.unexplained
            if amount.repeated:
                reading.repeated.add(f.field_name)
        return bool(amount.uncertain or (amount.cue and amount.value is None and may_state_amount(text, kind)))

    def _whole_in_words(self) -> bool:
        """A sentence in another language covers the whole of something ("todas sus multas") or does an act to a
        definite amount ("le he condonado su recargo": focal.enforcement.definite_acts)."""
        return any(whole_in_other_language(part) or definite_act(part, lang) for lang, part in self.foreign)


def _not_english(foreign: list[tuple[str, str]], what: str) -> str:
    language, part = foreign[0]
    return f"the answer is not all in English ({language}: \"{part[:60]}\"): the offline reading cannot tell {what}"


def _vague_date(f: ProfileFieldDefinition, draft: str, languages: tuple[str, ...], today: date | None,
                reading: DraftReading) -> bool:
    """A date the draft names only vaguely (focal.enforcement.date_promises) into `reading`; True when a model should
    read it (its latest day cannot be formed: uncertain, never the default)."""
    exact = reading.values.get(f.field_name)
    promise = vague_promise(draft, languages, today, exact if isinstance(exact, str) and exact else None)
    if promise is None or f.field_name in reading.uncertain:
        return False
    if promise.unknown:
        reading.values.pop(f.field_name, None)
        reading.uncertain[f.field_name] = promise.unknown
        return True
    reading.values[f.field_name] = promise.latest
    return False


def _read_by_hints(f: ProfileFieldDefinition) -> bool:
    """A yes/no read from an answer by its extraction hints alone (no pattern): words of one language."""
    return f.field_type == "boolean" and not f.pattern and bool(f.extraction_hints)


def _read_other(f: ProfileFieldDefinition, text: str, reading: DraftReading, foreign: list[tuple[str, str]]) -> bool:
    """Read a field of another type with its typed pattern into `reading`; True when a model should read it."""
    try:
        value = _pattern_read(f, text) if f.pattern else read_value(f, text)
    except PatternUnread as unread:  # unknown, never the default (a card number echoed or not)
        reading.uncertain[f.field_name] = f"the answer could not be read for {f.field_name}: {unread}"
        return True
    if foreign and value is not True and _read_by_hints(f):
        # "le eximimos de la fianza": hints in the file's language find nothing in a sentence in another, which is
        # no "no" — unknown until a model reads it (as an amount in such a sentence is)
        reading.uncertain[f.field_name] = _not_english(foreign, f"{f.field_name} from its hints")
        return True
    if f.field_type == "entity_list" and isinstance(value, list):
        value = [v for v in f.allowed_values if v in value or _named(f, v, text)]  # "Acme-Co" for "Acme Co"
    if value is True and f.field_type == "boolean" and _only_refused(f, text):
        value = False  # "I can't promise an upgrade": every mention of the field is refused
    if value is not None:
        reading.values[f.field_name] = coerce(f.field_type, value)
        return False
    return _worth_asking(f, text)


def _pattern_read(f: ProfileFieldDefinition, text: str) -> Any:
    """A field's pattern read on the draft as typed, and — when that finds nothing — on the draft as the customer
    reads its spelled-out values (focal.pii_view: "four one one one …" is 4111…, "jane at example dot com" an
    address): a card number written out in words is still a card number said to the customer."""
    value = read_value(f, text)
    if value in (None, False) and spelled(text):
        value = read_value(f, masking_view(text))
    return value


def _folded(field: ProfileFieldDefinition) -> ProfileFieldDefinition:
    """The field with its hints and amount words folded as the draft is (an accented hint reads an accented draft)."""
    w = field.amount_words
    words = [*field.extraction_hints, *w.verbs, *w.purchases, *w.other_roles]
    if all(word.isascii() for word in words):
        return field
    amount_words = w.model_copy(update={k: [as_checked(x) for x in getattr(w, k)] for k in ("verbs", "purchases", "other_roles")})
    return field.model_copy(update={"extraction_hints": [as_checked(h) for h in field.extraction_hints], "amount_words": amount_words})


def _named(field: ProfileFieldDefinition, value: str, text: str) -> bool:
    """A listed value (its label, or a synonym of it) named in the folded draft, however its parts are joined or split."""
    return any(term_pattern(w).search(text) for w in [value, field.spoken(value), *field.value_synonyms.get(value, [])])


# A refusal of the promise itself: a negated verb of promising or being able, just before the hint ("I can't
# promise an upgrade", "we don't offer upgrades"); a bare "no" or "never" is not one ("no question you'll win").
_REFUSING = re.compile(
    r"\b(?:can't|can’t|cannot|can\s+not|won't|won’t|will\s+not|unable\s+to|not\s+able\s+to|don't|don’t|do\s+not|"
    r"doesn't|does\s+not|isn't|is\s+not|aren't|are\s+not|not\s+allowed\s+to|not\s+in\s+a\s+position\s+to)\s+"
    r"(?:promise|guarantee|offer|give|provide|commit\s+to|say|confirm|arrange|do|be|get|see)?\s*"
    r"(?:you\s+)?(?:a|an|any|the|that|this|your|for\s+an?)?\s*$", re.I)


def _only_refused(field: ProfileFieldDefinition, draft: str) -> bool:
    """Every hint of a boolean field appears in a refusal ("I can't promise an upgrade", "an upgrade isn't
    possible"), and nothing makes an exception to it."""
    if not field.extraction_hints or EXCEPTION.search(draft) or TURNAROUND.search(draft):
        return False
    found = False
    hints = [re.compile(rf"\b{re.escape(hint)}\b", re.I) for hint in field.extraction_hints]
    for sentence in _HINT_SENTENCE.split(draft):
        refused = _Refusals(sentence)
        for hint in hints:
            for m in hint.finditer(sentence):
                found = True
                if not refused.around(m.start(), m.end()):
                    return False
    return found


_HINT_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n")


class _Refusals:
    """Where one sentence refuses: before a point (`_REFUSING` ends there) or after it (`REFUSED_AFTER` follows it),
    each read without re-reading the whole sentence for every mention."""

    def __init__(self, sentence: str):
        self.sentence, self.before = sentence, Suffixes(sentence)
        self._last_after: int | None = None

    def around(self, start: int, end: int) -> bool:
        """`_REFUSING.search(sentence[:start]) or REFUSED_AFTER.search(sentence[end:])`."""
        return self.before.ends_with(_REFUSING, start) or self._refused_after(end)

    def _refused_after(self, end: int) -> bool:
        # at `end` itself the pattern sees the start of the rest ("'s" right after a word is no "'s" there); further
        # on it sees what the whole sentence has, so a match there is one that starts at or before the last start
        if REFUSED_AFTER.match(self.sentence[end:]):
            return True
        return self._last_start() > end

    def _last_start(self) -> int:
        """The last position of the sentence where `REFUSED_AFTER` matches (-1: none)."""
        if self._last_after is None:
            found = list(REFUSED_AFTER.finditer(self.sentence))
            last = found[-1] if found else None
            # a match may also start inside the last one found (finditer skips what a match covers)
            inner = [p for p in range(last.start() + 1, last.end()) if REFUSED_AFTER.match(self.sentence, p)] if last else []
            self._last_after = max([last.start(), *inner]) if last else -1
        return self._last_after


def resolve(reading: DraftReading, asked: list[ProfileFieldDefinition], answered: dict[str, Any]) -> None:
    """The model's reading settles an uncertainty; it never lowers an amount read offline from a promise."""
    for f in asked:
        name, value = f.field_name, answered.get(f.field_name)
        reading.uncertain.pop(name, None)
        reading.unexplained.pop(name, None)
        if value is None:
            continue
        offline = reading.values.get(name)
        if f.field_type in NUMERIC and isinstance(offline, int | float) and isinstance(value, int | float):
            value = max(value, offline)
        reading.values[name] = value


def apply_reading(
    agent: AgentConfig, rules: list[Rule], variables: dict[str, Any], reading: DraftReading,
) -> tuple[list[Rule], list[Violation]]:
    """Merge the reading into `variables` (uncertain names removed) and split off the hard rules that
    read an uncertain name: each is "cannot verify" unless it holds whatever that value is (e.g.
    `refund_amount <= 50 or is_premium` for a Premium customer). Returns (rules to evaluate, violations)."""
    variables.update(reading.values)
    for name in reading.uncertain:
        variables.pop(name, None)
    keep, out = [], []
    for rule in rules:
        doubtful = _doubtful(rule, reading)
        if not doubtful:
            keep.append(rule)
        elif not _holds_whatever(agent, rule, doubtful, variables, reading):
            why = "; ".join(reading.uncertain[n] for n in doubtful)
            out.append(Violation(rule_id=rule.id, lane="deterministic", reason=f"cannot verify: {why}"))
    return keep, out


def _doubtful(rule: Rule, reading: DraftReading) -> list[str]:
    if rule.subjective or not rule.is_hard_constraint or not rule.enforcement_expression or not reading.uncertain:
        return []
    try:
        return sorted(expressions.names(rule.enforcement_expression) & reading.uncertain.keys())
    except ExpressionError:
        return []  # evaluated (and failed closed) by lane 1


def _holds_whatever(agent: AgentConfig, rule: Rule, names: list[str], variables: dict[str, Any], reading: DraftReading) -> bool:
    """True when the expression holds for every probe of the uncertain names: extremes, zero, and the
    amounts the draft states but could not attribute."""
    combos: list[dict[str, Any]] = [{}]
    for name in names:
        f = agent.field(name)
        probes = PROBES.get(f.field_type if f else "", ())
        probes = (*probes, *reading.unexplained.get(name, []), *([reading.values[name]] if name in reading.values else []))
        if not probes:
            return False
        combos = [{**c, name: p} for c in combos for p in probes]
    try:
        return all(expressions.evaluate(rule.enforcement_expression or "", {**variables, **c}) is True for c in combos)
    except ExpressionError:
        return False
