"""The first turn of a session, run through the local pipeline: the shape most single-message tests share."""

from __future__ import annotations

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner


def first_turn(deps, agent_id: str, session: str, message: str, customer_id: str = "c-1"):
    return LocalRunner(deps).turn(TurnRequest(tenant_id="local", agent_id=agent_id, session_id=session,
                                              customer_id=customer_id, turn_id=f"{session}-0", message=message))
