"""The sensor model's reading merged into the offline one (focal.sensing.sensor_merge, focal.sensing.grounding):
the offline intent, slots and acts stand unless the model's reading is confident and consistent with the
message; a value must be written in the message or follow from it, and a made-up one is dropped and noted."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.models.context import Command, Context, IntentScore
from focal.models.session import Session
from focal.sensing.grounding import grounding, written
from focal.sensing.model_sensor import SensorOutput
from focal.sensing.sensor_merge import merge_readings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TODAY = date(2025, 3, 1)


@pytest.fixture(scope="module")
def retail():
    return load_agent(EXAMPLES / "retail" / "agent.yaml")


@pytest.fixture(scope="module")
def airline():
    return load_agent(EXAMPLES / "airline" / "agent.yaml")


@pytest.fixture(scope="module")
def pizza():
    return load_agent(EXAMPLES / "pizza" / "agent.yaml")


def session(agent, flow: str | None = None, step: str | None = None) -> Session:
    return Session(tenant_id="t", agent_id=agent.id, session_id="s", customer_id="c", active_scenario_id=flow,
                   active_step_id=step)


def offline(text: str, scores: dict[str, float], commands: list[Command] | None = None, **kw) -> Context:
    ranked = sorted(scores.items(), key=lambda kv: -kv[1])
    return Context(message=text, intent_scores=[IntentScore(scenario_id=k, label=k, score=v) for k, v in ranked],
                   intent_confidence=ranked[0][1] if ranked else 0.0, commands=commands or [], **kw)


def reading(**kw) -> SensorOutput:
    return SensorOutput.model_validate(kw)


def merge(agent, s, ctx, out):
    return merge_readings(agent, s, ctx.message, ctx, out, TODAY)


# --- values: in the message, or following from it ---------------------------------------------------

@pytest.mark.parametrize(("value", "message"), [
    ("A1001", "my order is a-1001"), ("one_way", "one way please"), (250, "it cost $250.00"),
    (300, "and it was three hundred"), ("555-010-1001", "call 5550101001"), ("Café", "the CAFE on main"),
])
def test_a_value_written_in_the_message_folded_or_as_digits(value, message):
    assert written(value, message)


@pytest.mark.parametrize(("value", "message"), [
    ("A1001", "do you sell gift cards?"), ("123 Main St, Anytown, USA", "I moved, change my address"),
    (250, "it cost $25"), ("no", "nothing much"),
])
def test_a_value_not_in_the_message_is_not_written(value, message):
    assert not written(value, message)


def test_a_date_the_offline_reader_parses_follows_from_the_message(airline):
    s = session(airline)
    assert grounding(airline, s, "flight_dates", "2025-03-14", "I fly on March 14", [], TODAY) == "read from the message by its type"
    assert grounding(airline, s, "flight_dates", "2025-03-15", "I fly on March 14", [], TODAY) is None
    assert grounding(airline, s, "cabin", "economy", "economy please", [], TODAY) == "in the message"


# --- merging -----------------------------------------------------------------------------------------

def test_an_empty_model_reading_keeps_the_offline_intent_and_its_slots(retail):
    start = Command(name="StartFlow", flow="refund", value=0.83)
    slot = Command(name="SetSlot", flow="refund", slot="order_id", value="A1001")
    ctx = offline("I want my money back for A1001", {"refund": 0.83, "order_status": 0.4}, [start, slot],
                  detected_intent="refund_request", extracted_entities={"order_id": "A1001"})
    merged = merge(retail, session(retail), ctx, reading(detected_intent=None, intent_confidence=0.0))
    assert merged.commands == [start, slot] and merged.detected_intent == "refund_request"
    assert merged.extracted_entities == {"order_id": "A1001"} and merged.intent_confidence == 0.83
    assert "the model read no intent: the offline reading stands" in merged.notes


def test_made_up_entities_with_no_intent_are_dropped_and_noted(retail):
    ctx = offline("do you sell gift cards?", {"order_status": 0.3, "refund": 0.2})
    out = reading(detected_intent=None, extracted_entities={"order_id": "A1001", "new_address": "123 Main St, Anytown, USA"},
                  commands=[{"name": "SetSlot", "flow": "change_address", "slot": "new_address", "value": "123 Main St"}])
    merged = merge(retail, session(retail), ctx, out)
    assert merged.extracted_entities == {} and merged.commands == []
    made_up = [n for n in merged.notes if "made up" in n]
    assert len(made_up) == 3 and any("order_id='A1001'" in n for n in made_up)


def test_a_grounded_value_the_model_reads_is_added(retail):
    ctx = offline("where is my stuff, order b2002", {"order_status": 0.6, "refund": 0.3})
    out = reading(detected_intent="order_status", intent_confidence=0.9, extracted_entities={"order_id": "B2002"},
                  commands=[{"name": "StartFlow", "flow": "order_status", "value": 0.9},
                            {"name": "SetSlot", "flow": "order_status", "slot": "order_id", "value": "B2002"}])
    merged = merge(retail, session(retail), ctx, out)
    assert [(c.name, c.slot, c.value) for c in merged.commands] == [("StartFlow", None, 0.9), ("SetSlot", "order_id", "B2002")]
    assert merged.extracted_entities == {"order_id": "B2002"} and merged.detected_intent == "order_status"


def test_a_weak_model_intent_leaves_the_offline_one(retail):
    start = Command(name="StartFlow", flow="refund", value=0.6)
    ctx = offline("refund maybe?", {"refund": 0.6, "order_status": 0.5}, [start])
    merged = merge(retail, session(retail), ctx, reading(detected_intent="order_status", intent_confidence=0.4,
                                                          commands=[{"name": "StartFlow", "flow": "order_status"}]))
    assert merged.commands == [start]
    assert any("is not confident" in n for n in merged.notes)


def test_a_confident_intent_far_from_the_message_with_nothing_in_it_is_not_taken(airline):
    scores = {"baggage": 0.5, "reservation_lookup": 0.45, "cancel_reservation": 0.4, "change_flights": 0.35,
              "human_agent": 0.3}
    ctx = offline("hm, ok", scores)
    out = reading(detected_intent="compensation", intent_confidence=0.95,
                  commands=[{"name": "StartFlow", "flow": "compensation", "value": 0.95}])
    merged = merge(airline, session(airline), ctx, out)
    assert merged.commands == [] and merged.detected_intent is None
    assert any("nor a flow the message gives a value for" in n for n in merged.notes)


def test_a_confident_consistent_reading_may_infer_a_value_of_its_flow_but_never_the_asked_one(airline):
    scores = {"book_flight": 0.6, "change_flights": 0.5}
    ctx = offline("fly me New York to Seattle, one way, user mia_li_3668", scores)
    out = reading(detected_intent="book_flight", intent_confidence=0.95, commands=[
        {"name": "StartFlow", "flow": "book_flight", "value": 0.95},
        {"name": "SetSlot", "flow": "book_flight", "slot": "origin", "value": "JFK"},
        {"name": "SetSlot", "flow": "book_flight", "slot": "flight_type", "value": "one_way"},
        {"name": "SetSlot", "flow": "book_flight", "slot": "cabin", "value": "first"}])  # no allowed value
    merged = merge(airline, session(airline), ctx, out)
    assert {c.slot: c.value for c in merged.commands if c.slot} == {"origin": "JFK", "flight_type": "one_way"}
    assert any("origin='JFK' kept: inferred" in n for n in merged.notes)
    assert any("cabin='first' dropped: not in the message" in n for n in merged.notes)


def test_at_a_prompt_a_free_text_answer_must_be_the_customers_words(retail):
    s = session(retail, "change_address", "ask_address")
    ctx = offline("yes that one", {"change_address": 0.5})
    out = reading(detected_intent="change_address", intent_confidence=0.95,
                  commands=[{"name": "SetSlot", "flow": "change_address", "slot": "new_address", "value": "1 Elm Road"}])
    merged = merge(retail, s, ctx, out)
    assert merged.commands == [] and any("new_address='1 Elm Road' dropped" in n for n in merged.notes)


def test_at_a_prompt_an_enum_choice_of_a_confident_reading_is_taken(pizza):
    flow = pizza.scenarios[0]
    step = next(st for st in flow.steps if any(sl.name == "size" for sl in st.slots))
    ctx = offline("make it that size", {flow.id: 0.5})
    out = reading(detected_intent=flow.id, intent_confidence=0.95,
                  commands=[{"name": "SetSlot", "flow": flow.id, "slot": "size", "value": "LARGE"}])
    merged = merge(pizza, session(pizza, flow.id, step.id), ctx, out)
    assert [(c.slot, c.value) for c in merged.commands] == [("size", "LARGE")]
    weak = merge(pizza, session(pizza, flow.id, step.id), ctx, out.model_copy(update={"intent_confidence": 0.3}))
    assert weak.commands == []


def test_offline_acts_and_slots_stand_against_the_model(retail):
    yes = Command(name="AffirmConfirmation", flow="refund")
    slot = Command(name="SetSlot", flow="refund", slot="order_id", value="A1001")
    ctx = offline("yes A1001", {"refund": 0.5}, [yes, slot])
    out = reading(detected_intent="refund", intent_confidence=0.9, commands=[
        {"name": "DenyConfirmation", "flow": "refund"},
        {"name": "SetSlot", "flow": "refund", "slot": "order_id", "value": "A1002"}])
    merged = merge(retail, session(retail, "refund", "confirm_refund"), ctx, out)
    assert merged.commands == [yes, slot]
    assert any("DenyConfirmation dropped" in n for n in merged.notes)
    assert any("order_id='A1002' dropped: the offline reading gave 'A1001'" in n for n in merged.notes)


def test_a_model_yes_where_offline_heard_none_is_added_with_the_models_certainty(retail):
    ctx = offline("I reckon that would be alright", {"refund": 0.4})
    out = reading(detected_intent="refund", intent_confidence=0.35, commands=[{"name": "AffirmConfirmation", "flow": "refund"}])
    merged = merge(retail, session(retail, "refund", "confirm_refund"), ctx, out)
    assert [c.name for c in merged.commands] == ["AffirmConfirmation"] and merged.intent_confidence == 0.35


def test_the_offline_near_tie_is_resolved_only_by_a_taken_intent(retail):
    ctx = offline("my order", {"refund": 0.5, "order_status": 0.49}, is_ambiguous=True, ambiguity_reason="near tie")
    sure = merge(retail, session(retail), ctx, reading(detected_intent="order_status", intent_confidence=0.9))
    unsure = merge(retail, session(retail), ctx, reading(detected_intent=None))
    assert not sure.is_ambiguous and unsure.is_ambiguous


def test_in_a_flow_a_decent_offline_reading_makes_no_sensor_call(retail):
    from focal.stages.sensor import decent_in_flow

    in_flow = session(retail, "refund", "collect_order")
    slot = offline("it's a1001 I think", {"refund": 0.3}, [Command(name="SetSlot", flow="refund", slot="order_id", value="A1001")])
    yes = offline("yes", {"refund": 0.3}, [Command(name="AffirmConfirmation", flow="refund")])
    sure = offline("I want a refund", {"refund": 0.9})
    unsure = offline("hmm, which one do you mean?", {"refund": 0.3, "order_status": 0.2})
    assert decent_in_flow(retail, slot, in_flow) == "slot order_id filled"
    assert decent_in_flow(retail, yes, in_flow) == "dialogue act AffirmConfirmation"
    assert decent_in_flow(retail, sure, in_flow) == "intent scored 0.90"
    assert decent_in_flow(retail, unsure, in_flow) is None
    assert decent_in_flow(retail, slot, session(retail)) is None  # outside a flow: the fast path decides


# --- what of the model's reading was set aside, listed apart for conversation tests ---------------------------


def test_what_the_merge_does_not_take_is_listed_in_set_aside(retail):
    ctx = offline("I want to check on my parcel", {"order_status": 0.5, "refund": 0.3})
    weak = merge(retail, session(retail), ctx, reading(detected_intent="refund", intent_confidence=0.4))
    assert weak.set_aside == ["the model's intent refund (0.40 < 0.70) is not confident: the offline reading stands"]
    made_up = merge(retail, session(retail), ctx, reading(
        detected_intent="order_status", intent_confidence=0.9,
        commands=[{"name": "SetSlot", "flow": "order_status", "slot": "order_id", "value": "parcel 12"}]))
    assert made_up.set_aside == ["the model's order_id='parcel 12' dropped: not in the message (made up)"]
    assert all(n in made_up.notes for n in made_up.set_aside)
    nothing = merge(retail, session(retail), ctx, reading(detected_intent=None, intent_confidence=0.0))
    assert nothing.set_aside == ["nothing of the model's reading was taken"]
