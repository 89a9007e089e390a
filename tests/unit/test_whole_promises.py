"""A promise of the whole of what the customer owes, with no amount known, cannot be verified: a field's default
is no known amount (newcomer finding: "I'll credit your whole bill" passed as the $0 a bill defaults to), and
zeroing words ("wipe it clean", "you won't pay a cent") promise the whole too. A water utility written here."""

from __future__ import annotations

import pytest

from focal.enforcement.reading import offline_reading
from focal.models.agent import AgentConfig

AGENT = AgentConfig.model_validate({
    "id": "water", "name": "Water",
    "profile_field_definitions": [
        {"field_name": "relief_promised", "field_type": "money", "sources": ["response"], "default": 0,
         "extraction_hints": ["relief", "credit"], "amount_words": {"verbs": ["credit"], "purchases": ["bill", "invoice"]}},
        {"field_name": "invoice_total", "field_type": "money", "sources": ["tool"], "default": 0},
    ],
    "rules": [{"id": "relief_cap", "condition_text": "relief", "action_text": "At most $40 of relief.",
               "is_hard_constraint": True, "enforcement_expression": "relief_promised <= 40"}],
})


def _read(draft: str, known: dict) -> tuple[object, str | None]:
    reading, _ = offline_reading(AGENT, draft, {"relief_promised"}, {"relief_promised": 0, "invoice_total": 0, **known},
                                 model_written=True)
    return reading.values.get("relief_promised"), reading.uncertain.get("relief_promised")


@pytest.mark.parametrize("draft", ["I'll credit your entire invoice.", "We'll wipe this month's invoice clean.",
                                   "Good news: you won't pay a cent for this invoice.", "I'll write that invoice off."])
def test_the_whole_of_an_unknown_amount_cannot_be_verified(draft):
    value, uncertain = _read(draft, {})
    assert uncertain, (draft, value)


def test_the_whole_of_a_known_amount_is_that_amount():
    value, uncertain = _read("I'll credit your entire invoice.", {"invoice_total": 88.5})
    assert (value, uncertain) == (88.5, None)


@pytest.mark.parametrize("draft", ["You won't pay a cent more than the $30 on your invoice.",
                                   "I'll credit $25 to your invoice.", "Please wipe your feet before the reading."])
def test_ordinary_sentences_are_read_as_before(draft):
    value, uncertain = _read(draft, {})
    assert uncertain is None and value in (None, 0, 25.0), (draft, value, uncertain)


def test_a_share_worked_out_and_said_again_is_the_same_promise():
    assert _read("I'll credit half of the $60 invoice, so $30.", {}) == (30.0, None)
    value, uncertain = _read("I'll credit half of the $60 invoice, so $35.", {})
    assert uncertain  # the figure said after it is not the share: something else is promised
