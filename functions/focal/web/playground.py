"""What the playground's read endpoints answer, free of HTTP: every read is for one tenant only.

`focal serve` (cli/serve_http.py) authenticates the key, checks its scope and calls these with the
key's tenant. The turn records carry the full `TurnState` (`TurnRecord.state`); `turn_trace` turns
one into the panels of the page: stage timeline, intent, commands, flow before/after, retrieved vs
matched rules with reasons, tool calls with guard verdicts, enforcement by lane with the blocked
drafts, model calls and cost, and what the customer did not get (web/replaced.py: the replaced answer, the
blocked actions). `session_flow` is where a session stands now (web/flow_view.py). `suite_yaml` writes a
session as a conversation-test case (web/saved_test.py) with the expectations observed in it.

Session and approval lists read the local SQLite file; other stores answer 501.
"""

from __future__ import annotations

import time
from typing import Any

from focal.api_bodies import ApiError
from focal.ids import ID
from focal.models.turn import TurnRecord
from focal.web.flow_view import flow_view
from focal.web.replaced import blocked_actions, replacement
from focal.web.saved_test import suite_text
from focal.web.static_files import STATIC_DIR, STATIC_FILES  # noqa: F401 - served by focal serve (cli/serve_http.py)

MAX_SESSIONS = 200
MAX_APPROVALS = 100


def _stages() -> list[str]:
    from focal.turn.definition import STAGES

    return [getattr(s, "name", str(s)) for s in STAGES]


def _db(store: Any) -> Any:
    db = getattr(store, "_db", None)
    if db is None or not hasattr(db, "connection"):
        raise ApiError(501, "not_available", "listing needs the local SQLite stores (focal serve --agent)")
    return db


def _check_ids(**ids: str) -> None:
    for name, value in ids.items():
        if not ID.matches(value):
            raise ApiError(400, "bad_request", f"{name}: must be {ID.rule}")


def _agent(deps: Any, tenant_id: str, agent_id: str) -> Any:
    from focal.errors import AgentNotFound

    try:
        return deps.configs.get_agent(tenant_id, agent_id)
    except AgentNotFound:
        raise ApiError(404, "agent_not_found", f"no agent {agent_id} for this tenant") from None


# --- lists ---------------------------------------------------------------------------------------


def list_agents(deps: Any) -> list[dict[str, Any]]:
    """The agents this server reads from files (every local tenant sees the operator's files, as
    `FileConfigStore.get_agent` does); other config stores cannot be listed."""
    configs, agents = deps.configs, []
    for path in getattr(configs, "_paths", []):
        try:
            agent = configs._load(path)
        except Exception:  # noqa: BLE001, S112 - an invalid file is left out; `focal validate` explains it
            continue
        agents.append({"id": agent.id, "name": agent.name, "greeting": agent.greeting,
                       "scenarios": [s.id for s in agent.scenarios], "tools": [t.id for t in agent.tools]})
    return agents


def list_sessions(deps: Any, tenant_id: str, agent_id: str) -> list[dict[str, Any]]:
    _check_ids(agent_id=agent_id)
    db = _db(deps.turns)
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT session_id, COUNT(*), MIN(created_at), MAX(created_at), "
            "json_extract(MAX(doc), '$.customer_id') FROM turns WHERE tenant_id=? AND agent_id=? "
            "AND (expires_at IS NULL OR expires_at >= ?) GROUP BY session_id ORDER BY MAX(created_at) DESC LIMIT ?",
            (tenant_id, agent_id, int(time.time()), MAX_SESSIONS),
        ).fetchall()
    return [{"session_id": s, "turns": n, "started_at": first, "last_at": last, "customer_id": customer}
            for s, n, first, last, customer in rows]


def pending_approvals(deps: Any, tenant_id: str) -> list[dict[str, Any]]:
    """Awaiting requests of this tenant, before their deadline, with the exact arguments they would run."""
    from focal.models.approval import ApprovalRequest

    db = _db(deps.approvals)
    now = time.time()
    with db.connection() as conn:
        rows = conn.execute(
            "SELECT doc FROM approvals WHERE tenant_id=? AND state='awaiting_approval' AND expires_at >= ? "
            "ORDER BY expires_at LIMIT ?", (tenant_id, now, MAX_APPROVALS)).fetchall()
    out = []
    for (doc,) in rows:
        req = ApprovalRequest.model_validate_json(doc)
        out.append(req.model_dump(include={"approval_id", "agent_id", "session_id", "customer_id", "turn_id",
                                           "tool_id", "tools", "arguments", "guard_verdicts", "confidence",
                                           "confidence_factors", "created_at", "expires_at", "state"}))
    return out


def session_turns(deps: Any, tenant_id: str, agent_id: str, session_id: str) -> list[dict[str, Any]]:
    _check_ids(agent_id=agent_id, session_id=session_id)
    agent = _agent(deps, tenant_id, agent_id)
    records = deps.turns.list_for_session(tenant_id, agent_id, session_id)
    traces, before = [], None
    for record in records:
        traces.append(turn_trace(record, before, agent.retrieval.rule_match_threshold))
        before = record.state.get("session")
    return traces


# --- one turn's trace ----------------------------------------------------------------------------


def _flow(session: dict[str, Any] | None) -> dict[str, Any]:
    s = session or {}
    return {"scenario": s.get("active_scenario_id"), "step": s.get("active_step_id"),
            "flow_state": s.get("flow_state", "idle"),
            "stack": [{k: f.get(k) for k in ("scenario_id", "step_id", "state", "slots")} for f in s.get("flow_stack", [])],
            "slots": s.get("slots", {}), "variables": s.get("variables", {}), "offer": s.get("offer")}


def _rules(state: dict[str, Any], threshold: float) -> list[dict[str, Any]]:
    route = state.get("route") or {}
    notes = (route.get("decision") or {}).get("notes", [])
    matched = {m["rule_id"]: m for m in route.get("matched_rules", [])}
    rows: dict[str, dict[str, Any]] = {}
    for cand in (state.get("retrieve") or {}).get("candidates", []):
        rid = cand["rule_id"]
        note = next((n[len(f"rule {rid} "):] for n in notes if n.startswith(f"rule {rid} ")), None)
        if rid in matched:
            reason = matched[rid].get("reason", "similarity")
        elif note:
            reason = note
        elif cand["score"] < threshold:
            reason = f"below threshold {threshold:g}"
        else:
            reason = "not matched"
        rows[rid] = {"rule_id": rid, "scope": cand.get("scope"), "score": cand["score"], "retrieved": True,
                     "retrieval": cand.get("reason", "similarity"), "matched": rid in matched, "reason": reason}
    for rid, m in matched.items():  # pulled in without being retrieved (entailed)
        rows.setdefault(rid, {"rule_id": rid, "scope": m.get("scope"), "score": m.get("score"), "retrieved": False,
                              "retrieval": "-", "matched": True, "reason": m.get("reason", "")})
    return sorted(rows.values(), key=lambda r: (not r["matched"], -(r["score"] or 0)))


def _enforcement(state: dict[str, Any]) -> dict[str, Any]:
    report = (state.get("enforce") or {}).get("report") or {}
    lanes: dict[str, list[dict[str, Any]]] = {}
    for v in report.get("violations", []):
        lanes.setdefault(v["lane"], []).append(v)
    drafts = [{"index": i, "text": d.get("text", ""), "source": d.get("source"), "violations": d.get("violations", []),
               "blocked": bool(d.get("violations")), "shown": d.get("text") == state.get("response")}
              for i, d in enumerate((state.get("generate") or {}).get("drafts", []))]
    return {"checked": report.get("checked", []), "lanes": lanes, "unverified": report.get("unverified", []),
            "not_judged": report.get("not_judged", {}), "not_regenerated": report.get("not_regenerated"),
            "regenerations": report.get("regenerations", 0), "fallback_used": report.get("fallback_used", False),
            "checks": report.get("checks", []), "timings": report.get("timings", {}), "drafts": drafts}


def turn_trace(record: TurnRecord, session_before: dict[str, Any] | None, threshold: float) -> dict[str, Any]:
    state, result = record.state, record.result
    sensor, tools = state.get("sensor") or {}, state.get("tools") or {}
    ctx = sensor.get("context") or {}
    decision = (state.get("route") or {}).get("decision") or {}
    timings = state.get("timings_ms") or result.timings_ms
    calls = state.get("model_calls", [])
    return {
        "turn_id": record.turn_id, "turn_number": record.turn_number, "created_at": record.created_at,
        "customer_id": record.customer_id, "message": (state.get("request") or {}).get("message", ""),
        "response": result.response, "execution_path": result.execution_path, "success": result.success,
        "error": result.error, "confidence": result.confidence,
        "confidence_factors": tools.get("confidence_factors", {}), "confidence_reasons": tools.get("confidence_reasons", {}),
        "timeline": [{"stage": s, "ms": timings.get(s), "ran": s in timings} for s in _stages()],
        "total_ms": round(sum(timings.values()), 3),
        "intent": {"label": ctx.get("detected_intent"), "confidence": ctx.get("intent_confidence", 0.0),
                   "source": ctx.get("source"), "fast_path": ctx.get("fast_path", False),
                   "fast_path_reason": ctx.get("fast_path_reason", ""), "scores": ctx.get("intent_scores", []),
                   "entities": ctx.get("extracted_entities", {}), "ambiguous": ctx.get("is_ambiguous", False),
                   "notes": ctx.get("notes", [])},
        "prevalidation": [c for c in sensor.get("prevalidation", []) if not c.get("passed", True)],
        "commands": sensor.get("commands", []),
        "decision": {k: decision.get(k) for k in ("action", "scenario_id", "step_id", "executed", "blocked_by",
                                                  "switched", "asked_slot", "notes")},
        "flow": {"before": _flow(session_before), "after": _flow(state.get("session"))},
        "rules": _rules(state, threshold),
        "tools": tools.get("tool_calls", []),
        "enforcement": _enforcement(state),
        "model_calls": calls, "cost_usd": round(sum(c.get("cost_usd", 0.0) for c in calls), 6),
        "approval": tools.get("approval"), "approval_state": result.approval_state,
        "scenario": result.scenario, "matched_rules": result.matched_rules,
        "replaced": replacement(result), "blocked_actions": blocked_actions(result),
    }


# --- save as test and the live flow ------------------------------------------------------------


def suite_yaml(deps: Any, tenant_id: str, agent_id: str, session_id: str) -> dict[str, Any]:
    """The session as a one-conversation `tests.yaml` (text), with what each turn did as its expectations."""
    _check_ids(agent_id=agent_id, session_id=session_id)
    agent = _agent(deps, tenant_id, agent_id)
    records = deps.turns.list_for_session(tenant_id, agent_id, session_id)
    if not records:
        raise ApiError(404, "not_found", f"no turns recorded in session {session_id}")
    return {"yaml": suite_text(agent, records, session_id), "file_name": f"{agent_id}-{session_id}.tests.yaml",
            "turns": len(records)}


def session_flow(deps: Any, tenant_id: str, agent_id: str, session_id: str) -> dict[str, Any]:
    """Where the session stands now (web/flow_view.py): its flow, stack, slots and variables, masked."""
    _check_ids(agent_id=agent_id, session_id=session_id)
    agent = _agent(deps, tenant_id, agent_id)
    return flow_view(agent, deps.sessions.get(tenant_id, agent_id, session_id), session_id)
