"""What a person taking over the conversation is handed: a short summary the agent's own handoff tool
receives as the built-in variable `conversation_summary` (map it to the tool's parameter with `arguments`)."""

from __future__ import annotations

from focal.models.agent import HANDOFF_SUMMARY, AgentConfig
from focal.models.session import Session

SUMMARY = HANDOFF_SUMMARY  # set only when the conversation is handed to a person
LAST_MESSAGES = 3
MESSAGE_CHARS = 200


def conversation_summary(agent: AgentConfig, session: Session, message: str, reason: str | None = None) -> str:
    """Where the conversation stands, offline: why a flow handed it over (`reason`, when one did), the flow and step,
    the values collected, the customer's last words (`message`, this turn's, included)."""
    parts: list[str] = [reason] if reason else []
    scenario = agent.scenario(session.active_scenario_id)
    if scenario is not None:
        parts.append(f"In flow '{scenario.name}' at step '{session.active_step_id}'.")
    collected = {**session.slots, **{k: v for k, v in session.variables.items() if k != SUMMARY}}
    if collected:
        parts.append("Known: " + "; ".join(f"{k} = {v}" for k, v in sorted(collected.items()) if v not in (None, "")) + ".")
    said = [h.text[:MESSAGE_CHARS] for h in session.history if h.role == "user"][-(LAST_MESSAGES - 1):]
    said.append(message[:MESSAGE_CHARS])
    if said:
        parts.append("The customer said: " + " / ".join(f'"{t}"' for t in said))
    return " ".join(parts) or "The customer asked for a person at the start of the conversation."
