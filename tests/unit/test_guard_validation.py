"""`focal validate` on action guards (`guarded_tool_ids`) and on subjective hard rules without a judge."""

from __future__ import annotations

import textwrap

import pytest

from focal.config.loader import Problem, parse_agent_text
from focal.config.validate import semantic_problems, semantic_warnings

HEAD = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: order_id, field_type: id}
  - {field_name: refund_amount, field_type: money}
  - {field_name: new_address, field_type: string}
tools:
  - id: issue_refund
    entrypoint: 'shop.py:issue_refund'
    input: {order_id: {type: id}}
    side_effect: true
  - id: refund_amount_tool
    entrypoint: 'shop.py:refund'
    input: {order_id: {type: id}, amount: {type: money}}
    side_effect: true
  - id: update_address
    entrypoint: 'shop.py:update_address'
    input: {order_id: {type: id}, new_address: {type: string}, amount: {type: money}}
    side_effect: true
  - id: cancel_order
    entrypoint: 'shop.py:cancel_order'
    input: {order_id: {type: id}}
    side_effect: true
  - id: lookup_order
    entrypoint: 'shop.py:lookup_order'
    input: {order_id: {type: id}}
rules:
"""


def load(rules: str, tail: str = ""):
    loaded = parse_agent_text(HEAD + textwrap.indent(textwrap.dedent(rules), "  ") + textwrap.dedent(tail))
    assert loaded.config is not None, [str(p) for p in loaded.problems]
    return loaded


def errors(rules: str) -> list[str]:
    """The rules' problems (`amount` is an input no field declares, which is the tools' own problem)."""
    loaded = load(rules)
    return [f"{p.path}: {p.message}" for p in semantic_problems(loaded.config, loaded.raw) if p.path.startswith("rules")]


def guard(tools: str, expression: str | None = "refund_amount <= 50", **extra: str) -> str:
    lines = ["- id: cap", "  condition_text: a refund is issued", "  action_text: cap it", f"  guarded_tool_ids: {tools}"]
    lines += [f"  {k}: {v}" for k, v in {"is_hard_constraint": "true", **extra}.items()]
    if expression is not None:
        lines.append(f"  enforcement_expression: {expression!r}")
    return "\n".join(lines) + "\n"


NO_AMOUNT = ("rules[0].enforcement_expression: guard reads 'amount', which tool 'issue_refund' does not take "
             "(its inputs: order_id) and no field declares")


def test_a_guard_may_read_declared_names_its_tools_arguments_and_customer_confirmed():
    assert errors(guard("[refund_amount_tool]", "amount <= 50 or customer_confirmed")) == []
    assert errors(guard("[issue_refund, refund_amount_tool]", "refund_amount <= 50 and order_id != ''")) == []
    # an argument name of every guarded tool, even one no field declares
    assert errors(guard("[refund_amount_tool, update_address]", "amount <= 50")) == []


def test_a_guard_reading_an_argument_its_tool_does_not_take_names_the_tool_and_its_inputs():
    assert errors(guard("[issue_refund]", "amount <= 50")) == [NO_AMOUNT]


def test_an_argument_must_be_taken_by_every_guarded_tool():
    assert errors(guard("[refund_amount_tool, issue_refund]", "amount <= 50")) == [NO_AMOUNT]
    [both] = errors(guard("[issue_refund, cancel_order]", "amount <= 50"))
    assert "which tools 'issue_refund' (inputs: order_id) and 'cancel_order' (inputs: order_id) do not take" in both


def test_a_read_tool_may_be_guarded():
    """Reading someone's order is an action too: "authenticate before any lookup" is a guard on the lookup."""
    assert errors(guard("[lookup_order]", "order_id != ''")) == []


def test_customer_confirmed_is_only_for_guards():
    rule = "- {id: r, condition_text: c, action_text: a, is_hard_constraint: true, enforcement_expression: customer_confirmed}\n"
    assert errors(rule) == ["rules[0].enforcement_expression: name 'customer_confirmed' is not a declared variable"]


@pytest.mark.parametrize(("rule", "expected"), [
    (guard("[issue_refnd]"), "rules[0].guarded_tool_ids[0]: tool 'issue_refnd' does not exist; did you mean 'issue_refund'?"),
    (guard("[issue_refund]", is_hard_constraint="false"),
     "rules[0].guarded_tool_ids: only a hard constraint can guard a tool; set is_hard_constraint: true"),
    (guard("[issue_refund]", expression=None),
     ("rules[0].guarded_tool_ids: a guard needs an enforcement_expression, evaluated on each call's arguments "
      "before the tool runs")),
    (guard("[issue_refund]", expression="refund_amount <= ("), "rules[0].enforcement_expression: invalid expression:"),
])
def test_a_malformed_guard_is_an_error(rule, expected):
    found = errors(rule)
    assert len(found) == 1 and found[0].startswith(expected), found


def test_guard_errors_point_at_their_line():
    loaded = load(guard("[issue_refund]", "amount <= 50"))
    [problem] = [p for p in semantic_problems(loaded.config, loaded.raw) if p.path.startswith("rules")]
    text = HEAD + guard("[issue_refund]", "amount <= 50")
    assert problem.line == text.splitlines().index("  enforcement_expression: 'amount <= 50'") + 1


# --- warnings ----------------------------------------------------------------------------------
SUBJECTIVE = "- {id: tone, condition_text: c, action_text: be kind, is_hard_constraint: true, subjective: true}\n"


def warnings(rules: str, tail: str = "", model: str | None = None) -> list[Problem]:
    loaded = load(rules, tail)
    assert not [p for p in semantic_problems(loaded.config, loaded.raw) if p.path.startswith("rules")]
    return semantic_warnings(loaded.config, loaded.raw, model=model)


def test_a_subjective_hard_rule_without_a_judge_model_is_a_warning_not_an_error():
    [warning] = warnings(SUBJECTIVE, "enforcement: {unverifiable_subjective: fail_closed}\n")
    assert warning.severity == "warning" and warning.path == "rules[0].subjective" and warning.line
    assert warning.message == ("no judge model is configured (models.model or FOCAL_MODEL): this rule blocks every "
                               "answer it applies to (enforcement.unverifiable_subjective is fail_closed)")
    [marked] = warnings(SUBJECTIVE, "enforcement: {unverifiable_subjective: mark_unverified}\n")
    assert "never checked" in marked.message and "mark_unverified" in marked.message


def test_a_judge_that_is_off_is_warned_about_even_with_a_model():
    [warning] = warnings(SUBJECTIVE, "enforcement: {llm_judge_enabled: false}\n", model="openai/gpt-4o-mini")
    assert warning.message.startswith("the judge is off (enforcement.llm_judge_enabled: false): ")


def test_no_warning_when_a_model_is_named_or_the_rule_is_not_a_hard_subjective_one():
    assert warnings(SUBJECTIVE, "models: {model: openai/gpt-4o-mini}\n") == []
    assert warnings(SUBJECTIVE, model="openai/gpt-4o-mini") == []  # FOCAL_MODEL
    soft = "- {id: tone, condition_text: c, action_text: be kind, subjective: true}\n"
    assert warnings(soft) == []
    disabled = warnings(SUBJECTIVE.replace("subjective: true", "subjective: true, enabled: false"))
    assert [w for w in disabled if w.path.endswith(".subjective")] == []  # no judge warning for a rule that is off
    assert [w.path for w in disabled] == ["rules[0].enabled"]  # which is said instead
    assert len(warnings(SUBJECTIVE)) == 1
