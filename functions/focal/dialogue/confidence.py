"""Graded confidence: confidence = Σ weight × factor, each factor in [0, 1] with a reason.

The weights come from `approval.weights` (30/30/20/20 by default; `focal validate` checks they
name these four factors and add up to 1). Each factor measures something that differs from one
gate decision to the next, so that at the default weights and bands (≥ 0.85 execute, ≥ 0.55
approval, below clarify) the customer's say-so, where the values came from and how risky the call
is all move the decision:

- goal_understanding (`focal.dialogue.understanding`) — how sure the reading of *this* message is,
  by its source and margin: the least certain of the commands that changed the conversation. A lexicon act ("yes" answering the
  confirmation on screen) 1.0; an act recognised by exemplar similarity 0.5 at
  `sensor.act_similarity`, rising to 1.0 at `ACT_SPAN` above it; a slot value read by its type 1.0,
  free text taken whole 0.9; a started flow its intent score, cut when the runner-up intent is
  close (margin < 2 × `navigation.ambiguity_margin`); a model reading the model's own confidence, and
  a yes only the model heard (no offline reading of it) at most `MODEL_ONLY_YES_CERTAINTY`.
  With no command: the best matched soft rule's score, else the intent score.
- tool_availability — argument provenance: for each required argument of the tools to run, who
  vouches for its value. Typed by the customer in this conversation (`STATED`) or returned by a
  tool in this conversation (`TOOL`) 0.8; read from a message but not in the customer's words (a
  model's reading) 0.5; only in the profile (an earlier session) 0.4; a field default 0.2;
  missing 0; a tool the agent does not define 0. A value shown in the confirmation the customer
  says yes to now (the agent's last `SHOWN_WINDOW` messages) is confirmed: base + (1 − base) × the
  certainty of that yes (1.0 for a clear one).
- context_richness — how much of what the action depends on is established: the step's required
  slots, the placeholders of the confirmation being answered (or of the matched soft rules'
  templates) and the tools' required arguments. Each counts 1 when known from this conversation,
  0.6 from the profile, 0.3 from a default, 0 when missing; at a confirmation step the confirmed
  values count only as far as the customer's answer is understood (× its certainty; × ½ more for
  a value the last message did not show), because the action rests on that agreement.
- tool_determinism — how risky the call is: per tool, 1.0 deterministic and read-only or
  idempotent, 0.9 a deterministic side effect that must not repeat, 0.7 non-deterministic
  read-only, 0.5 a non-deterministic side effect; times the headroom left under the tightest hard
  constraint in scope that guards it (`guarded_tool_ids`): an `x <= limit` comparison of the
  expression on an amount (a money or percentage field or argument), read with `focal.expressions`
  on the call's values (+ the built-in `customer_confirmed`), leaves (limit − x) / limit (counts
  and time windows just hold: 1), `or` the loosest branch, `and` the tightest,
  and the factor is scaled by min(1, headroom / `GUARD_ROOM`) — a $48 payout under a $50 cap is
  riskier than a $5 one when the $48 is not read exactly (a model's reading, the profile, a default);
  when every amount the guard compares is exact (in the customer's own words, or a tool's output) the
  guard's comparison is the decision and nearness adds no doubt ("up to €40 without approval" holds
  for €35). A guard that fails or cannot be read leaves 0. The mean over the tools. No tools: 1.

At a confirmation step with values the customer typed, the score is therefore about 0.42 + 0.56 ×
the certainty of their yes: a clear yes executes, a yes read with some doubt asks for approval,
one barely understood asks the customer again; a clear yes close to a guard's limit asks for
approval too when the amount is not read exactly. Any error while assessing is the gate's to catch:
it rejects, it never executes.

With `features.graded_confidence` off the turn keeps the route's confidence, and the gate sees
the phase-1 reading instead: 1.0 when every needed tool exists with its arguments, else 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from focal import expressions
from focal.dialogue.flow import customer_confirmed
from focal.dialogue.understanding import clip, confirmation_certainty, goal_understanding
from focal.enforcement.guards import guard_variables, guards_for
from focal.enforcement.headroom import guard_headroom
from focal.enforcement.scope import turn_scope
from focal.errors import ExpressionError
from focal.flow_reading import current_step
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import TurnState
from focal.tool_inputs import read_variables, tool_arguments
from focal.variables import as_said, known_variables, placeholders

FACTORS = ("goal_understanding", "tool_availability", "context_richness", "tool_determinism")
# Argument provenance (tool_availability) and how established a dependency is (context_richness).
STATED, TOOL, READ, PROFILE, DEFAULT = 0.8, 0.8, 0.5, 0.4, 0.2
ESTABLISHED = {"session": 1.0, "profile": 0.6, "default": 0.3, "missing": 0.0}
# Tool risk (tool_determinism) and the share of a guard's limit within which a call counts as close.
SAFE, ONCE, NONDETERMINISTIC, NONDETERMINISTIC_EFFECT = 1.0, 0.9, 0.7, 0.5
GUARD_ROOM = 0.5
SIZED = ("money", "percentage")  # field types that measure the size of an action (a guard's limit on them)
SHOWN_WINDOW = 3  # the agent's messages a confirmation answer may refer back to
EXACT = ("stated", "tool output")  # provenances that read an amount exactly (a guard on it decides at its limit)


@dataclass
class Assessment:
    score: float
    factors: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)


# --- where each value comes from ----------------------------------------------------------------


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return str(value)


def _customer_texts(state: TurnState) -> list[str]:
    said = [h.text for h in (state.session.history if state.session else []) if h.role == "user"]
    return [*said, state.request.message]


def last_shown(state: TurnState, messages: int = SHOWN_WINDOW) -> str:
    """What the customer is answering: the agent's last few messages (the confirmation prompt, and any
    notice about it since: an approval request, a question asked again). A changed value always
    brings a new prompt, so a current value found here was shown with the question."""
    history = state.session.history if state.session else []
    said = [h.text for h in history if h.role == "assistant"]
    return "\n".join(said[-messages:])


def written_in(value: Any, texts: list[str]) -> bool:
    """The value written out as a whole word (or phrase) in one of the texts, case-insensitively: as English writes
    it, or as the texts said to the customer write it in the turn's language ("12 345,50", "3 mars 2027")."""
    whole = [str(int(value))] if isinstance(value, float) and value.is_integer() else []  # "35 Euro" for 35.0
    for needle in dict.fromkeys(n.strip() for n in (_text(value), as_said(value), *whole)):
        pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)", re.IGNORECASE) if needle else None
        if pattern is not None and any(pattern.search(t) for t in texts):
            return True
    return False


def value_written(agent: AgentConfig, name: str, value: Any, texts: list[str]) -> bool:
    """`written_in` for a variable's value in any of the words it goes by: itself, how the customer is told it
    (an enum value's label) and the synonyms the agent gives for it."""
    f = agent.field(name)
    if f is None or not isinstance(value, str):
        return written_in(value, texts)
    return any(written_in(form, texts) for form in dict.fromkeys([value, f.spoken(value), *f.value_synonyms.get(value, [])]))


def origin(agent: AgentConfig, state: TurnState, name: str) -> str:
    """session (this conversation) | profile (an earlier one) | default | missing."""
    s, p = state.session, state.profile
    if s is not None and (s.slots.get(name) not in (None, "") or s.variables.get(name) not in (None, "")):
        return "session"
    if p is not None and p.fields.get(name) not in (None, ""):
        return "profile"
    f = agent.field(name)
    return "default" if f is not None and f.default not in (None, "") else "missing"


def _tool_outputs(agent: AgentConfig) -> set[str]:
    return {var for t in agent.tools for var in t.output.values()}


def provenance(agent: AgentConfig, state: TurnState, name: str, value: Any) -> tuple[float, str]:
    """Who vouches for an argument's value, before any confirmation."""
    where = origin(agent, state, name)
    if where == "missing" or value in (None, ""):
        return 0.0, "missing"
    if where == "profile":
        return PROFILE, "profile"
    if where == "default":
        return DEFAULT, "default"
    assert state.session is not None
    if name not in state.session.slots and name in _tool_outputs(agent):
        return TOOL, "tool output"
    return (STATED, "stated") if value_written(agent, name, value, _customer_texts(state)) else \
        (READ, "read, not in the customer's words")


def tool_availability(state: TurnState, agent: AgentConfig, tool_ids: list[str],
                      certainty: float | None = None) -> tuple[float, str]:
    """Argument provenance (the factor keeps its name): the mean over the tools' required arguments."""
    if not tool_ids:
        return 1.0, "no tools needed"
    known = known_variables(agent, state.session, state.profile)
    shown = last_shown(state) if certainty is not None else ""
    scores: list[float] = []
    parts: list[str] = []
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        if tool is None:
            scores.append(0.0)
            parts.append(f"{tool_id}: unknown tool")
            continue
        for name in read_variables(tool, required_only=True):
            score, label = provenance(agent, state, name, known.get(name))
            if certainty is not None and score > 0 and value_written(agent, name, known.get(name), [shown]):
                score, label = score + (1 - score) * certainty, f"{label}, confirmed ({certainty:.2f})"
            scores.append(score)
            parts.append(f"{name}: {label}")
    if not scores:
        return 1.0, "no required arguments"
    return sum(scores) / len(scores), "; ".join(dict.fromkeys(parts))


def arguments_present(agent: AgentConfig, tool_ids: list[str], known: dict) -> tuple[float, str]:
    """Phase 1: every needed tool exists and has its required arguments."""
    missing: list[str] = []
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        if tool is None:
            missing.append(f"{tool_id} (unknown tool)")
            continue
        missing += [f"{tool_id}.{n}" for n in read_variables(tool, required_only=True) if known.get(n) is None]
    return (0.0, "missing " + ", ".join(missing)) if missing else (1.0, "all tools and arguments present")


# --- context richness ---------------------------------------------------------------------------


def needed_variables(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> tuple[list[str], set[str]]:
    """What the action depends on, and which of those the customer is asked to confirm."""
    names: list[str] = []
    confirmed: set[str] = set()
    step = current_step(agent, state.session) if state.session else None
    if step is not None:
        names += [s.name for s in step.slots if s.required]
        if step.requires_confirmation and step.confirmation_prompt:
            confirmed = placeholders(step.confirmation_prompt)
            names += sorted(confirmed)
    else:
        for m in state.route.matched_rules:
            rule = agent.rule(m.rule_id)
            if rule and not rule.is_hard_constraint and rule.response_template:
                names += sorted(placeholders(rule.response_template))
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        names += read_variables(tool, required_only=True) if tool else []
    return list(dict.fromkeys(names)), confirmed


def context_richness(state: TurnState, agent: AgentConfig, tool_ids: list[str],
                     certainty: float | None = None) -> tuple[float, str]:
    needed, confirmed = needed_variables(state, agent, tool_ids)
    if not needed:
        return 1.0, "nothing needed"
    known = known_variables(agent, state.session, state.profile)
    shown = last_shown(state)
    total, weak = 0.0, []
    for name in needed:
        where = origin(agent, state, name)
        value = ESTABLISHED[where]
        if certainty is not None and name in confirmed and value > 0:
            value *= certainty if value_written(agent, name, known.get(name), [shown]) else certainty / 2
        total += value
        if where != "session":
            weak.append(f"{name} {where}")
    why = ("; ".join(weak) + "; " if weak else "all from this conversation; ")
    if certainty is not None and confirmed:
        why += f"the confirmation understood at {certainty:.2f}"
    return total / len(needed), why.rstrip("; ")


# --- tool determinism and guard headroom --------------------------------------------------------


def _base_risk(tool: Tool) -> tuple[float, str]:
    safe = not tool.side_effect or tool.idempotent
    if tool.deterministic:
        return (SAFE, "deterministic") if safe else (ONCE, "deterministic side effect, not idempotent")
    return (NONDETERMINISTIC, "non-deterministic") if safe else (NONDETERMINISTIC_EFFECT, "non-deterministic side effect")


def _read_exactly(agent: AgentConfig, state: TurnState, expression: str, variables: dict[str, Any],
                  sized: set[str]) -> bool:
    """Every amount the guard compares is exact: written in the customer's own words in this conversation or returned
    by a tool. Then the guard's comparison is the decision ("up to €40 without approval" holds for €35), and nearness
    to its limit is no doubt; an amount a model read, or one from the profile or a default, keeps it (fail closed)."""
    names = expressions.names(expression) & sized
    return bool(names) and all(provenance(agent, state, n, variables.get(n))[1] in EXACT for n in names)


def tool_determinism(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> tuple[float, str]:
    tools = [t for t in (agent.tool(i) for i in tool_ids) if t is not None]
    if not tools:
        return 1.0, "no tools"
    known = known_variables(agent, state.session, state.profile)
    confirmed = customer_confirmed(agent, state.session) if state.session else False
    scope = turn_scope(agent, state)
    measures = {f.field_name for f in agent.profile_field_definitions if f.field_type in SIZED}
    scores, parts = [], []
    for tool in tools:
        score, why = _base_risk(tool)
        args = tool_arguments(tool, known)
        scale = 1.0  # the tightest guard decides
        for rule in guards_for(agent, tool.id, scope):
            try:
                sized = measures | {n for n, spec in tool.input.items() if spec.type in SIZED}
                variables = guard_variables(known, args, confirmed)
                room = guard_headroom(rule.enforcement_expression or "", variables, sized)
                note = f"{room:.2f} of {rule.id}'s limit left"
                if 0 < room < GUARD_ROOM and _read_exactly(agent, state, rule.enforcement_expression or "", variables, sized):
                    room, note = GUARD_ROOM, f"{note}, its amounts read exactly: the guard decides"
            except ExpressionError as exc:
                room, note = 0.0, f"{rule.id} unreadable ({exc})"
            scale = min(scale, room / GUARD_ROOM)
            why += f"; {note}"
        scores.append(score * scale)
        parts.append(f"{tool.id}: {why}")
    return sum(scores) / len(scores), "; ".join(parts)


# --- the assessment -----------------------------------------------------------------------------


def assess(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    """The graded confidence of running `tool_ids` (possibly none) on this turn."""
    certainty = confirmation_certainty(state, agent)
    values = {
        "goal_understanding": goal_understanding(state, agent),
        "tool_availability": tool_availability(state, agent, tool_ids, certainty),
        "context_richness": context_richness(state, agent, tool_ids, certainty),
        "tool_determinism": tool_determinism(state, agent, tool_ids),
    }
    weights = agent.approval.weights
    factors = {name: round(clip(v), 4) for name, (v, _) in values.items()}
    score = sum(weights.get(name, 0.0) * factors[name] for name in FACTORS)
    return Assessment(score=round(clip(score), 4), factors=factors,
                      reasons={name: why for name, (_, why) in values.items()}, tools=list(tool_ids))


def plain(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    """The phase-1 confidence for the gate when graded confidence is off: 1 or 0."""
    known = known_variables(agent, state.session, state.profile)
    availability, why = arguments_present(agent, tool_ids, known)
    return Assessment(score=availability, factors={}, reasons={"plain": why}, tools=list(tool_ids))
