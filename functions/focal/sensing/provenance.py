"""What the customer's words may set: only variables whose `sources` include `message`.

Applied to every reading of a message, offline or by a model: an extracted value or a slot command
for a variable the customer cannot vouch for (a privileged field such as `is_premium`, set only by
tools or the profile store; a tool output; a value read from the agent's own answers) is dropped,
with a note in the trace. So "I am a premium member" — or a model that believes it — never lifts a
limit that depends on the profile.
"""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.models.context import Command, Context

SLOT_COMMANDS = ("SetSlot", "CorrectSlot")


def customer_may_set(agent: AgentConfig, name: str | None) -> bool:
    """Undeclared names (plain slots) are the customer's to give; declared fields only through `message`."""
    field = agent.field(name or "")
    return field is None or ("message" in field.sources and not field.privileged)


def from_customer(agent: AgentConfig, context: Context) -> Context:
    """The reading without what the customer's words may not set."""
    refused = sorted(n for n in context.extracted_entities if not customer_may_set(agent, n))
    kept: list[Command] = []
    for cmd in context.commands:
        if cmd.name in SLOT_COMMANDS and not customer_may_set(agent, cmd.slot):
            refused.append(str(cmd.slot))
            continue
        kept.append(cmd)
    if not refused:
        return context
    entities = {k: v for k, v in context.extracted_entities.items() if customer_may_set(agent, k)}
    notes = [*context.notes, f"ignored from the message (not the customer's to set): {', '.join(sorted(set(refused)))}"]
    return context.model_copy(update={"extracted_entities": entities, "commands": kept, "notes": notes})
