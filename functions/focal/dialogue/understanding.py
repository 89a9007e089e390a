"""Goal understanding, the first factor of graded confidence (`focal.dialogue.confidence`): how sure the
reading of *this* message is, by its source and margin — the least certain of the commands that changed
the conversation (see the factor's description in `focal.dialogue.confidence`)."""

from __future__ import annotations

import re

from focal.flow_reading import current_step
from focal.models.agent import AgentConfig
from focal.models.context import Command, Context
from focal.models.turn import TurnState
from focal.sensing.acts import MODEL_ONLY_YES

FREE_TEXT_SLOT = 0.9  # a string slot that took the whole message: probably, not certainly, the value
NO_READING = 0.9  # an executed act with no recorded reading (e.g. a command added by code)
ACT_SPAN = 0.2  # an exemplar similarity this far above the act threshold is as sure as the lexicon
MODEL_ONLY_YES_CERTAINTY = 0.6  # a yes only the model heard: at most approval, never execution on its own
ACT_OF = {
    "AffirmConfirmation": "affirm", "DenyConfirmation": "deny", "CancelFlow": "cancel",
    "HumanHandoff": "handoff", "ChitChat": "chitchat",
}
_ACT_NOTE = re.compile(r"^act (\w+) \((lexicon|similarity ([0-9.]+))(?:: [^)]*)?\)$")  # "(lexicon: why)" too

Reading = tuple[str, float, str]  # (command, certainty, how it was read)


def clip(x: float) -> float:
    return max(0.0, min(1.0, float(x)))


def act_certainty(how: str, threshold: float) -> float:
    """A lexicon act is sure; an exemplar act by its margin over the threshold (0.5 at it, 1.0 at +ACT_SPAN)."""
    if how == "lexicon":
        return 1.0
    return clip(0.5 + 0.5 * (float(how) - threshold) / ACT_SPAN)


def _act_readings(notes: list[str], threshold: float) -> dict[str, tuple[float, str]]:
    out: dict[str, tuple[float, str]] = {}
    for note in notes:
        m = _ACT_NOTE.match(note)
        if m:
            how = "lexicon" if m.group(2) == "lexicon" else m.group(3)
            label = "lexicon" if how == "lexicon" else f"similarity {how} vs threshold {threshold:.2f}"
            out[m.group(1)] = (act_certainty(how, threshold), label)
    return out


def _intent_certainty(state: TurnState, agent: AgentConfig, flow: str | None, score: float) -> tuple[float, str]:
    """An intent score, cut when the runner-up scenario is close behind it."""
    ctx = state.sensor.context
    others = [s.score for s in (ctx.intent_scores if ctx else []) if s.scenario_id != flow]
    if not others:
        return clip(score), f"{score:.2f}"
    margin, wide = score - max(others), 2 * agent.navigation.ambiguity_margin
    if wide <= 0 or margin >= wide:
        return clip(score), f"{score:.2f}, margin {margin:.2f}"
    return clip(score * (0.5 + 0.5 * max(margin, 0.0) / wide)), f"{score:.2f}, runner-up {margin:.2f} behind"


def _model_readings(state: TurnState, ctx: Context) -> list[Reading]:
    """A model's reading: each executed command as sure as the model says, a yes only it heard at most
    MODEL_ONLY_YES_CERTAINTY."""
    c = clip(ctx.intent_confidence)
    read = [(name, c, f"read by the model ({c:.2f})") for name in state.route.decision.executed]
    if MODEL_ONLY_YES in ctx.notes:  # a yes no offline reading heard: never sure enough to run on its own
        read = [(n, min(v, MODEL_ONLY_YES_CERTAINTY), f"{how}; {MODEL_ONLY_YES}") if n == "AffirmConfirmation"
                else (n, v, how) for n, v, how in read]
    return read


def _slot_reading(state: TurnState, agent: AgentConfig, cmd: Command) -> Reading:
    """A slot value read by its type is sure; free text taken whole is probably the value."""
    scenario = agent.scenario(cmd.flow or (state.session.active_scenario_id if state.session else None))
    slot = next((s for st in (scenario.steps if scenario else []) for s in st.slots if s.name == cmd.slot), None)
    fld = agent.field(cmd.slot or "")
    free = slot is not None and slot.type == "string" and not (fld and fld.pattern)
    return f"{cmd.name} {cmd.slot}", FREE_TEXT_SLOT if free else 1.0, "free text" if free else "typed"


def _command_reading(state: TurnState, agent: AgentConfig, ctx: Context, cmd: Command,
                     acts: dict[str, tuple[float, str]]) -> Reading | None:
    """How sure the offline reading of one executed command is (None: a command that reads nothing)."""
    if cmd.name in ACT_OF:
        value, how = acts.get(ACT_OF[cmd.name], (NO_READING, "no recorded reading"))
        return cmd.name, value, how
    if cmd.name in ("SetSlot", "CorrectSlot"):
        return _slot_reading(state, agent, cmd)
    if cmd.name == "StartFlow":
        score = float(cmd.value) if isinstance(cmd.value, int | float) else ctx.intent_confidence
        value, how = _intent_certainty(state, agent, cmd.flow, score)
        return f"StartFlow {cmd.flow}", value, how
    if cmd.name == "Clarify":
        return "Clarify", 0.0, "the sensor asked"
    return None


def _readings(state: TurnState, agent: AgentConfig) -> list[Reading]:
    """(command, certainty, how) of each executed command of this turn."""
    ctx = state.sensor.context
    if ctx is None:
        return []
    executed = set(state.route.decision.executed)
    if executed and ctx.source == "model":
        return _model_readings(state, ctx)
    acts = _act_readings(ctx.notes, agent.sensor.act_similarity)
    read = [_command_reading(state, agent, ctx, cmd, acts) for cmd in state.sensor.commands if cmd.name in executed]
    return [r for r in read if r is not None]


def goal_understanding(state: TurnState, agent: AgentConfig) -> tuple[float, str]:
    ctx = state.sensor.context
    if ctx is None:
        return 0.0, "no reading of the message"
    parts = _readings(state, agent)
    if parts:
        name, value, how = min(parts, key=lambda p: p[1])
        return clip(value), f"{name} ({how})"
    soft = [m for m in state.route.matched_rules if (r := agent.rule(m.rule_id)) and not r.is_hard_constraint]
    if soft:
        best = max(soft, key=lambda m: m.score)
        return clip(best.score), f"rule {best.rule_id} ({best.score:.2f})"
    flow = agent.flow_of_intent(ctx.detected_intent) if ctx.detected_intent else None
    value, how = _intent_certainty(state, agent, flow, ctx.intent_confidence)
    return value, f"intent score ({how})"


def confirmation_certainty(state: TurnState, agent: AgentConfig) -> float | None:
    """How sure the customer's yes to the active step's confirmation is, when this turn gave one."""
    session = state.session
    step = current_step(agent, session) if session else None
    if session is None or step is None or not step.requires_confirmation or session.confirmed_step != step.id:
        return None
    affirm = [v for name, v, _ in _readings(state, agent) if name == "AffirmConfirmation"]
    return min(affirm) if affirm else None
