"""A tool's parameter names do not dictate the agent's variable names: `arguments` maps a parameter to any
variable or expression over variables. Here two tools both take `zip` — the lookup the customer's verification
zip, the address change the new address's zip — and each gets its own value. Validate names what is wrong with a
mapping. The agent is written here (a delivery desk), not taken from an example."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.loader import load_agent_file
from focal.config.validate import semantic_problems, semantic_warnings

AGENT = """
id: parcels
name: Parcel desk
profile_field_definitions:
  - {field_name: account_zip, field_type: string, description: The zip on the customer's account, sources: [message],
     validation_rules: ["len(value) == 5"]}
  - {field_name: new_zip, field_type: string, description: The zip of the new delivery address, sources: [message],
     validation_rules: ["len(value) == 5"]}
  - {field_name: account_ref, field_type: string, description: The account found, sources: [tool]}
  - {field_name: change_ref, field_type: string, description: Reference of the change, sources: [tool]}
tools:
  - id: find_account
    kind: python
    entrypoint: tools.py:find_account
    input: {zip: {type: string}}
    arguments: {zip: account_zip}
    output: {ref: account_ref}
  - id: change_delivery_zip
    kind: python
    entrypoint: tools.py:change_zip
    input: {account: {type: string}, zip: {type: string}}
    arguments: {account: account_ref, zip: new_zip}
    output: {ref: change_ref}
    side_effect: true
scenarios:
  - id: move_delivery
    name: Move my deliveries
    entry_examples: [I moved and need my parcels delivered to a new zip, Change my delivery address, Update where my parcels go]
    entry_step_id: verify
    steps:
      - id: verify
        slots: [{name: account_zip, prompt: "What is the zip code on your account?"}]
        action: [find_account]
        transitions: [{target: ask_new}]
      - id: ask_new
        slots: [{name: new_zip, prompt: "And the zip code of the new address?"}]
        transitions: [{target: confirm}]
      - id: confirm
        requires_confirmation: true
        confirmation_prompt: I'll deliver to zip {new_zip} from now on. Shall I go ahead?
        action: [change_delivery_zip]
        transitions: [{target: done}]
      - id: done
        response_template: Done, reference {change_ref}.
"""
TOOLS = """
def find_account(zip):
    return {'ref': 'ACC-' + zip}

def change_zip(account, zip):
    return {'ref': account + '>' + zip}
"""


def _write(tmp_path: Path, agent: str = AGENT) -> Path:
    (tmp_path / "agent.yaml").write_text(agent)
    (tmp_path / "tools.py").write_text(TOOLS)
    return tmp_path / "agent.yaml"


def test_two_tools_taking_zip_each_get_their_own_variable(tmp_path):
    agent = _write(tmp_path)
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "move", "turns": [
        {"user": "I moved and need my parcels delivered to a new zip", "expect": {"step": "verify"}},
        {"user": "10115", "expect": {"tool_calls": [{"find_account": {"zip": "10115"}}], "step": "ask_new"}},
        {"user": "80331", "expect": {"step": "confirm", "response_contains": "zip 80331"}},
        {"user": "yes", "expect": {"tool_calls": [{"change_delivery_zip": {"account": "ACC-10115", "zip": "80331"}}],
                                   "response_contains": "ACC-10115>80331"}},
    ]}]}))
    report = run_suite(agent, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def _errors(tmp_path: Path, agent: str) -> list[str]:
    loaded = load_agent_file(_write(tmp_path, agent))
    assert loaded.config is not None, loaded.problems
    return [f"{p.path}: {p.message}" for p in semantic_problems(loaded.config, loaded.raw) if p.severity == "error"]


def test_validate_names_a_mapping_to_an_unknown_variable_or_parameter(tmp_path):
    assert not _errors(tmp_path, AGENT)
    typo = _errors(tmp_path, AGENT.replace("arguments: {zip: account_zip}", "arguments: {zip: acount_zip}"))
    assert any("acount_zip" in e and "account_zip" in e for e in typo), typo
    stray = _errors(tmp_path, AGENT.replace("arguments: {zip: account_zip}", "arguments: {zipcode: account_zip}"))
    assert any("'zipcode' is not an input of this tool" in e for e in stray), stray
    unmapped = _errors(tmp_path, AGENT.replace("    arguments: {zip: account_zip}\n", ""))
    assert any("argument 'zip' is not a declared variable" in e and "arguments:" in e for e in unmapped), unmapped


def test_validate_warns_of_two_alternative_lookups_in_one_step(tmp_path):
    alternatives = AGENT.replace("""  - id: change_delivery_zip""", """  - id: find_account_by_email
    kind: python
    entrypoint: tools.py:find_account
    input: {zip: {type: string}}
    arguments: {zip: new_zip}
    output: {ref: account_ref}
  - id: change_delivery_zip""").replace("action: [find_account]", "action: [find_account, find_account_by_email]")
    loaded = load_agent_file(_write(tmp_path, alternatives))
    assert loaded.config is not None
    warnings = [p.message for p in semantic_warnings(loaded.config, loaded.raw)]
    assert any("'find_account' and 'find_account_by_email' both fill account_ref" in w for w in warnings), warnings
    loaded = load_agent_file(_write(tmp_path))
    assert loaded.config is not None
    assert not [p for p in semantic_warnings(loaded.config, loaded.raw) if "both fill" in p.message]
