"""What a stuck customer is asked at a step: never for a slot already filled, never the step's
instructions (written for the model), and a confirmation without its own question names the action
in the tool's words, never the step id (newcomer findings)."""

from __future__ import annotations

from focal.dialogue.clarify import confirmation_question, step_clarification
from focal.models.agent import AgentConfig, Scenario, Slot, Step, Tool
from focal.models.session import Session
from focal.models.turn import TurnRequest, TurnState

DETAILS = Step(id="details", instructions="Collect the date, the cause and the cost.", slots=[
    Slot(name="incident_date", type="date", prompt="On what date did it happen?"),
    Slot(name="claimed_amount", type="money", prompt="Roughly how much will the repairs cost?"),
])
NOT_FOUND = Step(id="not_found", instructions="Say the policy was not found and ask again.")
CONFIRM = Step(id="confirm_change", instructions="Ask to confirm.", requires_confirmation=True, action=["change_cover"])


def state_at(step: Step, slots: dict | None = None) -> TurnState:
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c", active_scenario_id="claims",
                      active_step_id=step.id, slots=slots or {})
    return TurnState(request=TurnRequest(tenant_id="t", agent_id="a", session_id="s", turn_id="t1", message="hmm"),
                     session=session)


def test_the_first_unfilled_slot_is_asked_not_one_already_filled():
    assert step_clarification(DETAILS, state_at(DETAILS)) == "On what date did it happen?"
    filled = state_at(DETAILS, {"incident_date": "2025-03-03"})
    assert step_clarification(DETAILS, filled) == "Roughly how much will the repairs cost?"


def test_a_step_without_slots_or_hint_never_shows_its_instructions():
    text = step_clarification(NOT_FOUND, state_at(NOT_FOUND))
    assert "Say the policy" not in text and text


def test_a_confirmation_without_a_prompt_names_the_tool_not_the_step():
    agent = AgentConfig(id="a", name="A", tools=[Tool(id="change_cover", kind="python", entrypoint="tools.py:change",
                                                      description="Change the cover tier of a policy.", side_effect=True)],
                        scenarios=[Scenario(id="claims", name="Claims", entry_examples=["change my cover"],
                                            steps=[CONFIRM], entry_step_id="confirm_change")])
    assert confirmation_question(agent, CONFIRM) == "Do you want me to change the cover tier of a policy?"
    assert "confirm_change" not in confirmation_question(agent, Step(id="confirm_change", requires_confirmation=True))
