"""A built-in cue word that names one of the agent's own amounts, said as a noun, moves no money to the customer
(car-rental newcomer: "The deposit is €800." was read as a cancellation fee of €800 waived, so the agent's own
booking summary and its deposit policy were replaced by the fee rule's fallback, and `focal validate` warned that
the deposit text offered what the fee rule forbids). The same word as a verb, and the field's own hints, still
promise. A car-rental agent written here."""

from __future__ import annotations

from focal.config.validate import semantic_warnings
from focal.enforcement.reading import offline_reading
from focal.models.agent import AgentConfig

_FEE_WAIVED = {"field_name": "fee_waived", "field_type": "money", "sources": ["response"], "default": 0,
               "extraction_hints": ["waive", "waived", "cancellation fee"]}
_DEPOSIT_POLICY = ("The deposit is €300 for economy cars and €800 for premium cars. It is held on the main driver's "
                   "credit card at pickup and released within 10 days of return.")


def _agent(*fields: dict, rules: tuple[dict, ...] = ()) -> AgentConfig:
    return AgentConfig.model_validate({"id": "rental", "name": "Rental", "profile_field_definitions": list(fields),
                                       "rules": list(rules)})


RENTAL = _agent(_FEE_WAIVED, {"field_name": "deposit_amount", "field_type": "money", "sources": ["tool"]})


def _read(agent: AgentConfig, draft: str, known: dict | None = None) -> tuple[object, str | None]:
    reading, _ = offline_reading(agent, draft, {"fee_waived"}, known or {}, model_written=True)
    return reading.values.get("fee_waived"), reading.uncertain.get("fee_waived")


def test_the_agents_own_amount_named_as_a_noun_is_no_promise():
    assert _read(RENTAL, "Booking CR-10777 is a premium car. The deposit is €800.", {"deposit_amount": 800}) == (None, None)
    assert _read(RENTAL, "The refundable security deposit of €300 is held at pickup.") == (None, None)
    assert _read(RENTAL, "Deposits are €300 for compact cars.") == (None, None)


def test_a_declared_other_role_is_no_built_in_cue_either():
    agent = _agent({**_FEE_WAIVED, "amount_words": {"other_roles": ["deposit"]}})  # no deposit field: the author's word
    assert _read(agent, "The deposit is €800.") == (None, None)


def test_the_same_word_as_a_verb_and_the_fields_own_hints_still_promise():
    assert _read(RENTAL, "We'll deposit €80 into your account.")[0] == 80.0
    assert _read(RENTAL, "Our team deposits €80 today.")[0] == 80.0
    assert _read(RENTAL, "I can confirm that we deposit €80 today.")[0] == 80.0
    assert _read(RENTAL, "The deposit is €800, and we'll waive the €50 cancellation fee.")[0] == 50.0
    assert _read(RENTAL, "I'll waive the deposit of €800.")[0] == 800.0  # "waive" is the field's own hint


def test_a_word_that_is_no_cue_makes_no_role():
    without = _agent(_FEE_WAIVED, {"field_name": "deposit_amount", "field_type": "money", "sources": ["response"],
                                   "default": 0})  # read from answers: no amount the business knows
    assert _read(without, "The deposit is €800.")[0] == 800.0


def test_validate_no_longer_warns_that_the_deposit_policy_offers_a_waived_fee():
    agent = _agent(_FEE_WAIVED, {"field_name": "deposit_amount", "field_type": "money", "sources": ["tool"]}, rules=(
        {"id": "no_fee_waiver", "condition_text": "The answer promises to waive a cancellation fee",
         "action_text": "Never waive a cancellation fee.", "is_hard_constraint": True,
         "enforcement_expression": "fee_waived <= 0", "fallback_text": "I can't waive cancellation fees."},
        {"id": "deposits", "condition_text": "How much is the deposit?", "action_text": "Explain the deposit.",
         "response_template": _DEPOSIT_POLICY}))
    messages = [p.message for p in semantic_warnings(agent)]
    assert not [m for m in messages if "no_fee_waiver" in m], messages
