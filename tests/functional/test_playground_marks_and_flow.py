"""The playground API's data for the marks on an answer the customer got in place of another (a replaced draft, an
action a guard blocked) and for the live flow panel, on a real `focal serve` (HTTP, SQLite). The page that shows
them: tests/e2e/test_playground_browser.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from focal.auth import Principal
from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving
from test_playground_api import get
from test_reusable_steps import AGENT as GYM_AGENT
from test_reusable_steps import TOOLS as GYM_TOOLS

ROOT = Path(__file__).resolve().parents[2]
RETAIL, CARDS = ROOT / "examples" / "retail" / "agent.yaml", ROOT / "examples" / "cards" / "agent.yaml"
ADMIN_A, ADMIN_B, CHAT, BACKEND = "k-admin-a", "k-admin-b", "k-chat", "k-backend"
API = "/playground/api"


def say(url: str, agent: str, session: str, customer: str, *messages: str) -> None:
    for message in messages:
        status, doc, _ = get(url, f"/v1/agents/{agent}/sessions/{session}/turns", BACKEND,
                             {"message": message, "customer_id": customer})
        assert status == 200, doc


def traces(url: str, agent: str, session: str, key: str = ADMIN_A) -> list[dict]:
    status, doc, _ = get(url, f"{API}/agents/{agent}/sessions/{session}/turns", key)
    assert status == 200, doc
    return doc["items"]


def flow(url: str, agent: str, session: str, key: str = ADMIN_A) -> dict:
    status, doc, _ = get(url, f"{API}/agents/{agent}/sessions/{session}/flow", key)
    assert status == 200, doc
    return doc["items"]


def _serve(agents: list[Path], db: Path):
    keys = LocalApiKeyStore({ADMIN_A: "acme", ADMIN_B: "beta", CHAT: Principal("acme", frozenset({"chat"})),
                             BACKEND: Principal("acme", frozenset({"chat"}), may_assert_customer=True)})
    return serving(build_api([str(a) for a in agents], str(db), None, keys), settings=ServeSettings(rate_per_key=0))


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """The retail and card-support examples on one server."""
    with _serve([RETAIL, CARDS], tmp_path_factory.mktemp("marks") / "focal.db") as url:
        yield url


@pytest.fixture(scope="module")
def gym(tmp_path_factory):
    """A flow that calls another (the identity check) and keeps the member number as a `pii: true` field."""
    folder = tmp_path_factory.mktemp("gym")
    field = "  - {field_name: member_id, field_type: string,"
    agent = GYM_AGENT.replace(field, field + " pii: true,")
    assert agent != GYM_AGENT
    (folder / "agent.yaml").write_text(agent)
    (folder / "tools.py").write_text(GYM_TOOLS)
    with _serve([folder / "agent.yaml"], folder / "focal.db") as url:
        yield url


# --- the marks --------------------------------------------------------------------------------------


def test_an_answer_that_replaced_a_blocked_draft_names_the_rule_and_why(shop):
    say(shop, "retail", "pg-cap", "c-100", "I want a refund for my order", "It's A1002")
    first, second = traces(shop, "retail", "pg-cap")
    assert first["replaced"] is None and first["blocked_actions"] == []
    replaced = second["replaced"]
    assert replaced["rule_ids"] == ["refund_cap"] and replaced["how"] == "regenerated" and replaced["regenerations"] == 1
    [rule] = replaced["rules"]
    assert rule["lanes"] == ["deterministic"] and "refund_amount" in rule["reasons"][0]
    assert "regenerated" in replaced["said"] and "$75" not in second["response"]


def test_a_fallback_answer_is_marked_as_a_fallback(shop):
    """A subjective hard rule with no judge model: the draft cannot be cleared, the customer gets the fallback."""
    say(shop, "cards", "pg-fraud", "c-verified", "There is fraud on my account")
    [turn] = traces(shop, "cards", "pg-fraud")
    assert turn["execution_path"] == "fallback"
    assert turn["replaced"]["how"] == "fallback" and "fraud_no_blame" in turn["replaced"]["rule_ids"]


def test_an_action_a_guard_blocked_names_the_tool_and_the_guard(shop):
    say(shop, "cards", "pg-guard", "c-unverified", "I left my wallet on the bus", "5678", "yes")
    *_, last = traces(shop, "cards", "pg-guard")
    [blocked] = last["blocked_actions"]
    assert blocked["tool_id"] == "order_replacement_card" and "verified_only" in blocked["rule_ids"]
    assert any(r.startswith("verified_only: ") for r in blocked["reasons"])


# --- the flow panel ---------------------------------------------------------------------------------


def test_the_flow_shows_the_scenario_steps_the_current_step_and_the_slots(shop):
    say(shop, "retail", "pg-flow", "c-100", "I want a refund for my order")
    now = flow(shop, "retail", "pg-flow")
    assert now["started"] and now["scenario"]["id"] == "refund" and now["step"] == "collect_order"
    steps = now["scenario"]["steps"]
    assert [s["id"] for s in steps] == ["collect_order", "confirm_refund", "refund_done", "not_eligible",
                                          "refund_order_not_found"]
    assert [s["id"] for s in steps if s["current"]] == ["collect_order"] and steps[0]["slots"] == ["order_id"]
    assert now["slots"] == {} and now["stack"] == []

    say(shop, "retail", "pg-flow", "c-100", "A1001")
    now = flow(shop, "retail", "pg-flow")
    assert [s["id"] for s in now["scenario"]["steps"] if s["current"]] == ["confirm_refund"]
    assert now["flow_state"] == "confirming" and now["slots"] == {"order_id": "A1001"}
    assert now["variables"]["order_total"] == 30.0 and now["turn_count"] == 2
    after = traces(shop, "retail", "pg-flow")[-1]["flow"]["after"]  # the same as the last turn's trace
    assert (now["slots"], now["variables"]) == (after["slots"], after["variables"])
    assert "history" not in json.dumps(now)  # what was said is the transcript's, not the flow's


def test_the_flow_stack_shows_a_flow_waiting_for_the_flow_its_step_called(gym):
    say(gym, "gym", "pg-call", "c-1", "I want to freeze my membership")
    now = flow(gym, "gym", "pg-call")
    assert now["scenario"]["id"] == "verify_member" and now["step"] == "ask_id"
    [waiting] = now["stack"]
    assert (waiting["scenario_id"], waiting["step_id"], waiting["called"]) == ("freeze", "verify", True)
    assert waiting["scenario_name"] == "Freeze a membership"


def test_the_flow_never_shows_more_than_the_trace_a_pii_slot_stays_masked(gym):
    say(gym, "gym", "pg-pii", "c-1", "I want to freeze my membership", "GM4821")
    now = flow(gym, "gym", "pg-pii")
    assert now["slots"]["member_id"] == "[redacted:member_id]", now["slots"]
    assert "GM4821" not in json.dumps(now)
    after = traces(gym, "gym", "pg-pii")[-1]["flow"]["after"]
    assert now["slots"] == after["slots"] and now["variables"] == after["variables"]


def test_the_flow_is_read_for_the_keys_tenant_with_the_read_scope_only(shop):
    say(shop, "retail", "pg-tenant", "c-100", "I want a refund for my order")
    assert flow(shop, "retail", "pg-tenant")["started"]
    other = flow(shop, "retail", "pg-tenant", key=ADMIN_B)  # another tenant: the session is not there
    assert other == {**other, "started": False, "scenario": None, "slots": {}, "variables": {}, "stack": []}
    status, doc, _ = get(shop, f"{API}/agents/retail/sessions/pg-tenant/flow", CHAT)  # a customer-facing key
    assert status == 403 and doc["error"]["code"] == "forbidden"
    assert get(shop, f"{API}/agents/retail/sessions/pg-tenant/flow", None)[0] == 401
    status, doc, _ = get(shop, f"{API}/agents/retail/sessions/a%20b/flow")
    assert status == 400 and "session_id" in doc["error"]["message"]
    assert get(shop, f"{API}/agents/nobody/sessions/pg-tenant/flow")[1]["error"]["code"] == "agent_not_found"
    assert not flow(shop, "retail", "pg-never-used")["started"]
