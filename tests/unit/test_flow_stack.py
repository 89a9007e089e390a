"""The flow stack: interruption keeps the interrupted flow's values, completion offers it back,
a yes resumes it exactly where it was, a no forgets it; corrections rewind to the owning step."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.dialogue.flow import drop_offer, end_flow, progress, resume_flow, rewind_to_slot, start_flow
from focal.models.session import Session

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


@pytest.fixture(scope="module")
def agent():
    return load_agent(AGENT)


def in_refund_confirmation(agent) -> Session:
    session = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c")
    start_flow(agent, session, agent.scenario("refund"))
    session.slots["order_id"] = "A1007"
    session.variables.update(order_found=True, order_item="Notebook set", order_total=25.0, refund_eligible=True)
    session.actions_done_step = "collect_order"
    progress(agent, session, {**session.variables, **session.slots})
    assert (session.active_step_id, session.flow_state) == ("confirm_refund", "confirming")
    return session


def test_a_digression_pushes_the_flow_with_its_own_values(agent):
    session = in_refund_confirmation(agent)
    start_flow(agent, session, agent.scenario("order_status"))
    frame = session.flow_stack[-1]
    assert (frame.scenario_id, frame.step_id, frame.state) == ("refund", "confirm_refund", "confirming")
    assert frame.slots == {"order_id": "A1007"} and frame.variables["order_item"] == "Notebook set"
    assert "order_id" not in session.slots  # the new flow asks for its own order number


def test_finishing_offers_the_interrupted_flow_and_yes_restores_it(agent):
    session = in_refund_confirmation(agent)
    start_flow(agent, session, agent.scenario("order_status"))
    session.slots["order_id"] = "A1004"
    session.variables.update(order_item="Phone case", order_total=18.5)
    offered = end_flow(session, finished=True)
    assert offered is not None and offered.scenario_id == "refund"
    assert session.offer is not None and (session.offer.kind, session.offer.scenario_id) == ("resume", "refund")
    assert session.active_scenario_id is None and session.flow_state == "completed"
    assert session.flow_stack, "offered, not resumed unasked"

    resume_flow(session)
    assert (session.active_scenario_id, session.active_step_id) == ("refund", "confirm_refund")
    assert session.slots["order_id"] == "A1007" and session.variables["order_item"] == "Notebook set"
    assert session.offer is None and session.flow_stack == []


def test_declining_the_offer_forgets_the_interrupted_flow(agent):
    session = in_refund_confirmation(agent)
    start_flow(agent, session, agent.scenario("order_status"))
    end_flow(session, finished=True)
    drop_offer(session)
    assert session.offer is None and session.flow_stack == [] and session.active_scenario_id is None


def test_cancelling_without_a_stack_offers_nothing(agent):
    session = in_refund_confirmation(agent)
    assert end_flow(session) is None
    assert session.offer is None and session.flow_state == "idle"


def test_a_corrected_value_rewinds_to_the_step_that_owns_it(agent):
    session = in_refund_confirmation(agent)
    session.clarification_counts["refund.confirm_refund"] = 2
    step = rewind_to_slot(agent, session, "order_id")
    assert step is not None and step.id == "collect_order"
    assert session.active_step_id == "collect_order"
    assert session.actions_done_step is None and session.confirmed_step is None
    assert session.clarification_counts == {}  # a new step visit starts a new count
    assert rewind_to_slot(agent, session, "order_id") is None  # already there
    assert rewind_to_slot(agent, session, "no_such_slot") is None
