"""An enum's values in each declared language: `translations.<lang>.fields.<field>.value_labels` (and
`value_synonyms`) give the words a customer writing that language answers with and hears; tools and guards still get
the value itself. Found by a newcomer's claims desk (session 10): asked "Was ist passiert: Wasser, Feuer, Diebstahl,
Sturm oder ein Missgeschick?", a German customer's "Wasser" was not understood, and the confirmation said "(water)"."""

from __future__ import annotations

from pathlib import Path

from written_agent import passes, write_agent

from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems, semantic_warnings

AGENT = """
id: claims
name: Claims desk
languages: [en, de]
profile_field_definitions:
  - {field_name: incident_type, field_type: enum, description: What happened, sources: [message],
     allowed_values: [water, fire, theft], value_synonyms: {water: [burst pipe]}}
  - {field_name: claim_ref, field_type: string, description: The new claim's number, sources: [tool]}
tools:
  - id: file_claim
    kind: python
    entrypoint: tools.py:file_claim
    input: {incident_type: {type: string}}
    output: {ref: claim_ref}
    side_effect: true
scenarios:
  - id: new_claim
    name: File a claim
    entry_examples: [I want to file a claim, I need to report damage to my home]
    entry_step_id: describe
    steps:
      - id: describe
        slots: [{name: incident_type, type: enum, prompt: "What happened: water, fire or theft?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: "I'll file a claim for {incident_type}. Shall I go ahead?"
        action: [file_claim]
        transitions: [{target: filed}]
      - {id: filed, response_template: "Filed as {claim_ref}."}
translations:
  de:
    scenarios:
      new_claim:
        entry_examples: [Ich möchte einen Schaden melden]
        steps:
          describe: {slots: {incident_type: "Was ist passiert: Wasser, Feuer oder Diebstahl?"}}
          confirm: {confirmation_prompt: "Ich melde einen Schaden ({incident_type}). Soll ich das tun?"}
          filed: {response_template: "Gemeldet unter {claim_ref}."}
    fields:
      incident_type:
        value_labels: {water: Wasser, fire: Feuer, theft: Diebstahl}
        value_synonyms: {water: [Rohrbruch], theft: [Einbruch]}
"""
TOOLS = """
def file_claim(incident_type):
    return {'ref': 'CL1'}
"""


def _claim(tmp_path: Path, answer: str, said: str, value: str) -> None:
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "Ich möchte einen Schaden melden", "expect": {"response_contains": "Was ist passiert"}},
        {"user": answer, "expect": {"step": "confirm", "response_contains": f"({said})", "response_not_contains": value}},
        {"user": "ja", "expect": {"tool_calls": [{"file_claim": {"incident_type": value}}]}},
    ])


def test_a_german_customer_answers_with_the_german_label_and_hears_it_while_the_tool_gets_the_value(tmp_path: Path):
    _claim(tmp_path, "Diebstahl", "Diebstahl", "theft")


def test_a_german_synonym_gives_its_value(tmp_path: Path):
    _claim(tmp_path, "ein Rohrbruch in der Küche", "Wasser", "water")


def test_an_english_customer_still_answers_and_hears_the_files_words(tmp_path: Path):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": "I want to file a claim", "expect": {"response_contains": "What happened"}},
        {"user": "a burst pipe", "expect": {"step": "confirm", "response_contains": "for water"}},
    ])


def _checked(tmp_path: Path, agent: str) -> tuple[list[str], list[str]]:
    loaded = load_agent_file(write_agent(tmp_path, agent, TOOLS))
    assert loaded.config is not None, loaded.problems
    errors = [p.message for p in semantic_problems(loaded.config, loaded.raw) if p.severity == "error"]
    warnings = [p.message for p in semantic_warnings(loaded.config, loaded.raw)]
    return errors, warnings


def test_validate_names_a_label_for_no_allowed_value_and_warns_about_an_enum_without_words_in_a_language(tmp_path: Path):
    errors, warnings = _checked(tmp_path, AGENT)
    assert not errors and not any("no German words" in w for w in warnings), (errors, warnings)
    errors, _ = _checked(tmp_path, AGENT.replace("theft: Diebstahl}", "thef: Diebstahl}"))
    assert any("allowed value 'thef' does not exist" in e and "theft" in e for e in errors), errors
    _, warnings = _checked(tmp_path, AGENT.replace(
        "        value_labels: {water: Wasser, fire: Feuer, theft: Diebstahl}\n", ""))
    assert any("no German words for the values of 'incident_type'" in w for w in warnings), warnings
