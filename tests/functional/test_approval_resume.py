"""An approved action resumes through the stage list and runs exactly what was approved.

The request stores the exact arguments and the guard verdicts; approving re-checks the guards on
those arguments (with the customer's current facts) and runs exactly them, once; a correction since
the request that changed those arguments supersedes it. Default weights and bands throughout (see test_approvals.py).
"""

from __future__ import annotations

from focal.models.session import CustomerProfile
from focal.pipeline.approval_answer import answer
from test_approvals import SIMILARITY_YES, TENANT, Harness


def _pending(h: Harness) -> str:
    h.to_confirmation()
    result = h.turn(SIMILARITY_YES)
    assert result.approval_state == "awaiting_approval", result.response
    return result.approval["id"]


def test_the_request_stores_the_exact_arguments_and_guard_verdicts(tmp_path):
    h = Harness(tmp_path)
    approval_id = _pending(h)
    stored = h.deps.approvals.get(TENANT, approval_id, h.clock.now)
    assert stored.arguments == {"order_id": "A1001", "order_total": 30.0}
    assert {v["rule_id"]: v["passed"] for v in stored.guard_verdicts} == {"refund_guard": True, "confirm_before_acting": True}
    assert stored.customer_confirmed is True
    assert h.tools.runs.get("issue_refund", 0) == 0


def test_a_correction_meanwhile_supersedes_the_request_and_nothing_runs(tmp_path):
    """Red-team finding: "sorry, I meant A1002" after the request brought the flow back to the same step
    with other arguments, and approving the old request still refunded A1001 (and said A1002)."""
    h = Harness(tmp_path)
    approval_id = _pending(h)
    session = h.session()
    session.slots["order_id"] = "A1002"
    session.variables.update({"order_id": "A1002", "order_total": 75.0, "order_item": "Rain jacket"})
    session.turn_count += 1
    h.deps.sessions.save(session, expected_version=session.version)

    result = answer(h.deps, TENANT, approval_id, approve=True)
    assert result.ok is False and result.state == "expired" and "moved on" in result.message
    assert result.tool_calls == [] and h.tools.runs.get("issue_refund", 0) == 0


def test_a_no_or_a_correction_and_back_withdraws_the_request_and_approving_runs_nothing(tmp_path):
    """Red team: after "no" (or a correction to another order and back), the chat asked "Shall I go ahead?"
    again, and approving the old request still refunded before the customer said yes."""
    for detour in (["no"], ["sorry, I meant order A1002", "I'd like a refund for order A1001"]):
        h = Harness(tmp_path / str(len(detour)))
        approval_id = _pending(h)
        for message in detour:
            h.turn(message)
        assert h.session().pending_approval_id is None
        result = answer(h.deps, TENANT, approval_id, approve=True)
        assert result.ok is False and result.state == "expired" and result.tool_calls == []
        assert h.tools.runs.get("issue_refund", 0) == 0


def test_a_turn_meanwhile_that_changes_no_argument_still_runs_exactly_the_stored_calls(tmp_path):
    h = Harness(tmp_path)
    approval_id = _pending(h)
    session = h.session()
    session.turn_count += 1  # "thanks, I'll wait": the conversation went on, the action did not change
    session.remember("user", "thanks, I'll wait")
    h.deps.sessions.save(session, expected_version=session.version)

    result = answer(h.deps, TENANT, approval_id, approve=True)
    assert result.ok and result.state == "approved", result.message
    [call] = result.tool_calls
    assert call["tool_id"] == "issue_refund" and call["status"] == "ok"
    assert call["arguments"] == {"order_id": "A1001", "order_total": 30.0}
    assert {v["rule_id"] for v in call["guards"]} == {"refund_guard", "confirm_before_acting"}
    assert all(v["passed"] for v in call["guards"])
    assert "RF-A1001" in (result.response or "")
    assert h.tools.runs["issue_refund"] == 1
    assert answer(h.deps, TENANT, approval_id, approve=True).ok is False  # once
    assert h.tools.runs["issue_refund"] == 1


def test_approving_re_checks_the_guard_and_a_failing_one_runs_nothing(tmp_path):
    """The customer's facts changed meanwhile: the stored $49.99 was allowed for a Premium member, who
    is no longer one when the request is approved."""
    h = Harness(tmp_path)
    h.deps.profiles.save(CustomerProfile(tenant_id=TENANT, agent_id="retail", customer_id="c-100",
                                         fields={"is_premium": True}))
    h.to_confirmation(order="A1002")
    result = h.turn(SIMILARITY_YES)
    assert result.approval_state == "awaiting_approval", result.response
    approval_id = result.approval["id"]
    stored = h.deps.approvals.get(TENANT, approval_id, h.clock.now)
    assert stored.arguments["order_total"] == 75.0 and all(v["passed"] for v in stored.guard_verdicts)

    h.deps.profiles.save(CustomerProfile(tenant_id=TENANT, agent_id="retail", customer_id="c-100",
                                         fields={"is_premium": False}))
    outcome = answer(h.deps, TENANT, approval_id, approve=True)
    [call] = outcome.tool_calls
    assert call["status"] == "blocked" and "refund_guard" in call["error"]
    assert h.tools.runs.get("issue_refund", 0) == 0
    assert "$75" not in (outcome.response or "") and "review" in (outcome.response or "")
    records = h.deps.turns.list_for_session(TENANT, "retail", "s1")
    assert records[-1].turn_id == f"{approval_id}-run" and records[-1].result.tool_calls[0]["status"] == "blocked"


def _premium_request_for_a1002(h: Harness) -> str:
    h.deps.profiles.save(CustomerProfile(tenant_id=TENANT, agent_id="retail", customer_id="c-100",
                                         fields={"is_premium": True}))
    h.to_confirmation(order="A1002")
    result = h.turn(SIMILARITY_YES)
    assert result.approval_state == "awaiting_approval", result.response
    h.deps.profiles.save(CustomerProfile(tenant_id=TENANT, agent_id="retail", customer_id="c-100",
                                         fields={"is_premium": False}))
    return result.approval["id"]


def test_a_block_at_the_step_withdraws_the_request_waiting_for_it(tmp_path):
    """The customer's facts changed while the $75 refund waited for approval, and a repeated yes met the guard: the
    step's confirmation is withdrawn, and so is the request for the action the guard now stops."""
    h = Harness(tmp_path)
    approval_id = _premium_request_for_a1002(h)
    blocked = h.turn("yes")
    assert [c["status"] for c in blocked.tool_calls] == ["blocked"] and "review" in blocked.response
    session = h.session()
    assert session.pending_approval_id is None and session.flow_state == "blocked"
    outcome = answer(h.deps, TENANT, approval_id, approve=True)
    assert outcome.ok is False and outcome.state == "expired" and outcome.tool_calls == []
    assert h.tools.runs.get("issue_refund", 0) == 0


def test_an_approved_request_the_guard_now_stops_leaves_no_question_open(tmp_path):
    """Approving re-checks the guard, which now fails: the flow waits at the step without its confirmation, so the
    customer's next yes answers nothing and runs nothing."""
    h = Harness(tmp_path)
    approval_id = _premium_request_for_a1002(h)
    outcome = answer(h.deps, TENANT, approval_id, approve=True)
    assert [c["status"] for c in outcome.tool_calls] == ["blocked"]
    assert h.session().flow_state == "blocked" and h.session().confirmed_step is None
    after = h.turn("yes")
    record = h.deps.turns.list_for_session(TENANT, "retail", "s1")[-1]
    assert "AffirmConfirmation" not in record.state["route"]["decision"]["executed"]
    assert "Shall I go ahead" not in after.response and "review" in after.response
    assert h.tools.runs.get("issue_refund", 0) == 0
