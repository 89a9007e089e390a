"""When the offline reading is sure enough that a model call would add nothing.

The model is skipped when the message is a recognised dialogue act, fills exactly what the flow is
waiting for, names a scenario with a score of at least `sensor.fast_path_confidence`, or — outside a
flow, with no offer pending, in the agent's language, without abusive wording and with nothing read
from it — is about none of the scenarios (best score below `sensor.no_intent_floor`: "your app
crashed again, I'm furious" in a subscription agent). Anything else the offline sensor could not place (a question, an ambiguous or weak
intent, a slot it could not fill) goes to the model when one is configured.
"""

from __future__ import annotations

from focal.models.agent import AgentConfig, SensorConfig
from focal.models.context import Context
from focal.models.session import Session
from focal.sensing import language, tone

ACT_COMMANDS = ("HumanHandoff", "CancelFlow", "AffirmConfirmation", "DenyConfirmation", "ChitChat")


def fast_path(agent: AgentConfig, context: Context, session: Session | None = None) -> tuple[bool, str]:
    """(skip the model?, why) — the reason goes into the trace either way."""
    cfg = agent.sensor
    if not cfg.fast_path:
        return False, "fast path disabled"
    if context.is_ambiguous:
        return False, f"ambiguous: {context.ambiguity_reason}"
    decided = _by_commands(cfg, context)
    if decided is not None:
        return decided
    if session is not None and _about_no_scenario(agent, context, session):
        return True, f"no scenario near: best intent scored {context.intent_confidence:.2f} < {cfg.no_intent_floor:.2f}"
    return False, "nothing the offline sensor could place"


def _by_commands(cfg: SensorConfig, context: Context) -> tuple[bool, str] | None:
    """What the offline commands decide: a weak intent needs the model; a dialogue act, a confident intent or a slot
    filled by its type does not. None: they decide nothing."""
    starts = [c for c in context.commands if c.name == "StartFlow"]
    weak = [c for c in starts if float(c.value or 0.0) < cfg.fast_path_confidence]
    if weak:
        return False, f"intent {weak[0].flow} scored {float(weak[0].value or 0):.2f} < {cfg.fast_path_confidence:.2f}"
    acts = [c.name for c in context.commands if c.name in ACT_COMMANDS]
    if acts:
        return True, f"dialogue act {acts[0]}"
    if starts:
        return True, f"intent {starts[0].flow} scored {float(starts[0].value or 0):.2f} ≥ {cfg.fast_path_confidence:.2f}"
    filled = sorted({c.slot or "" for c in context.commands if c.name in ("SetSlot", "CorrectSlot")})
    if filled:
        return True, f"slot {', '.join(filled)} filled by its type"
    return None


def _about_no_scenario(agent: AgentConfig, context: Context, session: Session) -> bool:
    """Nothing for a model to place: no flow or offer the message could answer, nothing read from it,
    written in the agent's language, and every scenario far from it."""
    if session.active_scenario_id or session.offer is not None or context.commands or context.extracted_entities:
        return False
    if language.noted(context.notes) is not None or tone.NOTE in context.notes:
        return False  # another language, or insults pulling the vector away from the request: a model may still place it
    return context.intent_confidence < agent.sensor.no_intent_floor
