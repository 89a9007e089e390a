"""A count is never read out of a money amount ("$1,500.00 over 4 payments" offers 4, not 500), and a pronoun
that refers to a declared other role in the sentence before gives that role away, not the field's share (dental
newcomer: "A $25 fee applies. It can be waived once a year" was read as 100% off). A gym written here."""

from __future__ import annotations

from focal.enforcement.reading import offline_reading
from focal.models.agent import AgentConfig

AGENT = AgentConfig.model_validate({
    "id": "gym", "name": "Gym",
    "profile_field_definitions": [
        {"field_name": "discount_given", "field_type": "percentage", "sources": ["response"], "default": 0,
         "extraction_hints": ["discount", "off"], "amount_words": {"other_roles": ["joining fee"]}},
        {"field_name": "payments_offered", "field_type": "integer", "sources": ["response"], "default": 0,
         "extraction_hints": ["payments", "instalments"]},
    ],
})


def _read(draft: str, name: str) -> tuple[object, str | None]:
    reading, _ = offline_reading(AGENT, draft, {name}, {}, model_written=True)
    return reading.values.get(name), reading.uncertain.get(name)


def test_a_count_is_not_read_out_of_a_money_amount():
    assert _read("Shall I split your $2,400.00 membership into 4 monthly payments?", "payments_offered") == (4, None)
    assert _read("We can spread it over 12 monthly payments.", "payments_offered") == (12, None)


def test_a_pronoun_after_a_sentence_naming_the_role_gives_the_role_away():
    assert _read("A $40 joining fee applies.\nIt can be waived this month.", "discount_given") == (None, None)
    assert _read("A $40 joining fee applies. That fee is waived for students.", "discount_given") == (None, None)


def test_what_the_pronoun_cannot_refer_to_stays_the_fields():
    value, _ = _read("A $40 joining fee applies. Your whole first month is waived.", "discount_given")
    assert value == 100.0
    value, _ = _read("It can be waived this month.", "discount_given")  # no role named before it
    assert value == 100.0


def test_how_often_something_happened_is_no_amount_but_a_doubled_offer_is():
    assert _read("Your booking has already been moved twice, which is the most we can do online.",
                 "discount_given") == (None, None)
    value, uncertain = _read("You were charged twice, so we can do double off your next month.", "discount_given")
    assert uncertain  # "double off": an amount in words the reader cannot place
