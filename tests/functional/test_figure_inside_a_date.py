"""A figure that is part of a date the message gives a date slot ("le 3 mars", "on March 3") is not also a value
of a number slot of the same step: answering the date prompt must not overwrite the number already given."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal.cli.conversation_tests import format_report, run_suite

AGENT = """
    id: meter
    name: Meter desk
    greeting: Hello, how can I help?
    out_of_scope_message: I can record a meter reading.
    profile_field_definitions:
      - {field_name: reading, field_type: number, description: The meter reading in kWh, sources: [message]}
      - {field_name: reading_date, field_type: date, description: The day the meter was read, sources: [message]}
    tools:
      - id: record_reading
        kind: python
        entrypoint: tools.py:record_reading
        description: Record a meter reading.
        input:
          reading: {type: number, description: the reading}
          reading_date: {type: date, description: the day}
        output: {}
        side_effect: true
    scenarios:
      - id: reading
        name: Give a meter reading
        entry_examples: [I want to give my meter reading, Here is my meter reading, I read my meter]
        entry_step_id: ask
        steps:
          - id: ask
            slots:
              - {name: reading, type: number, prompt: "What does the meter show (kWh)?"}
              - {name: reading_date, type: date, prompt: "On which day did you read it?"}
            transitions: [{target: confirm}]
          - id: confirm
            requires_confirmation: true
            confirmation_prompt: "I'll record {reading} kWh read on {reading_date}. Shall I?"
            action: [record_reading]
            transitions: [{target: done}]
          - id: done
            response_template: Recorded.
    languages: [LANGS]
"""

FRENCH = """
    translations:
      fr:
        scenarios:
          reading:
            entry_examples: [Je voudrais transmettre mon relevé de compteur, Voici mon relevé de compteur]
"""

TOOLS = "def record_reading(reading: float, reading_date: str) -> dict:\n    return {}\n"

CASES = {
    "fr": ("en, fr", "Je voudrais transmettre mon relevé de compteur", "12 345,5 kWh", "le 3 mars", "oui"),
    "en": ("en", "I want to give my meter reading", "12,345.5 kWh", "on March 3", "yes"),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_the_day_of_a_date_answer_does_not_overwrite_the_number(tmp_path: Path, lang: str) -> None:
    langs, opening, figure, day, yes = CASES[lang]
    (tmp_path / "agent.yaml").write_text(textwrap.dedent(AGENT).replace("LANGS", langs)
                                         + (textwrap.dedent(FRENCH) if "fr" in langs else ""), encoding="utf-8")
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "tests.yaml").write_text(textwrap.dedent(f"""
        conversations:
          - name: reading then date
            turns:
              - user: "{opening}"
              - user: "{figure}"
              - user: "{day}"
                expect: {{step: confirm}}
              - user: "{yes}"
                expect: {{tool_calls: [{{record_reading: {{reading: 12345.5}}}}]}}
    """), encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", tmp_path / "tests.yaml")
    assert report.passed, format_report(report)
