"""An offer stands only when the answer the customer got asks something: when a fallback text (or a model's
direct answer) replaces the question that made the offer, a later "yes" must take nothing up. An interrupted
flow's resume offer stays (taking it up runs nothing by itself, and dropping it would forget the flow)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from focal.models.agent import AgentConfig
from focal.models.session import FlowFrame, Offer, Session
from focal.models.turn import TurnRequest, TurnState
from focal.stages import persist

AGENT = AgentConfig(id="a", name="a")


def _persist_counts(offer: Offer, response: str) -> Session:
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c", offer=offer,
                      flow_stack=[FlowFrame(scenario_id="x", step_id="y")] if offer.kind == "resume" else [])
    state = TurnState(request=TurnRequest(tenant_id="t", agent_id="a", session_id="s", turn_id="1", message="hm"),
                      session=session, response=response)
    deps = SimpleNamespace(clock=lambda: 0.0, session_ttl_s=60, configs=SimpleNamespace(get_agent=lambda t, a: AGENT))
    persist._count(state, deps, session, persist.carry_plan(state, deps))  # type: ignore[arg-type]
    return session


@pytest.mark.parametrize("kind", ["start", "choose"])
def test_an_answer_that_asks_nothing_withdraws_the_offer(kind):
    offer = Offer(kind=kind, scenario_id="x", options=["x"] if kind == "choose" else [])
    assert _persist_counts(offer, "Our sales team will confirm the price by email today.").offer is None
    assert _persist_counts(offer, "Did you want to switch plans?").offer == offer


def test_a_resume_offer_stays_whatever_the_answer_says():
    offer = Offer(kind="resume", scenario_id="x")
    session = _persist_counts(offer, "Done: your plan is changed.")
    assert session.offer == offer and session.flow_stack
