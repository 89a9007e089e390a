"""What is left of a message for a free-text slot once its typed values are taken (focal.sensing.digression)."""

from __future__ import annotations

from focal.sensing.digression import remainder


def test_only_words_of_grammar_left_name_no_one_in_any_language():
    """Car-rental newcomer: "Es CR-10421" (it's CR-10421), answering the booking reference in Spanish, named the
    extra driver "Es"; the English "It's CR-10421" left nothing."""
    assert remainder("Es CR-10421", ["CR-10421"]) is None
    assert remainder("It's CR-10421", ["CR-10421"]) is None
    assert remainder("a large margherita", ["large"]) == "margherita"


def test_a_message_in_parts_leaves_the_part_without_a_typed_value():
    assert remainder("Maria Lopez, she is 34", [34]) == "Maria Lopez"
    assert remainder("Pedro Ruiz, 45 años", [45]) == "Pedro Ruiz"
    assert remainder("Maria Lopez 34, thanks", [34]) == "Maria Lopez"
