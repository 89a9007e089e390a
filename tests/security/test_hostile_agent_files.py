"""Hostile agent files (a red team's findings): each must end in a clear problem or a fail-closed result.

An agent file is untrusted input: whatever it says must never hang a turn or `focal validate`, crash with
a traceback, or be read differently from how it is written. The cases, each built in tmp_path:
1. an enforcement expression that builds a huge list by repetition (`[[1]*99999]*99999`);
2. a field `pattern` that backtracks catastrophically on the customer's message;
3. a key written twice in one mapping (the second silently replaced the first);
4. a 5000-digit number and a regex repetition count past what `re` can hold;
5. a tool file that is a FIFO (reading it blocked forever);
6. a tool file nested too deeply for Python's parser (MemoryError / RecursionError).
None of these tests times anything: a regression hangs the test instead of failing it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

# Imported here, not under a test's capsys: its Powertools logger keeps the stdout it finds at import.
import handlers.agents as agents_handler
from focal import ast_parse, expressions
from focal.adapters.python_tools import PythonToolRunner, read_regular_file
from focal.config.loader import AgentConfigInvalid, load_agent, load_agent_file, parse_agent_text
from focal.enforcement.deterministic import deterministic
from focal.enforcement.grounding import extract_claims, id_patterns
from focal.errors import ExpressionError, ToolError
from focal.main import main
from focal.models.agent import ProfileFieldDefinition, Tool
from focal.sensing.extraction import PATTERN_TEXT_LIMIT, FieldPattern, PatternUnread, extract

AGENT = """\
id: guardrails
name: Streamline Support
profile_field_definitions:
  - field_name: discount_offered
    field_type: percentage
    extraction_hints: [discount, "off"]
    sources: [response]
    default: 0
  - field_name: ref
    field_type: id
    pattern: '{pattern}'
    sources: [message]
rules:
  - id: discount_cap
    condition_text: The reply offers a discount
    action_text: Never offer more than a 20% discount.
    scope: GLOBAL
    is_hard_constraint: true
    enforcement_expression: {expression}
    fallback_text: I can offer up to 20% off your next month.
enforcement:
  max_retries: {retries}
"""

TOOL_AGENT = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: command, field_type: string}
tools:
  - id: run
    entrypoint: 'tools.py:f'
    input: {command: {type: string}}
"""

CATASTROPHIC = r"(.*,){30}x"  # backtracks past any timeout on a line of commas, even in `regex`


def agent_text(expression: str = "discount_offered <= 20", retries: str = "1", pattern: str = r"\bR\d{4}\b") -> str:
    return AGENT.format(expression=expression, retries=retries, pattern=pattern)


def line_of(text: str, start: str, nth: int = 1) -> int:
    """The line number of the `nth` line whose stripped text starts with `start`."""
    found = [n for n, line in enumerate(text.splitlines(), 1) if line.strip().startswith(start)]
    return found[nth - 1]


def validate(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["validate", str(path)])
    return code, capsys.readouterr().out


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "agents", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agents"


class NothingMayBeStored:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a refused agent reached deps.{name}")


def publish(monkeypatch: pytest.MonkeyPatch, body: str) -> tuple[int, dict[str, Any]]:
    deps = type("Deps", (), {"configs": NothingMayBeStored(), "rule_index": NothingMayBeStored(),
                             "embedder": NothingMayBeStored()})()
    monkeypatch.setattr(agents_handler, "deps_from_env", lambda: deps)
    event = {
        "resource": "/v1/agents/{agent_id}", "path": "/v1/agents/guardrails", "httpMethod": "PUT",
        "headers": {"content-type": "application/yaml"}, "multiValueHeaders": {}, "queryStringParameters": None,
        "multiValueQueryStringParameters": None, "pathParameters": {"agent_id": "guardrails"}, "stageVariables": None,
        "isBase64Encoded": False, "body": body,
        "requestContext": {"resourcePath": "/v1/agents/{agent_id}", "httpMethod": "PUT", "stage": "live",
                           "requestId": "r1", "authorizer": {"tenant_id": "acme", "scopes": "publish"}},
    }
    response = agents_handler.handler(event, Ctx())
    return response["statusCode"], json.loads(response["body"])


def refused_everywhere(tmp_path: Path, text: str, path: str, reason: str, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`focal validate` names the file, the field and the line; loading (`focal test`) and publishing refuse it."""
    agent = tmp_path / "agent.yaml"
    agent.write_text(text, encoding="utf-8")
    code, out = validate(agent, capsys)
    assert code == 1, out
    assert f"{agent}: 1 problem(s)" in out
    problem = next(line.strip() for line in out.splitlines() if line.startswith(f"  {path}: "))
    assert reason in problem, out
    with pytest.raises(AgentConfigInvalid) as invalid:
        load_agent(agent)
    assert any(p.path == path and reason in p.message for p in invalid.value.problems)
    status, body = publish(monkeypatch, text)
    assert status == 400 and body["error"]["code"] == "invalid_agent", body
    assert any(p.startswith(f"{path}: ") and reason in p for p in body["error"]["problems"]), body


# --- 1. expressions that build huge lists -------------------------------------------------------------

TOO_MANY = "a list or tuple of more than 10000 elements (nested ones counted) is not allowed"


@pytest.mark.parametrize("expression", [
    "discount_offered <= 20 and len(min([[1]*99999]*99999)) > 0",
    "discount_offered <= 20 and [[1]*99999]*99999 != [[1]*99999]*99999",
    "discount_offered <= 20 and not ([2] in [[1]*99999]*99999)",
    "len([[1]*10000]*10000) > discount_offered",
    "len([1]*100000000) > discount_offered",
    "len((1, 2) * 5001 + [3]) > discount_offered",
])
def test_a_list_built_from_literals_past_the_limit_is_refused_by_validate_and_publish(
        expression, tmp_path, capsys, monkeypatch):
    text = agent_text(expression)
    refused_everywhere(tmp_path, text, "rules[0].enforcement_expression", f"invalid expression: {TOO_MANY}",
                       capsys, monkeypatch)
    _, out = validate(tmp_path / "agent.yaml", capsys)
    assert f"(line {line_of(text, 'enforcement_expression:')})" in out


@pytest.mark.parametrize("expression, variables", [
    ("discount_offered <= 20 and len([[1]*100]*(10**4)) > 0", {"discount_offered": 15}),  # counted when built
    ("len(codes * 99999) > 0", {"codes": [[1] * 100]}),
    ("len(codes + codes) > 0", {"codes": [[1] * 100] * 60}),
    ("len([codes, codes]) > 0", {"codes": [[1] * 100] * 60}),
])
def test_a_list_built_at_run_time_past_the_limit_fails_closed(expression, variables):
    with pytest.raises(ExpressionError, match=TOO_MANY.replace("(", r"\(").replace(")", r"\)")):
        expressions.evaluate(expression, variables)


def test_the_rule_is_cannot_verify_when_its_list_grows_past_the_limit():
    agent = parse_agent_text(agent_text("discount_offered <= 20 and len([[1]*100]*(10**4)) > 0")).config
    assert agent is not None  # only running it can tell
    [violation] = deterministic(agent.rules, {"discount_offered": 15})
    assert violation.rule_id == "discount_cap" and violation.reason == f"cannot verify: {TOO_MANY}"


def test_ordinary_lists_still_evaluate():
    assert expressions.evaluate("tier in ['gold', 'silver']", {"tier": "gold"}) is True
    assert expressions.evaluate("[1, 2] * 3 == [1, 2, 1, 2, 1, 2]", {}) is True
    assert expressions.evaluate("len([0] * 10000) == 10000", {}) is True
    assert expressions.evaluate("len(codes + ['x']) == 4", {"codes": ["a", "b", "c"]}) is True
    assert expressions.evaluate("round(amount, 2) == 2.57 and amount % 1 > 0", {"amount": 2.567}) is True


@pytest.mark.parametrize("expression, reason", [
    ("round(discount_offered, -10**100) == 0", "round() takes at most 100 digits"),  # 10**(10**100) otherwise
    ("len('%0999999999d' % discount_offered) > 0", "'%' formatting of text is not allowed"),  # a gigabyte of text
])
def test_numbers_and_text_that_would_exhaust_a_turn_fail_closed(expression, reason):
    with pytest.raises(ExpressionError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        expressions.evaluate(expression, {"discount_offered": 15})


# --- 2. field patterns that backtrack ------------------------------------------------------------------

def field(pattern: str, field_type: str = "id") -> ProfileFieldDefinition:
    return ProfileFieldDefinition(field_name="ref", field_type=field_type, pattern=pattern, sources=["message"])


def test_the_red_teams_pattern_reads_the_message_and_returns():
    assert extract(field("(x+x+)+y"), "x" * 42) is None
    assert extract(field("(x+x+)+y"), "x" * 42 + "y") == "X" * 42 + "Y"


@pytest.mark.parametrize("field_type", ["id", "string", "boolean"])
def test_a_pattern_that_runs_out_of_time_reads_nothing_not_even_absent(field_type):
    assert extract(field(CATASTROPHIC, field_type), "," * 200) is None  # a boolean would otherwise say False
    assert extract(field(r"\bR\d{4}\b", field_type), "," * 200) in (None, False)  # an ordinary miss


def test_a_response_check_whose_pattern_runs_out_of_time_is_cannot_verify_not_passed():
    from focal.enforcement.reading import apply_reading
    from focal.enforcement.variables import draft_variables
    from focal.models.agent import AgentConfig, Rule

    echoed = ProfileFieldDefinition(field_name="echoed", field_type="boolean", pattern=CATASTROPHIC,
                                    sources=["response"], default=False)
    rule = Rule(id="no_echo", condition_text="a number is echoed", action_text="Never echo it.",
                is_hard_constraint=True, enforcement_expression="not echoed")
    agent = AgentConfig(id="a", name="A", profile_field_definitions=[echoed], rules=[rule])
    variables: dict[str, Any] = {"echoed": False}
    reading = draft_variables(agent, "," * 200, {"echoed"}, known=dict(variables))
    rules, violations = apply_reading(agent, [rule], variables, reading)
    assert [v.rule_id for v in violations] == ["no_echo"] and "cannot verify" in violations[0].reason
    assert rules == []


def test_a_pattern_is_given_a_bounded_text_and_past_it_reads_nothing():
    long = "word " * (PATTERN_TEXT_LIMIT // 5) + "R1234"
    assert extract(field(r"\bR\d{4}\b", "boolean"), long) is None  # not False: the end was never read
    assert extract(field(r"\bword\b", "boolean"), long) is True  # found before the cut


def test_grounding_leaves_an_id_pattern_that_runs_out_of_time_to_the_built_in_ones():
    agent = parse_agent_text(agent_text(pattern=CATASTROPHIC)).config
    assert agent is not None
    text = "Your code is AB-1234 " + "," * 200
    [pattern] = id_patterns(agent)
    with pytest.raises(PatternUnread):
        pattern.finditer(text)
    assert [(c.kind, c.key) for c in extract_claims(text, [pattern])] == [("id", "AB-1234")]


def test_a_conversation_with_a_backtracking_pattern_on_the_message_completes(tmp_path, capsys, monkeypatch):
    unread: list[str] = []
    search = FieldPattern.search

    def recorded(self: FieldPattern, text: str) -> Any:
        try:
            return search(self, text)
        except PatternUnread as exc:
            unread.append(str(exc))
            raise
    monkeypatch.setattr(FieldPattern, "search", recorded)
    (tmp_path / "agent.yaml").write_text(agent_text(pattern=CATASTROPHIC), encoding="utf-8")
    (tmp_path / "tests.yaml").write_text(
        "conversations:\n  - name: backtracking\n    turns:\n      - user: '" + "," * 200 + "'\n", encoding="utf-8")
    assert main(["test", str(tmp_path / "agent.yaml"), str(tmp_path / "tests.yaml")]) == 0, capsys.readouterr().out
    assert unread and all(reason.startswith("pattern gave no answer within") for reason in unread)  # the sensor met it


def test_a_repetition_count_past_what_re_holds_is_a_problem_not_a_traceback(tmp_path, capsys, monkeypatch):
    refused_everywhere(tmp_path, agent_text(pattern="a{4294967295}"), "profile_field_definitions[1].pattern",
                       "invalid regular expression: the repetition number is too large", capsys, monkeypatch)


@pytest.mark.parametrize("pattern, reason", [
    ("(" * 499 + ")" * 499, "invalid regular expression: groups nested too deeply"),
    ("a" * 1001, "the pattern is 1001 characters long; the limit is 1000"),
])
def test_a_pattern_too_deep_or_too_long_is_a_problem(pattern, reason, tmp_path, capsys, monkeypatch):
    refused_everywhere(tmp_path, agent_text(pattern=pattern), "profile_field_definitions[1].pattern", reason,
                       capsys, monkeypatch)


# --- 3. duplicate keys -----------------------------------------------------------------------------------

def test_a_key_written_twice_is_refused_naming_the_key_and_both_lines(tmp_path, capsys, monkeypatch):
    text = agent_text().replace("    fallback_text:", "    enforcement_expression: discount_offered <= 100\n    fallback_text:")
    first, again = line_of(text, "enforcement_expression:"), line_of(text, "enforcement_expression:", 2)
    reason = f"duplicate key 'enforcement_expression' (lines {first} and {again})"
    refused_everywhere(tmp_path, text, "rules[0].enforcement_expression", reason, capsys, monkeypatch)
    [problem] = parse_agent_text(text).problems
    assert problem.line == again


def test_duplicates_are_found_in_flow_mappings_and_at_the_top_but_a_merge_may_be_overridden():
    text = agent_text().replace("enforcement:\n  max_retries: 1", "enforcement: {max_retries: 1, max_retries: 0}")
    line = line_of(text, "enforcement:")
    [problem] = parse_agent_text(text).problems
    assert problem.path == "enforcement.max_retries"
    assert problem.message.startswith(f"duplicate key 'max_retries' (lines {line} and {line})")
    text = agent_text() + "name: Other\n"
    [problem] = parse_agent_text(text).problems
    assert problem.path == "name" and f"(lines 2 and {line_of(text, 'name: Other')})" in problem.message
    merged = parse_agent_text(agent_text().replace("  max_retries: 1", "  <<: {max_retries: 5}\n  max_retries: 1"))
    assert merged.problems == [] and merged.config is not None and merged.config.enforcement.max_retries == 1


# --- 4. values YAML cannot construct ---------------------------------------------------------------------

def test_a_five_thousand_digit_number_is_a_problem_on_its_field(tmp_path, capsys, monkeypatch):
    text = agent_text(retries="9" * 5000)
    refused_everywhere(tmp_path, text, "enforcement.max_retries", "this number has 5000 digits; at most 4300 can be read",
                       capsys, monkeypatch)
    [problem] = parse_agent_text(text).problems
    assert problem.line == line_of(text, "max_retries:")


def test_an_impossible_date_is_a_problem_on_its_field():
    [problem] = parse_agent_text(agent_text().replace("name: Streamline Support", "name: 2024-13-45")).problems
    assert problem.path == "name" and problem.message.startswith("'2024-13-45' cannot be read as a date: ")


# --- 5. tool files that are not regular files ------------------------------------------------------------

def test_a_fifo_as_the_tool_file_is_refused_without_reading_it(tmp_path, capsys, monkeypatch):
    os.mkfifo(tmp_path / "tools.py")  # no writer: a plain read would block forever
    agent = tmp_path / "agent.yaml"
    agent.write_text(TOOL_AGENT, encoding="utf-8")
    code, out = validate(agent, capsys)
    assert code == 1 and "tools[0].entrypoint: 'tools.py' is not a regular .py file (line 7)" in out, out
    with pytest.raises(OSError, match="not a regular file"):
        read_regular_file(tmp_path / "tools.py", 1000)
    config = load_agent_file(agent).config
    assert config is not None
    with pytest.raises(ToolError, match="refused"):
        PythonToolRunner().run(config, Tool(id="run", entrypoint="tools.py:f", input={"command": {}}), {"command": "x"})


def test_a_fifo_or_an_oversized_file_as_the_agent_file_is_a_problem(tmp_path):
    os.mkfifo(tmp_path / "agent.yaml")
    [problem] = load_agent_file(tmp_path).problems
    assert problem.message == "cannot read file: not a regular file"
    big = tmp_path / "big.yaml"
    big.write_bytes(b"#" * 1_000_001)
    [problem] = load_agent_file(big).problems
    assert problem.message == "cannot read file: 1000001 bytes, over the limit of 1000000"


def test_an_oversized_tool_file_is_refused_without_parsing_it(tmp_path, capsys):
    (tmp_path / "tools.py").write_text("def f(command=None):\n    return {}\n" + "#" * 1_000_000 + "\n", encoding="utf-8")
    (tmp_path / "agent.yaml").write_text(TOOL_AGENT, encoding="utf-8")
    code, out = validate(tmp_path / "agent.yaml", capsys)
    assert code == 1 and "cannot read 'tools.py': " in out and "over the limit of 1000000" in out, out


# --- 6. tool files nested too deeply to parse ------------------------------------------------------------

def test_a_tool_file_nested_too_deeply_cannot_be_parsed_and_says_so(tmp_path, capsys):
    (tmp_path / "tools.py").write_text("def f(command=None):\n    return {}\nx=" + "-" * 200_000 + "1\n", encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(TOOL_AGENT, encoding="utf-8")
    code, out = validate(agent, capsys)
    assert code == 1 and "tools[0].entrypoint: 'tools.py' cannot be parsed: nested too deeply (line 7)" in out, out
    config = load_agent_file(agent).config
    assert config is not None
    with pytest.raises(ToolError, match="'tools.py' cannot be parsed: nested too deeply"):
        PythonToolRunner().run(config, Tool(id="run", entrypoint="tools.py:f", input={"command": {}}), {"command": "x"})
    with pytest.raises(SyntaxError, match="nested too deeply"):
        ast_parse.parse("x=" + "-" * 200_000 + "1")
    assert ast_parse.parse("x = 1").body  # the parser still works afterwards


@pytest.mark.parametrize("text", ["Too long: {max_length:>900000000}", "{kinds.__class__.__init__}",
                                  "{max_length!r} characters", "{0}", "{ max_length }", "at most {max_length} {"])
def test_a_refusal_message_with_anything_but_plain_placeholders_is_refused_at_load(text):
    """Refusal messages are filled as plain text; a format spec, attribute or index could make one turn allocate
    gigabytes or show the customer Python internals, so the file is refused, naming the field."""
    body = f"id: a\nname: a\npre_validation:\n  refusal_messages:\n    too_long: {json.dumps(text)}\n"
    loaded = parse_agent_text(body, "agent.yaml")
    assert loaded.config is None
    assert any("refusal_messages.too_long" in str(p) for p in loaded.problems), loaded.problems


def test_plain_placeholders_in_a_refusal_message_are_filled_as_text():
    from focal.models.agent import AgentConfig
    from focal.sensing.prevalidation import blocking_failures, prevalidate, refusal_text

    agent = AgentConfig(id="a", name="a", pre_validation={
        "max_length": 40, "refusal_messages": {"too_long": "{max_length} at most ({max_length})"}})
    assert refusal_text(agent, blocking_failures(prevalidate(agent, "word " * 20))) == "40 at most (40)"
