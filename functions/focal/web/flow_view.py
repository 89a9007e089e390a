"""The playground's live flow panel: where one session stands now, read for one tenant only.

The active scenario with its steps (from the agent's definition; the current one marked), the flow stack (flows
interrupted or waiting for a flow their step called), the offer on the table, and the slots and variables.

The session comes from the session store, which holds it masked (`focal.pii`: `pii: true` fields, cards and
contacts in text); what is answered is masked again with the agent's fields, so this panel never shows more
than the trace of the same session (`turn_trace`) does. History, counters and claims are not answered.
"""

from __future__ import annotations

from typing import Any

from focal.models.agent import AgentConfig
from focal.models.session import Session
from focal.pii import mask_record


def _steps(agent: AgentConfig, scenario_id: str | None, step_id: str | None, done: list[str]) -> dict[str, Any] | None:
    if scenario_id is None:
        return None
    scenario = next((s for s in agent.scenarios if s.id == scenario_id), None)
    if scenario is None:  # the agent changed since: the session names a scenario it no longer has
        return {"id": scenario_id, "name": None, "known": False, "steps": []}
    return {"id": scenario.id, "name": scenario.name, "known": True, "steps": [
        {"id": st.id, "current": st.id == step_id, "entry": st.id == scenario.entry_step_id, "effects_done": st.id in done,
         "slots": [sl.name for sl in st.slots], "action": list(st.action), "call": st.call,
         "confirms": st.requires_confirmation} for st in scenario.steps]}


def _scenario_name(agent: AgentConfig, scenario_id: str) -> str | None:
    return next((s.name for s in agent.scenarios if s.id == scenario_id), None)


def flow_view(agent: AgentConfig, session: Session | None, session_id: str) -> dict[str, Any]:
    """Where the session stands; a session not started yet (or expired) stands nowhere: `started` false."""
    if session is None:
        return {"session_id": session_id, "started": False, "scenario": None, "step": None, "flow_state": "idle",
                "stack": [], "offer": None, "slots": {}, "variables": {}, "pending_approval_id": None, "turn_count": 0}
    stack = [{"scenario_id": f.scenario_id, "scenario_name": _scenario_name(agent, f.scenario_id), "step_id": f.step_id,
              "state": f.state, "called": f.call, "stale": f.stale, "slots": dict(f.slots), "variables": dict(f.variables)}
             for f in reversed(session.flow_stack)]  # the flow resumed next first
    view = {"session_id": session_id, "started": True,
            "scenario": _steps(agent, session.active_scenario_id, session.active_step_id, session.effects_done),
            "step": session.active_step_id, "flow_state": session.flow_state, "stack": stack,
            "offer": session.offer.model_dump() if session.offer else None,
            "slots": dict(session.slots), "variables": dict(session.variables),
            "pending_approval_id": session.pending_approval_id, "turn_count": session.turn_count}
    masked: dict[str, Any] = mask_record(view, agent)
    return masked
