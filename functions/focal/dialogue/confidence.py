"""Graded confidence (seed 004): confidence = Σ weight × factor, each factor in [0, 1].

The weights come from `approval.weights` (30/30/20/20 by default; `focal validate` checks they
name these four factors and add up to 1). The factors, for the tools a turn is about to run:

- goal_understanding — how sure the reading of *this* message is, in its context: the least
  certain of the commands that changed the conversation (the action rests on each of them):
  a dialogue act from the lexicon ("yes") 1.0, from the exemplars its similarity (≥
  `sensor.act_similarity`); a slot value read by its type 1.0, free text taken whole as a string
  slot 0.9; a started flow its intent score; a command read by the model the model's own
  `intent_confidence`. With no command: the best matched soft rule's score, else the intent score.
- tool_availability — the mean over the needed tools of: 0 for a tool the agent does not define,
  else the share of its required arguments that are known. No tools needed: 1.
- context_richness — the share of the variables the action depends on that are known: the
  active step's required slots, the needed tools' required arguments, and the placeholders of
  what the customer was asked to confirm (or of the matched soft rules' templates). None: 1.
- tool_determinism — the share of deterministic tools among the needed ones. No tools: 1.

With `features.graded_confidence` off the turn keeps the route's confidence, and the gate sees
seed 004's phase-1 reading instead: 1.0 when every needed tool exists with its arguments, else 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from focal.dialogue.flow import current_step
from focal.dialogue.variables import known_variables, placeholders
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState

FACTORS = ("goal_understanding", "tool_availability", "context_richness", "tool_determinism")
FREE_TEXT_SLOT = 0.9  # a string slot that took the whole message: probably, not certainly, the value
NO_READING = 0.9  # an executed act with no recorded reading (e.g. a command added by code)
ACT_OF = {
    "AffirmConfirmation": "affirm", "DenyConfirmation": "deny", "CancelFlow": "cancel",
    "HumanHandoff": "handoff", "ChitChat": "chitchat",
}
_ACT_NOTE = re.compile(r"^act (\w+) \((lexicon|similarity ([0-9.]+))\)$")


@dataclass
class Assessment:
    score: float
    factors: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    tools: list[str] = field(default_factory=list)


def _clip(x: float) -> float:
    return max(0.0, min(1.0, float(x)))


def _act_readings(notes: list[str]) -> dict[str, float]:
    out: dict[str, float] = {}
    for note in notes:
        m = _ACT_NOTE.match(note)
        if m:
            out[m.group(1)] = 1.0 if m.group(2) == "lexicon" else float(m.group(3))
    return out


def goal_understanding(state: TurnState, agent: AgentConfig) -> tuple[float, str]:
    ctx = state.context
    if ctx is None:
        return 0.0, "no reading of the message"
    executed = set(state.decision.executed)
    if executed and ctx.source == "model":
        return _clip(ctx.intent_confidence), f"read by the model ({ctx.intent_confidence:.2f})"
    readings = _act_readings(ctx.notes)
    parts: list[tuple[float, str]] = []
    for cmd in state.commands:
        if cmd.name not in executed:
            continue
        if cmd.name in ACT_OF:
            value = readings.get(ACT_OF[cmd.name], NO_READING)
            how = "lexicon" if value == 1.0 else f"similarity {value:.2f}"
            parts.append((value, f"{cmd.name} ({how})"))
        elif cmd.name in ("SetSlot", "CorrectSlot"):
            scenario = agent.scenario(cmd.flow or (state.session.active_scenario_id if state.session else None))
            slot = next((s for st in (scenario.steps if scenario else []) for s in st.slots if s.name == cmd.slot), None)
            fld = agent.field(cmd.slot or "")
            free = slot is not None and slot.type == "string" and not (fld and fld.pattern)
            parts.append((FREE_TEXT_SLOT if free else 1.0, f"{cmd.name} {cmd.slot} ({'free text' if free else 'typed'})"))
        elif cmd.name == "StartFlow":
            score = float(cmd.value) if isinstance(cmd.value, int | float) else ctx.intent_confidence
            parts.append((score, f"StartFlow {cmd.flow} ({score:.2f})"))
        elif cmd.name == "Clarify":
            parts.append((0.0, "Clarify"))
    if parts:
        value, why = min(parts, key=lambda p: p[0])
        return _clip(value), why
    soft = [m for m in state.matched_rules if (r := agent.rule(m.rule_id)) and not r.is_hard_constraint]
    if soft:
        best = max(soft, key=lambda m: m.score)
        return _clip(best.score), f"rule {best.rule_id} ({best.score:.2f})"
    return _clip(ctx.intent_confidence), f"intent score ({ctx.intent_confidence:.2f})"


def _required_args(agent: AgentConfig, tool_ids: list[str]) -> list[str]:
    names: list[str] = []
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        names += [n for n, spec in (tool.input.items() if tool else []) if spec.required]
    return names


def tool_availability(agent: AgentConfig, tool_ids: list[str], known: dict) -> tuple[float, str]:
    if not tool_ids:
        return 1.0, "no tools needed"
    shares, missing = [], []
    for tool_id in tool_ids:
        tool = agent.tool(tool_id)
        if tool is None:
            shares.append(0.0)
            missing.append(f"{tool_id} (unknown tool)")
            continue
        required = [n for n, spec in tool.input.items() if spec.required]
        have = [n for n in required if known.get(n) not in (None, "")]
        shares.append(len(have) / len(required) if required else 1.0)
        missing += [f"{tool_id}.{n}" for n in required if n not in have]
    return sum(shares) / len(shares), ("missing " + ", ".join(missing)) if missing else "all tools and arguments present"


def needed_variables(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> list[str]:
    names: list[str] = []
    step = current_step(agent, state.session) if state.session else None
    if step is not None:
        names += [s.name for s in step.slots if s.required]
        if step.requires_confirmation and step.confirmation_prompt:
            names += sorted(placeholders(step.confirmation_prompt))
    else:
        for m in state.matched_rules:
            rule = agent.rule(m.rule_id)
            if rule and not rule.is_hard_constraint and rule.response_template:
                names += sorted(placeholders(rule.response_template))
    names += _required_args(agent, tool_ids)
    return list(dict.fromkeys(names))


def context_richness(state: TurnState, agent: AgentConfig, tool_ids: list[str], known: dict) -> tuple[float, str]:
    needed = needed_variables(state, agent, tool_ids)
    if not needed:
        return 1.0, "nothing needed"
    missing = [n for n in needed if known.get(n) in (None, "")]
    return (len(needed) - len(missing)) / len(needed), ("missing " + ", ".join(missing)) if missing else "all known"


def tool_determinism(agent: AgentConfig, tool_ids: list[str]) -> tuple[float, str]:
    tools = [t for t in (agent.tool(i) for i in tool_ids) if t is not None]
    if not tools:
        return 1.0, "no tools"
    det = [t.id for t in tools if t.deterministic]
    return len(det) / len(tools), f"{len(det)} of {len(tools)} deterministic"


def assess(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    """The graded confidence of running `tool_ids` (possibly none) on this turn."""
    known = known_variables(agent, state.session, state.profile)
    values = {
        "goal_understanding": goal_understanding(state, agent),
        "tool_availability": tool_availability(agent, tool_ids, known),
        "context_richness": context_richness(state, agent, tool_ids, known),
        "tool_determinism": tool_determinism(agent, tool_ids),
    }
    weights = agent.approval.weights
    factors = {name: round(_clip(v), 4) for name, (v, _) in values.items()}
    score = sum(weights.get(name, 0.0) * factors[name] for name in FACTORS)
    return Assessment(score=round(_clip(score), 4), factors=factors,
                      reasons={name: why for name, (_, why) in values.items()}, tools=list(tool_ids))


def plain(state: TurnState, agent: AgentConfig, tool_ids: list[str]) -> Assessment:
    """Seed 004's phase-1 confidence for the gate when graded confidence is off: 1 or 0."""
    known = known_variables(agent, state.session, state.profile)
    availability, why = tool_availability(agent, tool_ids, known)
    return Assessment(score=1.0 if availability == 1.0 else 0.0, factors={}, reasons={"plain": why}, tools=list(tool_ids))
