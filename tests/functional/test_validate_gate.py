"""`focal validate` as one gate: schema and cross-field problems in one run, sorted by line, with
'did you mean', a tool function missing from its file, and expressions that would fail every time."""

from __future__ import annotations

from pathlib import Path

from focal.config.gate import validate_file
from focal.main import main

MIXED = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: refund_amount, field_type: money}
rules:
  - id: cap
    condition_text: a refund is offered
    action_text: never more than $50
    is_hard_constraint: true
    enforcement_expression: refund_amt <= 50
  - id: polite
    conditon_text: any reply
    action_text: be polite
    priority: high
  - id: billing_help
    condition_text: an invoice question
    action_text: explain it
    scope: SCENARIO
    scope_id: refnd
scenarios:
  - id: refund
    name: Refund
    entry_examples: [I want a refund]
    entry_step_id: ask_order
    steps:
      - id: ask_order
        transitions: [{target: ask_ordr}]
navigation:
  stickiness_boost: 3
"""


def line(text: str, fragment: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), start=1) if fragment in row)


def test_schema_and_semantic_errors_in_one_run_sorted_by_line_with_did_you_mean(tmp_path, capsys):
    path = tmp_path / "agent.yaml"
    path.write_text(MIXED, encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: 7 problem(s)"
    assert out[1:] == [
        "  rules[0].enforcement_expression: name 'refund_amt' is not a declared variable; did you mean 'refund_amount'? "
        f"(line {line(MIXED, 'refund_amt <= 50')})",
        f"  rules[1].condition_text: Field required (line {line(MIXED, '- id: polite')})",
        "  rules[1].conditon_text: Extra inputs are not permitted; did you mean 'condition_text'? "
        f"(line {line(MIXED, 'conditon_text')})",
        "  rules[1].priority: Input should be a valid integer, unable to parse string as an integer "
        f"(line {line(MIXED, 'priority: high')})",
        f"  rules[2].scope_id: scenario 'refnd' does not exist; did you mean 'refund'? (line {line(MIXED, 'scope_id: refnd')})",
        "  scenarios[0].steps[0].transitions[0].target: step 'ask_ordr' does not exist in scenario 'refund'; "
        f"did you mean 'ask_order'? (line {line(MIXED, 'target: ask_ordr')})",
        f"  navigation.stickiness_boost: Input should be less than or equal to 1 (line {line(MIXED, 'stickiness_boost')})",
    ]


def test_what_the_repair_would_cause_is_not_reported(tmp_path):
    # An invalid scope falls back to GLOBAL for the cross-field pass; "a GLOBAL rule takes no scope_id" would be
    # an artefact of that repair, and a missing id must not surface as a placeholder.
    text = MIXED.replace("    scope: SCENARIO\n", "    scope: SCENARIOO\n").replace("  - id: cap\n", "  - {}\n  - id: cap\n", 0)
    path = tmp_path / "agent.yaml"
    path.write_text(text.replace("  - id: polite\n", "  - id_: polite\n"), encoding="utf-8")
    messages = [str(p) for p in validate_file(path).problems]
    assert any("rules[2].scope: Input should be 'GLOBAL', 'SCENARIO' or 'STEP'; did you mean 'SCENARIO'?" in m for m in messages)
    assert not any("GLOBAL rule" in m or "placeholder" in m for m in messages), messages
    assert any(m.startswith("rules[1].id: Field required") for m in messages)
    assert any("rules[1].id_: Extra inputs are not permitted; did you mean 'id'?" in m for m in messages)
    assert any("refund_amt" in m for m in messages)  # the cross-field pass still ran


def test_a_tool_function_missing_from_its_file_and_expressions_that_always_fail(tmp_path):
    (tmp_path / "tools.py").write_text("def lookup_order(order_id):\n    return {}\n", encoding="utf-8")
    text = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: refund_amount, field_type: money}
  - {field_name: tier, field_type: enum, allowed_values: [gold, silver]}
  - {field_name: order_id, field_type: id}
tools:
  - id: lookup
    entrypoint: 'tools.py:lookup_ordr'
    input: {order_id: {type: id}}
rules:
  - {id: a, condition_text: x, action_text: y, is_hard_constraint: true, enforcement_expression: tier == gold}
  - {id: b, condition_text: x, action_text: y, is_hard_constraint: true, enforcement_expression: "contains(tier) or refund_amount < '50'"}
  - {id: c, condition_text: x, action_text: y, is_hard_constraint: true, enforcement_expression: "tier in 5 or refund_amount / 0 > 1"}
  - {id: d, condition_text: x, action_text: y, is_hard_constraint: true, enforcement_expression: "tier in ['gold'] and len(tier) > 1"}
"""
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    result = validate_file(path, model="openai/gpt-4o-mini")
    fails = "this expression fails whenever it runs: "
    assert [(p.path, p.message) for p in result.problems] == [
        ("tools[0].entrypoint", "'lookup_ordr' is not defined in 'tools.py'; did you mean 'lookup_order'?"),
        ("rules[0].enforcement_expression", "name 'gold' is not a declared variable; to compare with the text, quote it: 'gold'"),
        ("rules[1].enforcement_expression", fails + "contains() takes 2 argument(s), 1 given"),
        ("rules[2].enforcement_expression", fails + "'in' needs a list or a text on its right, not 5"),
        ("rules[2].enforcement_expression", fails + "division by zero"),
    ]  # rule d (a list literal, len of a text) is fine
    # resting on a declared type (a money field against a quoted number): a warning, the agent still loads
    assert [(w.path, w.severity, w.message.split(": ", 1)[1]) for w in result.warnings] == [
        ("rules[1].enforcement_expression", "warning",
         "'refund_amount' and '50' cannot be ordered: one is a number, the other a text (write numbers without quotes)"),
    ]


def test_warnings_stay_warnings_and_the_examples_stay_clean(tmp_path):
    examples = Path(__file__).resolve().parents[2] / "examples"
    for agent in sorted(examples.glob("*/agent.yaml")):
        if agent.parent.name != "broken":
            result = validate_file(agent, model="openai/gpt-4o-mini")
            assert result.problems == [] and result.config is not None, (agent, [str(p) for p in result.problems])
    text = "id: s\nname: S\nrules:\n  - {id: tone, condition_text: x, action_text: y, is_hard_constraint: true, subjective: true}\n"
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    result = validate_file(path)
    assert result.problems == [] and [w.severity for w in result.warnings] == ["warning"]
