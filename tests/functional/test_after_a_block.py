"""What a guard's refusal does to the conversation (newcomer finding, translating a retail policy).

The flow stayed at the confirmation after a guard blocked its action, so the next message was read as the answer
to a question the customer had just been told could not be done: a "yes" confirmed it again, an unclear message
was asked the blocked question again, and a new request was read as a changed value of the blocked flow. Several
guards' texts were run together. Now a block withdraws the confirmation (the flow waits at the step, `blocked`):
the next message is read fresh, any message that reaches the step meets its guards again without running, the
question is asked again only once they hold, and the customer hears one guard's text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: parcels
name: Parcel desk
description: Sends customers' parcels to a pickup point instead of their door, and says where a parcel is.
persona: You help customers with their parcels.
greeting: Hi, I can send a parcel to a pickup point or tell you where it is.
out_of_scope_message: I can send a parcel to a pickup point or tell you where it is.
profile_field_definitions:
  - field_name: parcel_id
    description: A parcel number, the letter P and three digits, like P101.
    field_type: id
    pattern: '\\bP\\d{3}\\b'
    sources: [message, tool]
  - {field_name: parcel_found, field_type: boolean, sources: [tool]}
  - {field_name: parcel_mine, field_type: boolean, sources: [tool]}
  - {field_name: parcel_status, field_type: enum, allowed_values: [waiting, in_transit, delivered], sources: [tool]}
  - {field_name: parcel_kg, field_type: number, sources: [tool]}
  - {field_name: pickup_ref, field_type: string, sources: [tool]}
  - {field_name: has_big_locker, field_type: boolean, sources: [profile], privileged: true, default: false}
tools:
  - id: find_parcel
    kind: python
    entrypoint: 'tools.py:find_parcel'
    description: Look a parcel up.
    input: {parcel_id: {type: id}}
    output: {found: parcel_found, mine: parcel_mine, status: parcel_status, kg: parcel_kg}
    side_effect: false
  - id: send_to_pickup
    kind: python
    entrypoint: 'tools.py:send_to_pickup'
    description: Send a parcel to a pickup point.
    input: {parcel_id: {type: id}}
    output: {reference: pickup_ref}
    side_effect: true
scenarios:
  - id: pickup
    name: Send a parcel to a pickup point
    entry_examples: [Please send my parcel to a pickup point, "I won't be home, can my parcel go to a pickup point",
                     Redirect my parcel to a pickup point]
    entry_step_id: ask_parcel
    steps:
      - id: ask_parcel
        slots: [{name: parcel_id, type: id, prompt: "Which parcel is it? Its number is a P and three digits."}]
        action: [find_parcel]
        transitions:
          - {target: not_found, when: not parcel_found}
          - {target: not_yours, when: not parcel_mine}
          - {target: confirm}
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "Shall I send parcel {parcel_id} to your pickup point?"
        action: [send_to_pickup]
        transitions: [{target: done}]
      - {id: done, response_template: "Parcel {parcel_id} will wait at your pickup point (reference {pickup_ref})."}
      - {id: not_found, response_template: "I couldn't find parcel {parcel_id}."}
      - {id: not_yours, response_template: "Parcel {parcel_id} isn't addressed to you, so I can't change where it goes."}
  - id: track
    name: Track a parcel
    entry_examples: [Where is my parcel, When will my parcel arrive, Track my parcel, Has my parcel been delivered]
    entry_step_id: ask
    steps:
      - id: ask
        slots: [{name: parcel_id, type: id, prompt: "Which parcel is it?"}]
        action: [find_parcel]
        transitions: [{target: report, when: parcel_mine}, {target: unknown}]
      - {id: report, response_template: "Parcel {parcel_id} is {parcel_status}."}
      - {id: unknown, response_template: "I couldn't find parcel {parcel_id} among yours."}
rules:
  - id: not_delivered
    condition_text: A parcel is about to be sent to a pickup point
    action_text: Never redirect a parcel that was already delivered.
    is_hard_constraint: true
    guarded_tool_ids: [send_to_pickup]
    enforcement_expression: parcel_status != 'delivered'
    fallback_text: Parcel {parcel_id} was already delivered, so it can't go to a pickup point.
  - id: light_enough
    condition_text: A parcel is about to be sent to a pickup point
    action_text: Only parcels of 20 kg or less fit a pickup point, unless the customer rents a big locker.
    is_hard_constraint: true
    guarded_tool_ids: [send_to_pickup]
    enforcement_expression: parcel_kg <= 20 or has_big_locker
    fallback_text: Parcels over 20 kg don't fit a pickup point, so I haven't redirected it.
  - id: explicit_yes
    condition_text: A parcel is about to be sent to a pickup point
    action_text: Only with the customer's yes.
    is_hard_constraint: true
    guarded_tool_ids: [send_to_pickup]
    enforcement_expression: customer_confirmed
    fallback_text: I haven't changed anything; I need your clear yes first.
"""
TOOLS = """
PARCELS = {
    "P101": {"owner": "c-1", "status": "in_transit", "kg": 2},
    "P102": {"owner": "c-1", "status": "delivered", "kg": 3},
    "P103": {"owner": "c-1", "status": "delivered", "kg": 30},
    "P104": {"owner": "c-1", "status": "in_transit", "kg": 25},
    "P200": {"owner": "c-2", "status": "in_transit", "kg": 1},
}
def find_parcel(parcel_id, customer_id=None):
    p = PARCELS.get(parcel_id)
    if p is None:
        return {"found": False, "mine": False, "status": None, "kg": None}
    return {"found": True, "mine": p["owner"] == customer_id, "status": p["status"], "kg": p["kg"]}
def send_to_pickup(parcel_id, customer_id=None):
    return {"reference": "PU-" + parcel_id}
"""
RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
START = "I won't be home, can my parcel go to a pickup point"
ASKED = "Shall I send parcel"
DELIVERED = "Parcel P102 was already delivered, so it can't go to a pickup point."


class Desk:
    """One customer's conversation with the parcel desk, turn by turn, over the real pipeline."""

    def __init__(self, tmp_path: Path, agent: str = AGENT) -> None:
        (tmp_path / "agent.yaml").write_text(agent)
        (tmp_path / "tools.py").write_text(TOOLS)
        self.deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
        self.runner = LocalRunner(self.deps)
        self.turns = 0

    def say(self, message: str) -> TurnResult:
        self.turns += 1
        return self.runner.turn(TurnRequest(tenant_id="t1", agent_id="parcels", session_id="s1", customer_id="c-1",
                                            turn_id=f"t{self.turns}", message=message))

    def record(self) -> dict[str, Any]:
        return self.deps.turns.list_for_session("t1", "parcels", "s1")[-1].state

    def session(self) -> Any:
        return self.deps.sessions.get("t1", "parcels", "s1")


def ran(result: TurnResult) -> list[str]:
    return [c["tool_id"] for c in result.tool_calls if c["status"] == "ok"]


def stopped(result: TurnResult) -> list[str]:
    return [c["tool_id"] for c in result.tool_calls if c["status"] == "blocked"]


def blocked_at_p102(desk: Desk) -> TurnResult:
    desk.say(START)
    offer = desk.say("P102")
    assert f"{ASKED} P102" in offer.response
    refusal = desk.say("yes")
    assert stopped(refusal) == ["send_to_pickup"] and refusal.response == DELIVERED
    return refusal


def test_after_a_block_a_yes_answers_no_withdrawn_question(tmp_path: Path):
    desk = Desk(tmp_path)
    refusal = blocked_at_p102(desk)
    assert ASKED not in refusal.response  # never the blocked question in the same breath as the refusal
    session = desk.session()
    assert session.flow_state == "blocked" and session.confirmed_step is None

    again = desk.say("yes")
    assert ran(again) == []
    assert "AffirmConfirmation" not in desk.record()["route"]["decision"]["executed"]  # no question was open to answer
    assert desk.session().confirmed_step is None
    assert again.response == DELIVERED and ASKED not in again.response  # the refusal again, not the offer

    unclear = desk.say("hmm")
    assert ran(unclear) == [] and ASKED not in unclear.response  # not asked the blocked question again
    assert unclear.response == DELIVERED

    assert desk.say("no").scenario is None  # "no" after a refusal leaves the flow


def test_after_a_block_a_changed_value_is_offered_with_its_own_lookup(tmp_path: Path):
    """A correction already worked at the confirmation; it must keep working from the blocked step."""
    desk = Desk(tmp_path)
    blocked_at_p102(desk)
    changed = desk.say("sorry, I meant P101")
    assert ran(changed) == ["find_parcel"] and stopped(changed) == []  # its lookup runs again, nothing is attempted
    assert f"{ASKED} P101" in changed.response and "P102" not in changed.response
    assert desk.session().flow_state == "confirming"
    done = desk.say("yes")
    assert ran(done) == ["send_to_pickup"] and done.tool_calls[0]["arguments"] == {"parcel_id": "P101"}
    assert "PU-P101" in done.response


def test_after_a_block_a_new_request_starts_its_own_flow(tmp_path: Path):
    """"Where is my parcel P101?" was read as a changed value of the blocked flow and offered P101 for redirecting."""
    desk = Desk(tmp_path)
    blocked_at_p102(desk)
    other = desk.say("Where is my parcel P101?")
    assert "Parcel P101 is in transit" in other.response  # an enum value said readably
    assert ASKED not in other.response and stopped(other) == []
    assert desk.record()["route"]["decision"]["completed_scenario_id"] == "track"
    # the blocked flow is offered back; taken up, it is still blocked: its guards are met again, nothing runs
    resumed = desk.say("yes")
    assert ran(resumed) == [] and resumed.response == DELIVERED


def test_two_blocking_guards_say_one_message(tmp_path: Path):
    desk = Desk(tmp_path)
    desk.say(START)
    desk.say("P103")  # delivered, and 30 kg
    refusal = desk.say("yes")
    assert refusal.response == "Parcel P103 was already delivered, so it can't go to a pickup point."
    assert "20 kg" not in refusal.response
    record = desk.record()
    assert record["route"]["decision"]["blocked_by"] == ["not_delivered", "light_enough"]  # the record keeps every rule
    [call] = [c for c in record["tools"]["tool_calls"] if c["status"] == "blocked"]
    assert [v["rule_id"] for v in call["guards"] if not v["passed"]] == ["not_delivered", "light_enough"]


def test_a_guard_with_a_higher_priority_speaks_first(tmp_path: Path):
    desk = Desk(tmp_path, AGENT.replace("    fallback_text: Parcels over 20 kg", "    priority: 10\n    fallback_text: Parcels over 20 kg"))
    desk.say(START)
    desk.say("P103")
    refusal = desk.say("yes")
    assert refusal.response == "Parcels over 20 kg don't fit a pickup point, so I haven't redirected it."
    assert desk.record()["route"]["decision"]["blocked_by"] == ["not_delivered", "light_enough"]


def test_a_blocked_step_is_offered_again_once_its_guards_hold(tmp_path: Path):
    """A fact the guard reads changes between turns (the customer rented a big locker): the next message meets the
    guards again, which now hold, so the question is asked again; nothing runs before the customer's new yes."""
    desk = Desk(tmp_path)
    desk.say(START)
    desk.say("P104")  # 25 kg
    assert stopped(desk.say("yes")) == ["send_to_pickup"]
    desk.deps.profiles.save(CustomerProfile(tenant_id="t1", agent_id="parcels", customer_id="c-1",
                                            fields={"has_big_locker": True}))
    asked = desk.say("I have a big locker now, please do it")
    assert ran(asked) == [] and stopped(asked) == []
    assert f"{ASKED} P104" in asked.response
    done = desk.say("yes")
    assert ran(done) == ["send_to_pickup"] and "PU-P104" in done.response


def test_a_step_branches_on_what_the_lookup_found(tmp_path: Path):
    """Transitions read the lookup's outputs (the mechanism the docs' flows page shows): an unknown parcel and
    someone else's are said so at once; no confirmation is asked and nothing is attempted."""
    for parcel, said in (("P404", "I couldn't find parcel P404."),
                         ("P200", "Parcel P200 isn't addressed to you, so I can't change where it goes.")):
        (tmp_path / parcel).mkdir()
        desk = Desk(tmp_path / parcel)
        desk.say(START)
        found = desk.say(parcel)
        assert found.response == said and ASKED not in found.response
        assert ran(found) == ["find_parcel"] and stopped(found) == []
        assert desk.session().active_scenario_id is None


def test_the_retail_address_change_branches_on_the_lookup(tmp_path: Path):
    """The retail example asked for a new address and offered to change it for an order that is not on the
    customer's account (the tool refused only after the yes); its flow now branches on what lookup_order found."""
    runner = LocalRunner(local_deps(RETAIL, tmp_path / "focal.db"))

    def say(n: int, message: str) -> TurnResult:
        return runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-200",
                                       turn_id=f"t{n}", message=message))

    say(1, "I need to change my delivery address")
    other = say(2, "A1001")  # c-100's order
    assert "couldn't find order A1001 on your account" in other.response
    assert "new delivery address" not in other.response and "?" not in other.response
    assert ran(other) == ["lookup_order"]
    assert other.scenario == {"id": "change_address", "step_id": "address_order_not_found"}


def test_a_guard_that_failed_on_known_values_speaks_before_one_that_could_not_decide(tmp_path: Path):
    """`insured_only` is declared first but reads a value no tool gave (it cannot verify); `not_delivered` failed on
    the parcel's known status: the customer hears the reason known to be true."""
    insured = """  - id: insured_only
    condition_text: A parcel is about to be sent to a pickup point
    action_text: Only insured parcels go to a pickup point.
    is_hard_constraint: true
    guarded_tool_ids: [send_to_pickup]
    enforcement_expression: parcel_insured
    fallback_text: I couldn't confirm parcel {parcel_id} is insured, so I haven't redirected it.
  - id: not_delivered
"""
    agent = AGENT.replace("  - id: not_delivered\n", insured).replace(
        "  - {field_name: pickup_ref,", "  - {field_name: parcel_insured, field_type: boolean, sources: [tool]}\n"
                                       "  - {field_name: pickup_ref,")
    desk = Desk(tmp_path, agent)
    desk.say(START)
    desk.say("P102")
    refusal = desk.say("yes")
    assert refusal.response == DELIVERED
    assert desk.record()["route"]["decision"]["blocked_by"] == ["insured_only", "not_delivered"]
