"""A value the customer refuses is not the value they chose, and a correction said casually is one."""

from __future__ import annotations

import pytest

from focal.models.agent import ProfileFieldDefinition, Slot, Step
from focal.models.session import Session
from focal.sensing import digression
from focal.sensing.extraction import extract

PLAN = ProfileFieldDefinition(field_name="plan", field_type="enum", allowed_values=["basic", "plus", "unlimited"],
                              sources=["message"])
ADDONS = ProfileFieldDefinition(field_name="addons", field_type="entity_list", allowed_values=["roaming", "insurance", "music"],
                                sources=["message"])


@pytest.mark.parametrize(("text", "value"), [
    ("I meant plus, not basic", "plus"), ("not basic - plus", "plus"), ("plus instead of basic", "plus"),
    ("rather than unlimited, give me basic", "basic"), ("I don't want basic", None), ("basic please", "basic"),
])
def test_an_enum_value_the_message_refuses_is_not_read(text, value):
    assert extract(PLAN, text, choosing=True) == value


def test_a_choice_leaves_out_what_is_refused_and_a_draft_mention_is_still_a_mention():
    assert extract(ADDONS, "add roaming and music, but no insurance", choosing=True) == ["roaming", "music"]
    assert extract(ADDONS, "we (not insurance) handle roaming") == ["roaming", "insurance"]  # a draft: any mention


@pytest.mark.parametrize("text", ["oops wrong account, it's AC100002", "whoops, wrong card - 4321", "I meant AC100002"])
def test_casual_corrections_are_corrections(text):
    assert digression.is_correction(text)


def test_a_dash_is_no_word_in_a_correction_frame():
    session = Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")
    session.flow_state = "confirming"
    step = Step(id="confirm", slots=[Slot(name="plan", type="enum", prompt="Which plan?")])
    assert digression.correction_frame(session, step, step.slots[0], "no, not basic - plus", "plus")
