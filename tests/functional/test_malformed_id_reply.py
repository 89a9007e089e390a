"""An id given in a shape near its field's own ("TX-482913" where ids are TX- and four digits) through the real
pipeline on the cards example: said to be wrong and asked again, never "not understood", and no tool runs."""

from __future__ import annotations

from cards_chat import CardsChat

from focal.models.engine_texts import all_keys


def test_an_id_in_the_wrong_shape_is_said_to_be_wrong_not_misunderstood():
    chat = CardsChat("bad-id")
    chat.say("Ich möchte eine Abbuchung reklamieren")
    wrong = chat.say("Die Transaktion ist TX-482913")
    assert wrong.response.startswith(all_keys()["invalid_value"]["de"])
    assert wrong.scenario == {"id": "dispute", "step_id": "ask_transaction"} and wrong.tool_calls == []
