"""The example agents under examples/: the retail agent loads cleanly and its tools work; the
broken agents report every problem they were written to contain."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal import expressions
from focal.adapters.python_tools import PythonToolRunner
from focal.config.loader import Problem, load_agent, load_agent_file
from focal.config.validate import declared_names, semantic_problems
from focal.errors import ExpressionError, ToolError
from focal.models.agent import AgentConfig, Scope, Tool
from focal.models.turn import ToolCallContext

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RETAIL = EXAMPLES / "retail" / "agent.yaml"
BROKEN = EXAMPLES / "broken"


def as_owner(arguments: dict) -> ToolCallContext:
    """The tools act on the authenticated customer's own orders: call them as the order's owner."""
    import json

    orders = json.loads((RETAIL.parent / "orders.json").read_text(encoding="utf-8"))
    owner = orders.get(str(arguments.get("order_id", "")).strip().upper(), {}).get("customer_id", "anonymous")
    return ToolCallContext(tenant_id="t", session_id="s", turn_id="1", customer_id=owner)


@pytest.fixture(scope="module")
def agent() -> AgentConfig:
    return load_agent(RETAIL)


@pytest.fixture()
def run(agent: AgentConfig):
    """Run a tool of the retail agent by id, with fresh tool state (refunds, address changes)."""
    runner = PythonToolRunner()
    reset = Tool(id="reset_state", entrypoint="tools.py:reset_state")
    runner.run_outside_turn(agent, reset, "t")

    def _run(tool_id: str, **arguments):
        tool = agent.tool(tool_id)
        assert tool is not None, tool_id
        return runner.run(agent, tool, arguments, as_owner(arguments))

    yield _run
    runner.run_outside_turn(agent, reset, "t")


def all_problems(path: Path) -> list[Problem]:
    loaded = load_agent_file(path)
    return loaded.problems + (semantic_problems(loaded.config, loaded.raw) if loaded.config else [])


# --- the retail agent -------------------------------------------------------------------------


def test_retail_agent_has_no_problems() -> None:
    assert all_problems(RETAIL) == []


def test_retail_agent_shape(agent: AgentConfig) -> None:
    assert agent.id == "retail"
    assert agent.name == "Acme Retail Support"
    assert len(agent.scenarios) >= 3
    assert len(agent.rules) >= 12
    hard = agent.global_hard_constraints()
    assert len(hard) >= 3
    assert all(r.enforcement_expression for r in hard)
    assert {r.id for r in hard} >= {"refund_cap", "no_competitors", "no_card_echo"}
    assert len({r.id for r in agent.rules}) == len(agent.rules)
    assert agent.enforcement.max_retries == 1
    for scenario in agent.scenarios:
        assert 8 <= len(scenario.entry_examples) <= 10, scenario.id
        assert all(step.instructions for step in scenario.steps), scenario.id
    for rule in agent.rules:
        assert rule.response_template, rule.id


def test_retail_scoped_rules(agent: AgentConfig) -> None:
    by_id = {r.id: r for r in agent.rules}
    assert by_id["refund_timing"].scope == Scope.SCENARIO and by_id["refund_timing"].scope_id == "refund"
    assert by_id["refund_destination"].scope == Scope.SCENARIO and by_id["refund_destination"].scope_id == "refund"
    assert by_id["find_order_number"].scope == Scope.STEP
    assert by_id["find_order_number"].scope_id == "refund.collect_order"
    assert by_id["shipped_address"].scope_id == "change_address"


def test_retail_templates_name_only_declared_variables(agent: AgentConfig) -> None:
    import string

    names = declared_names(agent)
    texts = [r.response_template or "" for r in agent.rules] + [r.fallback_text or "" for r in agent.rules]
    for scenario in agent.scenarios:
        for step in scenario.steps:
            texts += [step.response_template, step.confirmation_prompt, *(s.prompt for s in step.slots)]
    for text in texts:
        used = {field for _, field, _, _ in string.Formatter().parse(text) if field}
        assert used <= names, (text, used - names)


def test_price_match_names_no_competitor(agent: AgentConfig) -> None:
    competitors = agent.field("competitors_mentioned")
    assert competitors is not None
    text = (agent.rule("price_match").response_template or "").lower()
    assert not [c for c in competitors.allowed_values if c.lower() in text]


@pytest.mark.parametrize(
    ("rule_id", "compliant", "violating"),
    [
        (
            "refund_cap",
            [{"refund_amount": 30.0, "is_premium": False}, {"refund_amount": 50, "is_premium": False},
             {"refund_amount": 120.0, "is_premium": True}, {"refund_amount": 0, "is_premium": False}],
            [{"refund_amount": 75.0, "is_premium": False}, {"refund_amount": 50.01, "is_premium": False}],
        ),
        (
            "no_competitors",
            [{"competitors_mentioned": []}],
            [{"competitors_mentioned": ["Amazon"]}, {"competitors_mentioned": ["Best Buy", "eBay"]}],
        ),
        (
            "no_card_echo",
            [{"card_number_echoed": False}],
            [{"card_number_echoed": True}],
        ),
    ],
)
def test_global_hard_expressions(agent: AgentConfig, rule_id: str, compliant: list, violating: list) -> None:
    rule = agent.rule(rule_id)
    assert rule is not None and rule.enforcement_expression
    for variables in compliant:
        assert expressions.evaluate(rule.enforcement_expression, variables), variables
    for variables in violating:
        assert not expressions.evaluate(rule.enforcement_expression, variables), variables


def test_global_hard_expressions_need_their_variables(agent: AgentConfig) -> None:
    rule = agent.rule("refund_cap")
    assert rule is not None and rule.enforcement_expression
    with pytest.raises(ExpressionError):
        expressions.evaluate(rule.enforcement_expression, {})


# --- the retail tools -------------------------------------------------------------------------


def test_lookup_order(run) -> None:
    assert run("lookup_order", order_id="A1002") == {
        "found": True, "status": "delivered", "total": 75.0, "item": "Blue rain jacket",
    }
    assert run("lookup_order", order_id="A1004")["status"] == "processing"
    unknown = run("lookup_order", order_id="Z9999")
    assert unknown["found"] is False and unknown["status"] == "unknown"


def test_lookup_order_output_keys_match_tool_definition(agent: AgentConfig, run) -> None:
    for tool_id, args in [
        ("lookup_order", {"order_id": "A1001"}),
        ("check_refund_eligibility", {"order_id": "A1001"}),
        ("update_address", {"order_id": "A1004", "new_address": "1 Main St"}),
    ]:
        tool = agent.tool(tool_id)
        assert tool is not None
        assert set(run(tool_id, **args)) == set(tool.output), tool_id
        assert set(args) == set(tool.input), tool_id


@pytest.mark.parametrize("bad_id", ["1001", "AA1001", "A100", "A1001; drop", ""])
def test_tools_reject_malformed_order_ids(run, bad_id: str) -> None:
    with pytest.raises(ToolError, match="invalid order id"):
        run("lookup_order", order_id=bad_id)


def test_refund_eligibility(run) -> None:
    assert run("check_refund_eligibility", order_id="A1001")["eligible"] is True  # delivered
    assert run("check_refund_eligibility", order_id="A1003")["eligible"] is True  # shipped
    processing = run("check_refund_eligibility", order_id="A1004")
    assert processing["eligible"] is False and processing["reason"]
    assert run("check_refund_eligibility", order_id="A1005")["eligible"] is False  # cancelled
    assert run("check_refund_eligibility", order_id="Z9999")["eligible"] is False


def test_issue_refund_once_only(run) -> None:
    assert run("issue_refund", order_id="A1006") == {"refund_reference": "RF-A1006", "amount": 49.99}
    with pytest.raises(ToolError, match="already refunded"):
        run("issue_refund", order_id="A1006")
    after = run("check_refund_eligibility", order_id="A1006")
    assert after["eligible"] is False and "already refunded" in after["reason"]


def test_issue_refund_refuses_ineligible_orders(run) -> None:
    with pytest.raises(ToolError):
        run("issue_refund", order_id="A1004")
    with pytest.raises(ToolError):
        run("issue_refund", order_id="A1005")


def _keyed(agent: AgentConfig, tool_id: str, key: str | None, **arguments):
    """Run a retail tool as the engine does for a side-effecting call: with its idempotency key."""
    tool = agent.tool(tool_id)
    assert tool is not None and tool.side_effect, tool_id
    context = as_owner(arguments).model_copy(update={"idempotency_key": key})
    return PythonToolRunner().run(agent, tool, arguments, context)


def test_a_repeated_key_returns_the_first_refund_without_refunding_again(agent: AgentConfig, run) -> None:
    first = _keyed(agent, "issue_refund", "key-1", order_id="A1006")
    assert first == {"refund_reference": "RF-A1006", "amount": 49.99}
    assert _keyed(agent, "issue_refund", "key-1", order_id="A1006") == first  # a replay, not "already refunded"
    with pytest.raises(ToolError, match="already refunded"):  # a new call (another key) is refused as before
        _keyed(agent, "issue_refund", "key-2", order_id="A1006")
    PythonToolRunner().run_outside_turn(agent, Tool(id="reset_state", entrypoint="tools.py:reset_state"), "t")
    assert _keyed(agent, "issue_refund", "key-1", order_id="A1001")["refund_reference"] == "RF-A1001"  # reset forgot key-1


def test_concurrent_calls_with_one_key_refund_once(agent: AgentConfig, run) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda _: _keyed(agent, "issue_refund", "same", order_id="A1003"), range(8)))
    assert all(r == {"refund_reference": "RF-A1003", "amount": results[0]["amount"]} for r in results)


def test_a_repeated_key_returns_the_first_address_change(agent: AgentConfig, run) -> None:
    first = _keyed(agent, "update_address", "addr-1", order_id="A1004", new_address="1 Main St")
    assert first["updated"] is True and "1 Main St" in first["reason"]
    assert _keyed(agent, "update_address", "addr-1", order_id="A1004", new_address="1 Main St") == first
    second = _keyed(agent, "update_address", "addr-2", order_id="A1004", new_address="2 Oak Ave")
    assert "2 Oak Ave" in second["reason"]  # another key acts again
    assert _keyed(agent, "update_address", None, order_id="A1004", new_address="3 Elm") != \
        _keyed(agent, "update_address", None, order_id="A1004", new_address="4 Fir")  # no key: no replay


def test_update_address(run) -> None:
    done = run("update_address", order_id="A1004", new_address="  5 Pine Lane,   Boston, MA 02108 ")
    assert done["updated"] is True and "5 Pine Lane, Boston, MA 02108" in done["reason"]
    shipped = run("update_address", order_id="A1003", new_address="5 Pine Lane")
    assert shipped["updated"] is False and "shipped" in shipped["reason"]
    with pytest.raises(ToolError):
        run("update_address", order_id="A1004", new_address="   ")


def test_tools_never_write_orders_file(run) -> None:
    orders = EXAMPLES / "retail" / "orders.json"
    before = orders.read_bytes()
    run("issue_refund", order_id="A1001")
    run("update_address", order_id="A1004", new_address="9 Birch Road")
    assert orders.read_bytes() == before


# --- the broken agents ------------------------------------------------------------------------


def _has(problems: list[Problem], path: str, message: str, *, prefix: bool = False) -> bool:
    return any(p.path == path and (p.message.startswith(message) if prefix else p.message == message) for p in problems)


def test_broken_agent_reports_every_problem() -> None:
    problems = all_problems(BROKEN / "agent.yaml")
    expected = [
        ("rules[0].enforcement_expression", "name 'refund_amt' is not a declared variable; did you mean 'refund_amount'?"),
        ("rules[1].id", "duplicate id 'greeting'"),
        ("rules[2].id", "duplicate id 'greeting'"),
        ("rules[3].scope_id", "scenario 'billing' does not exist"),
        ("rules[4].attached_tool_ids[0]", "tool 'send_voucher' does not exist"),
        ("scenarios[0].entry_step_id", "step 'start' does not exist in scenario 'refund'"),
        ("scenarios[0].steps[0].transitions[0].target", "step 'confirm' does not exist in scenario 'refund'"),
        ("rules[6].enforcement_expression", ("guard reads 'amount', which tool 'lookup_order' does not take "
                                             "(its inputs: order_id) and no field declares")),
    ]
    for path, message in expected:
        assert _has(problems, path, message), (path, message, [str(p) for p in problems])
    for path in ("rules[5].enforcement_expression", "scenarios[0].steps[0].transitions[1].when"):
        assert _has(problems, path, "invalid expression: syntax error", prefix=True), (path, [str(p) for p in problems])
    # every problem points at a line of the file
    assert all(p.line for p in problems), [str(p) for p in problems]
    by_path = {p.path: p.line for p in problems}
    assert by_path["rules[0].enforcement_expression"] == 43
    assert by_path["scenarios[0].entry_step_id"] == 24
    assert by_path["rules[6].enforcement_expression"] == 69
    assert not [p for p in problems if "customer_confirmed" in p.message]  # the guard's built-in name


def test_broken_agent_does_not_load() -> None:
    from focal.config.loader import AgentConfigInvalid

    with pytest.raises(AgentConfigInvalid) as info:
        load_agent(BROKEN / "agent.yaml")
    assert len(info.value.problems) == 11


def test_out_of_range_threshold() -> None:
    problems = all_problems(BROKEN / "bad_threshold.yaml")
    assert _has(problems, "navigation.stickiness_boost", "Input should be less than or equal to 1")
    assert next(p.line for p in problems if p.path == "navigation.stickiness_boost") == 14


def test_yaml_syntax_error() -> None:
    problems = all_problems(BROKEN / "bad_yaml.yaml")
    assert len(problems) == 1
    assert problems[0].path == "<yaml>"
    assert problems[0].message.startswith("YAML syntax error")
    assert problems[0].line == 7


def test_validator_checks_tool_arguments_and_template_placeholders(tmp_path: Path) -> None:
    text = (RETAIL).read_text(encoding="utf-8")
    text = text.replace("Order {order_id} is {order_status}", "Order {order_idd} is {order_status}", 1)
    bad = tmp_path / "agent.yaml"
    bad.write_text(text, encoding="utf-8")
    (tmp_path / "tools.py").write_text((RETAIL.parent / "tools.py").read_text(encoding="utf-8"), encoding="utf-8")
    problems = all_problems(bad)
    assert any(p.message == "placeholder '{order_idd}' is not a declared variable; did you mean 'order_id'?" for p in problems)
