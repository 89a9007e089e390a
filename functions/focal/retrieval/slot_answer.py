"""The answer a message gives to the question the agent asked, as a competitor of the soft rules.

When the flow waits for a slot (or a rule asked the customer for a variable) and the message gives it a
value, the message is first of all that answer: a bare "a vaccination" resembles a price rule's "How much
is a vaccination?", yet the customer asked nothing. The value, in the words the customer is told it, is
embedded like a rule's key; a soft rule matches the message only if the answer does not explain it
clearly better (focal.dialogue.rule_filter), as a rule must not be beaten by another flow's entry example.
A message that says more than the value ("a vaccination — how much is it?") resembles the rule more than
the bare value does, and the rule matches. Hard constraints never compete with an answer.

A free-text slot (a string without a pattern) takes the whole message as its value: it explains every
message completely, so it is no competitor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from focal.models.agent import AgentConfig
from focal.models.context import Command
from focal.models.session import Session
from focal.ports import Embedder
from focal.retrieval.calibration import centred
from focal.sensing.slot_reading import awaited_slot
from focal.variables import PENDING, render

FILLS = ("SetSlot", "CorrectSlot")


@dataclass(frozen=True)
class SlotAnswer:
    slot: str  # the variable asked for
    words: str  # its value as the customer is told it


def _asked(agent: AgentConfig, session: Session) -> str | None:
    """The variable the agent's last question asked for: the slot the flow waits for, else a rule's pending one."""
    slot = awaited_slot(agent, session)
    if slot is not None:
        return slot.name
    pending = session.variables.get(PENDING)
    return str(pending.get("variable")) if isinstance(pending, dict) and pending.get("variable") else None


def slot_answer(agent: AgentConfig, session: Session, commands: list[Command], entities: dict[str, Any]) -> SlotAnswer | None:
    """What this message answers to the question asked last turn, or None (nothing asked, no value given,
    or a free-text slot)."""
    name = _asked(agent, session)
    f = agent.field(name) if name else None
    if name is None or f is None or (f.field_type == "string" and not f.pattern):
        return None
    value = next((c.value for c in commands if c.name in FILLS and c.slot == name), entities.get(name))
    if value in (None, "", []) or isinstance(value, dict | list):
        return None
    words = render("{v}", {"v": f.spoken(value)}).strip()
    return SlotAnswer(name, words) if words else None


def answer_score(embedder: Embedder, answer: SlotAnswer, query: np.ndarray) -> float:
    """The calibrated similarity of the message (its centred vector) to the answer's words, on the rules' scale."""
    vector = centred(embedder, np.asarray(embedder.embed([answer.words]), dtype=np.float32))[0]
    return round(float(vector @ query), 4)
