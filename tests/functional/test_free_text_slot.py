"""A free-text slot takes the customer's answer, never a question asked while the flow waits for it:
the side effect that follows a free-text value must not run with a question as its argument."""

from __future__ import annotations

from pathlib import Path

from focal.cli.conversation_tests import format_report, run_suite

AGENT = """
id: travel
name: Travel desk
out_of_scope_message: I can help plan a trip.
profile_field_definitions:
  - {field_name: destination, field_type: string, sources: [message]}
scenarios:
  - id: trip
    name: Plan a trip
    intent_label: trip
    entry_examples: [I want to plan a trip, help me book travel, I need a travel plan]
    entry_step_id: ask_destination
    steps:
      - id: ask_destination
        slots: [{name: destination, type: string, prompt: "Where are you going?"}]
        transitions: [{target: done}]
      - id: done
        response_template: Your trip to {destination} is noted.
"""

SUITE = """
conversations:
  - name: a question is not the destination; the answer after it is
    turns:
      - user: I want to plan a trip
        expect: {scenario: trip, step: ask_destination}
      - user: how much does a trip usually cost?
        expect: {scenario: trip, step: ask_destination, response_not_contains: "trip to how"}
      - user: Would it be cheaper in winter
        expect: {scenario: trip, step: ask_destination}
      - user: Lisbon
        expect: {response_contains: "trip to Lisbon"}
"""


def test_a_question_never_fills_a_free_text_slot(tmp_path: Path) -> None:
    (tmp_path / "agent.yaml").write_text(AGENT)
    (tmp_path / "tests.yaml").write_text(SUITE)
    report = run_suite(tmp_path / "agent.yaml", tmp_path / "tests.yaml")
    assert report.conversations and report.passed, "\n" + format_report(report)


TWO_SLOTS = """
id: library
name: Library desk
profile_field_definitions:
  - {field_name: birth_date, field_type: date, sources: [message]}
  - {field_name: surname, field_type: string, sources: [message]}
scenarios:
  - id: card
    name: Renew a card
    intent_label: card
    entry_examples: [I want to renew my library card, renew my card please]
    entry_step_id: identify
    steps:
      - id: identify
        slots:
          - {name: birth_date, type: date, prompt: "What is your date of birth?"}
          - {name: surname, type: string, prompt: "And your surname?"}
        transitions: [{target: done}]
      - id: done
        response_template: Thanks {surname}, your card is renewed.
"""


def test_a_date_read_from_its_words_leaves_nothing_for_the_free_text_slot(tmp_path: Path) -> None:
    """One value, one slot: "3 March 1990" is the date of birth, not also the surname."""
    (tmp_path / "agent.yaml").write_text(TWO_SLOTS, encoding="utf-8")
    suite = tmp_path / "tests.yaml"
    suite.write_text("""
conversations:
  - name: date then surname
    turns:
      - user: I want to renew my library card
        expect: {step: identify}
      - user: 3 March 1990
        expect: {step: identify, response_contains: surname}
      - user: Okafor
        expect: {step: done, response_contains: Thanks Okafor}
""", encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


NAME_AND_AGE = """
id: rental
name: Rental desk
profile_field_definitions:
  - {field_name: driver_name, field_type: string, sources: [message]}
  - {field_name: driver_age, field_type: integer, sources: [message]}
scenarios:
  - id: driver
    name: Add a driver
    intent_label: driver
    entry_examples: [I want to add an extra driver, add a second driver to my rental]
    entry_step_id: ask_driver
    steps:
      - id: ask_driver
        slots:
          - {name: driver_name, type: string, prompt: "What is the driver's full name?"}
          - {name: driver_age, type: integer, prompt: "How old is the driver?"}
        transitions: [{target: done}]
      - id: done
        response_template: "Noted: {driver_name}, {driver_age}."
"""


def test_the_words_around_a_typed_value_in_its_own_part_are_not_the_free_text(tmp_path: Path) -> None:
    """Car-rental newcomer: "Maria Lopez, she is 34" filled the name with "Maria Lopez she" (and the yes added a driver
    of that name). The part that gave the age is about the age; the other part is the name."""
    (tmp_path / "agent.yaml").write_text(NAME_AND_AGE, encoding="utf-8")
    suite = tmp_path / "tests.yaml"
    suite.write_text("""
conversations:
  - name: name and age with words about the age
    turns:
      - user: I want to add an extra driver
      - user: Maria Lopez, she is 34
        expect: {step: done, response_contains: "Noted: Maria Lopez, 34."}
  - name: name and age joined by and
    turns:
      - user: I want to add an extra driver
      - user: Tom Hill and he's 40 years old
        expect: {step: done, response_contains: "Noted: Tom Hill, 40."}
  - name: a message in one part keeps the old reading
    turns:
      - user: I want to add an extra driver
      - user: Maria Lopez 34
        expect: {step: done, response_contains: "Noted: Maria Lopez, 34."}
""", encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


WITH_BOOKING = NAME_AND_AGE.replace(
    "  - {field_name: driver_age, field_type: integer, sources: [message]}",
    "  - {field_name: driver_age, field_type: integer, sources: [message], validation_rules: ['value >= 16 and value <= 110']}\n"
    "  - {field_name: booking_ref, field_type: id, pattern: '\\bCR-\\d{5}\\b', sources: [message]}",
).replace("""      - id: ask_driver
        slots:""", """      - id: ask_driver
        slots:
          - {name: booking_ref, type: id, prompt: "What is your booking reference?"}""")


def test_the_figures_of_an_id_are_no_count(tmp_path: Path) -> None:
    """Car-rental newcomer: "add an extra driver to my booking CR-10421" read the driver's age as 10421 out of the
    booking reference, and the customer, never asked their age, heard "That doesn't look right." (an invalid attempt
    counted). The figures of a value another field's pattern reads are that value's."""
    (tmp_path / "agent.yaml").write_text(WITH_BOOKING, encoding="utf-8")
    suite = tmp_path / "tests.yaml"
    suite.write_text("""
conversations:
  - name: a booking reference gives no age
    turns:
      - user: I want to add an extra driver to my booking CR-10421
        expect: {step: ask_driver, response_contains: "full name", response_not_contains: "look right"}
      - user: Maria Lopez, 34
        expect: {step: done, response_contains: "Noted: Maria Lopez, 34."}
""", encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)
