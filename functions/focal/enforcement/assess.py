"""What a draft commits to, decided on structure; the prose reader only raises "needs verification".

- The agent's own words (a guard's or a rule's template) are said as written: nothing here reads them.
- A draft the engine composed offline (the agent's steps and templates filled with known values) is read by
  the offline reader, whose values decide, as they always did: no model wrote it.
- A model's **structured** draft declares `commitments`; the hard rules are evaluated on them. The offline
  reader reads the rendered text as a tripwire: where it reads a value the draft did not declare, a larger
  one, another one, or cannot place an amount, the field needs verification.
- A model's **plain-text** draft declares nothing: a value the reader reads decides only when every rule
  holds for it (a $30 credit under a $50 cap); a value that would break a rule, or one it cannot place,
  needs verification — the reader never blocks on its own.

"Needs verification" is settled by one call independent of the generator (focal.enforcement.verify), batched
with the subjective rules; without it (no model, an error, a missing verdict) the rule is "cannot verify" and
blocks. Two default checks apply to every model draft, raised by tripwires (focal.enforcement.tripwires):
never ask for card numbers, CVV, passwords or PINs; never agree to what a rule forbids or what only a guarded
action may do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from focal.enforcement.amount_tokens import normalised, number, tokens
from focal.enforcement.draft_reading import NUMERIC as NUMERIC_TYPES
from focal.enforcement.facts import marked_figures
from focal.enforcement.reading import DraftReading, offline_reading
from focal.enforcement.secret_requests import asks_for_credentials, secret_asked_for
from focal.enforcement.tripwires import DEFAULT_RULES, demands_forbidden, holds_for
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.models.turn import Draft, Violation
from focal.sensing.extraction import coerce

SUSPECTED = "a rule would not hold"  # the offline reader read a value that breaks a rule: a model only confirms it


@dataclass
class Assessment:
    reading: DraftReading
    verify: list[ProfileFieldDefinition] = field(default_factory=list)  # fields the verification call reads
    defaults: list[Rule] = field(default_factory=list)  # default checks a tripwire raised (judged)
    broken: list[Violation] = field(default_factory=list)  # default checks the draft breaks whatever a judge says

    @property
    def needs_verification(self) -> bool:
        return bool(self.verify or self.defaults)


def _more(field_type: str, read: Any, declared: Any) -> bool:
    """The text states more than, or other than, what the draft declares."""
    if field_type in NUMERIC_TYPES and isinstance(read, int | float) and isinstance(declared, int | float):
        return float(read) > float(declared) + 1e-9
    if isinstance(read, list) and isinstance(declared, list):
        return not set(map(str, read)) <= set(map(str, declared))
    return bool(read != declared)


def _declared(agent: AgentConfig, commitments: dict[str, Any], names: set[str]) -> dict[str, Any]:
    out = {}
    for name, value in commitments.items():
        f = agent.field(name)
        if name in names and f is not None:
            coerced = coerce(f.field_type, value)
            if coerced not in (None, "", []):
                out[name] = coerced
    return out


def _needs(reading: DraftReading, verify: list[ProfileFieldDefinition], f: ProfileFieldDefinition, why: str,
           seen: Any = None) -> None:
    reading.values.pop(f.field_name, None)
    reading.uncertain[f.field_name] = why
    if isinstance(seen, int | float) and not isinstance(seen, bool):
        reading.unexplained.setdefault(f.field_name, []).append(float(seen))
    if f not in verify:
        verify.append(f)


def _amounts_of(agent: AgentConfig, kind: str, values: dict[str, Any]) -> set[float]:
    """The amounts of `kind` among `values` that the business knows (a response field's default is no amount)."""
    return {float(v) for n, v in values.items() if (g := agent.field(n)) is not None and g.field_type == kind
            and "response" not in g.sources and isinstance(v, int | float) and not isinstance(v, bool)}


def _candidates(agent: AgentConfig, f: ProfileFieldDefinition, draft: Draft, reading: DraftReading,
                known: dict[str, Any], declared: dict[str, Any]) -> set[float]:
    """Every amount a promise of `f` in this draft could be, in any language, less what a declaration explains.

    Where the reader placed its amount, that amount. Where it could not: every figure marked as `f`'s kind (a
    currency, a percent sign), the amounts it could not place, the values of placeholders of that kind; with none
    of these in a plain draft, a promise of a whole ("the full amount") — the known amounts of that kind."""
    read = reading.values.get(f.field_name)
    out: set[float] = {float(read)} if isinstance(read, int | float) and not isinstance(read, bool) else set()
    if f.field_name in reading.uncertain:
        marked = marked_figures(draft.text, f.field_type)
        unexplained = reading.unexplained.get(f.field_name, [])
        out |= set(marked) | set(unexplained)
        out |= {sum(marked), sum(unexplained)} - {0.0}  # several amounts the reader could not tell apart: their total
        out |= _amounts_of(agent, f.field_type, {n: v for n, v in draft.bindings.items() if n not in declared})
    out -= {float(v) for v in declared.values() if isinstance(v, int | float) and not isinstance(v, bool)}
    if not out and draft.commitments is None and f.field_name in reading.uncertain:
        out = _amounts_of(agent, f.field_type, known)
    return out


def _numeric(agent: AgentConfig, rules: list[Rule], f: ProfileFieldDefinition, draft: Draft, result: Assessment,
             declared: dict[str, Any], known: dict[str, Any]) -> None:
    """A money, percentage or number field of a model's draft: declared values decide; the reader raises what a
    rule would not allow and the draft did not declare."""
    name, reading = f.field_name, result.reading
    uncertain = reading.uncertain.get(name)
    if uncertain is None and name not in reading.values and name not in declared:
        return  # nothing said, nothing declared: the field keeps what the turn knows
    if uncertain is not None and name in reading.repeated:
        # "€60 each day for 5 days", "two payments of €60": the total is more than any amount written (or declared)
        _needs(reading, result.verify, f, uncertain)
        return
    candidates = _candidates(agent, f, draft, reading, known, declared)
    base = declared.get(name)
    bad = sorted(c for c in candidates if (base is None or c > float(base)) and not holds_for(rules, name, c, known))
    if bad:
        _needs(reading, result.verify, f, uncertain or f"the offline reader reads {bad[-1]!r} for {name}, more than the "
               f"draft declares; {SUSPECTED}", bad[-1])
        return
    if base is None and not candidates and draft.commitments is None:
        _needs(reading, result.verify, f, uncertain or f"the offline reader cannot place an amount for {name}")
        return
    reading.uncertain.pop(name, None)
    reading.unexplained.pop(name, None)
    if base is not None:
        reading.values[name] = base
    elif candidates:
        reading.values[name] = max(candidates)
    else:
        reading.values.pop(name, None)


def assess(agent: AgentConfig, rules: list[Rule], names: set[str], draft: Draft, known: dict[str, Any],
           message: str = "", acted: bool = False, requested: str | None = None, today: date | None = None) -> Assessment:
    """The reading the rule lanes evaluate, and what needs verification. `message`: the customer's; `acted`: a
    side-effecting tool ran this turn, or the turn is in a flow (what the draft reports is that flow's to guard);
    `requested`: the scenario the message was read as asking for, outside the turn's flow; `today`: the turn's date."""
    model = draft.source == "model"
    reading, ask = offline_reading(agent, draft.text, names, known=known, model_written=model, today=today)
    if not model and draft.original_text:
        original, asked = offline_reading(agent, draft.original_text, names, known=known, model_written=False, today=today)
        ask += [f for f in asked if f not in ask]
        _both(reading, original)
        _amounts_apart(agent, names, reading, draft.text, draft.original_text)
    result = Assessment(reading=reading)
    if not model:  # the agent's texts filled with known values: only what the reader cannot place is asked about
        result.verify = [f for f in ask if f.field_name in reading.uncertain]
        return result
    declared = _declared(agent, draft.commitments or {}, names)
    for name in sorted(names):
        f = agent.field(name)
        if f is not None and "response" in f.sources and not f.privileged:
            _response_field(agent, rules, f, draft, result, declared, known)
    if (question := secret_asked_for(draft.text)) is not None:
        result.broken.append(Violation(rule_id="no_credential_request", lane="deterministic",
                                       reason=f"the draft asks the customer for a secret: {question[:60]!r}"))
    decided = {v.rule_id for v in result.broken}  # no judge is asked what the draft's form already decided
    result.defaults.extend(r for r in _default_checks(agent, rules, names, draft, result.reading, declared, known,
                                                      message, acted, requested) if r.id not in decided)
    return result


def _both(reading: DraftReading, original: DraftReading) -> None:
    """What a translated own text commits to, read into `reading`: what it or its original (the same answer in the
    file's language, which the hints read) states; where the two state different values, neither is known."""
    for name, value in original.values.items():
        mine = reading.values.get(name, value)
        if isinstance(value, list) and isinstance(mine, list):
            reading.values[name] = mine + [v for v in value if v not in mine]
        elif isinstance(value, bool) and isinstance(mine, bool):
            reading.values[name] = mine or value
        elif mine == value:
            reading.values[name] = value
        else:
            reading.values.pop(name, None)
            reading.uncertain[name] = f"the answer and its original state different values for {name}: {mine}, {value}"
    for name, why in original.uncertain.items():
        reading.uncertain.setdefault(name, why)
        if name in original.unexplained:
            reading.unexplained.setdefault(name, original.unexplained[name])


def _amounts_apart(agent: AgentConfig, names: set[str], reading: DraftReading, text: str, original: str) -> None:
    """A money or percentage response field whose kind of amount the translated text states and its original does
    not ("500 €" where the original says €50: a translator's slip or a hostile file) is unknown: the customer reads
    the translation, which the hints of the file's language cannot place, so neither text's amount stands. A
    translation that leaves an amount out promises no other one: the original's reading holds."""
    for name in sorted(names):
        f = agent.field(name)
        if f is None or f.field_type not in _STATED or "response" not in f.sources:
            continue
        meant = _stated(f.field_type, original)
        if other := sorted(v for v in _stated(f.field_type, text) if v not in meant):
            reading.values.pop(name, None)
            reading.uncertain[name] = f"the answer states {other} for {name}, which its original does not"


_STATED = {"money": number, "percentage": lambda m: float(m.group("p"))}


def _stated(kind: str, text: str) -> set[float]:
    return {_STATED[kind](m) for m in tokens(kind, normalised(kind, text))}


def _response_field(agent: AgentConfig, rules: list[Rule], f: ProfileFieldDefinition, draft: Draft, result: Assessment,
                    declared: dict[str, Any], known: dict[str, Any]) -> None:
    """One response field of a model's draft: an amount by its candidates, else what the reader could not place
    needs verification, a declared value decides unless the text states more, and a value only the reader read
    stands when every rule holds for it."""
    name, reading = f.field_name, result.reading
    if f.field_type in NUMERIC_TYPES:
        _numeric(agent, rules, f, draft, result, declared, known)
    elif name in reading.uncertain:
        _needs(reading, result.verify, f, reading.uncertain[name])
    elif name in declared:
        _declared_value(reading, result.verify, f, declared[name])
    elif (read := reading.values.get(name)) is not None and not holds_for(rules, name, read, known):
        _needs(reading, result.verify, f, f"the offline reader reads {read!r} for {name}; {SUSPECTED}")


def _declared_value(reading: DraftReading, verify: list[ProfileFieldDefinition], f: ProfileFieldDefinition,
                    declared: Any) -> None:
    """The draft's declared value decides, unless the text states more or other than it (then: verify)."""
    name = f.field_name
    read = reading.values.get(name)
    if read is not None and read != f.default and _more(f.field_type, read, declared):
        _needs(reading, verify, f, f"the text reads {read!r} for {name} but the draft commits to {declared!r}", read)
    else:
        reading.values[name] = declared


def _default_checks(agent: AgentConfig, rules: list[Rule], names: set[str], draft: Draft, reading: DraftReading,
                    declared: dict[str, Any], known: dict[str, Any], message: str, acted: bool,
                    requested: str | None) -> list[Rule]:
    """The default checks a tripwire raises on a model's draft."""
    raised: list[Rule] = []
    if asks_for_credentials(draft.text):
        raised.append(DEFAULT_RULES["no_credential_request"])
    # a structured draft that declares what it gives is checked on that; one that declares nothing, or prose, may be a
    # bare "yes" to the demand
    if not acted and not declared and not _states_what_it_gives(agent, reading, names) and demands_forbidden(
            agent, rules, names, message, known, requested):
        raised.append(DEFAULT_RULES["no_unbacked_agreement"])
    return raised


def _states_what_it_gives(agent: AgentConfig, reading: DraftReading, names: set[str]) -> bool:
    """The draft states, and the reader placed, an amount for a capped field that the rules allow (what it raised is
    not in `values`): it answers a demand with a figure, not with a bare "yes"."""
    return any((f := agent.field(n)) is not None and f.field_type in ("money", "percentage") and n in reading.values
               and n not in reading.uncertain and reading.values[n] != f.default for n in names)


def settle(reading: DraftReading, verify: list[ProfileFieldDefinition], answered: dict[str, Any]) -> None:
    """The verification call's reading decides the fields it was asked (the offline reader only raised them). A field
    the answer leaves out stays uncertain — cannot verify; an explicit null means the draft states nothing for it."""
    for f in verify:
        name = f.field_name
        if name not in answered:
            continue
        reading.uncertain.pop(name, None)
        reading.unexplained.pop(name, None)
        value = coerce(f.field_type, answered[name])
        if value in (None, "", []):
            reading.values.pop(name, None)
        else:
            reading.values[name] = value
