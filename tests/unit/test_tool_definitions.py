"""Tool definitions: each kind names its own fields, and `focal validate` explains what is wrong
with an http or lambda tool at the exact field path."""

from __future__ import annotations

import textwrap

import pytest

from focal.config.loader import parse_agent_text
from focal.config.validate import semantic_problems
from focal.models.agent import Tool
from focal.tool_templates import bad_secret_references, fill_body, fill_url, secret_names

HEAD = """\
id: shop
name: Shop
profile_field_definitions:
  - {field_name: order_id, field_type: id}
  - {field_name: note, field_type: string}
  - {field_name: order_status, field_type: string}
tools:
"""


def problems(tools: str) -> list[str]:
    loaded = parse_agent_text(HEAD + textwrap.indent(textwrap.dedent(tools), "  "))
    found = list(loaded.problems)
    if loaded.config is not None:
        found += semantic_problems(loaded.config, loaded.raw)
    return [f"{p.path}: {p.message}" for p in found]


def test_well_formed_tools_of_every_kind_have_no_problems():
    assert problems("""
        - id: status_http
          kind: http
          method: POST
          url: https://api.example.com/orders/{order_id}/status
          body: {order: '{order_id}', memo: 'note: {note}', channel: chat}
          headers: {Authorization: 'Bearer ${secret:store/api-key}'}
          input: {order_id: {type: id}, note: {type: string, required: false}}
          output: {status: order_status}
          retries: 2
        - id: status_lambda
          kind: lambda
          function: arn:aws:lambda:eu-west-1:123456789012:function:store-status:live
          input: {order_id: {type: id}}
          retries: 1
        - id: refund
          kind: http
          method: POST
          url: https://api.example.com/refunds
          side_effect: true
          idempotent: true
          retries: 3
    """) == []


@pytest.mark.parametrize(("tool", "expected"), [
    ("{id: t, kind: http}", "tools[0].url: a tool of kind 'http' needs 'url'"),
    ("{id: t, kind: lambda}", "tools[0].function: a tool of kind 'lambda' needs 'function'"),
    ("{id: t}", "tools[0].entrypoint: a tool of kind 'python' needs 'entrypoint'"),
    ("{id: t, kind: http, url: 'https://x.io', entrypoint: 'tools.py:f'}",
     "tools[0].entrypoint: 'entrypoint' is only for tools of kind 'python', not 'http'"),
    ("{id: t, kind: lambda, function: f, url: 'https://x.io'}",
     "tools[0].url: 'url' is only for tools of kind 'http', not 'lambda'"),
    ("{id: t, entrypoint: 'tools.py:f', headers: {A: b}}",
     "tools[0].headers: 'headers' is only for tools of kind 'http', not 'python'"),
    ("{id: t, entrypoint: 'tools.py:f', retries: 1}",
     "tools[0].retries: 'retries' is only for tools of kind 'http' and 'lambda', not 'python'"),
    ("{id: t, kind: http, url: 'https://x.io', retries: 4}", "tools[0].retries: Input should be less than or equal to 3"),
    ("{id: t, kind: http, url: 'https://x.io', method: FETCH}",
     "tools[0].method: Input should be 'GET', 'POST', 'PUT', 'PATCH' or 'DELETE'"),
])
def test_the_schema_names_the_field_a_kind_needs_or_does_not_take(tool, expected):
    assert expected in problems(f"- {tool}\n")


@pytest.mark.parametrize(("tool", "expected"), [
    ("{id: t, kind: http, url: 'ftp://x.io/a'}",
     "tools[0].url: expected an absolute http:// or https:// URL with a fixed host (no placeholder in the host)"),
    ("{id: t, kind: http, url: 'https://{order_id}.x.io/a', input: {order_id: {}}}",
     "tools[0].url: expected an absolute http:// or https:// URL with a fixed host (no placeholder in the host)"),
    ("{id: t, kind: http, url: 'https://x.io/orders/{order}'}",
     "tools[0].url: placeholder '{order}' is not an input of this tool"),
    ("{id: t, kind: http, url: 'https://x.io/{note}', input: {note: {required: false}}}",
     "tools[0].url: placeholder '{note}' names an optional input; url placeholders must be required"),
    ("{id: t, kind: http, url: 'https://x.io/?key=${secret:k}'}",
     "tools[0].url: secrets are only allowed in headers, write '${secret:NAME}' in a header value"),
    ("{id: t, kind: http, method: POST, url: 'https://x.io', body: {a: {b: '{nope}'}}}",
     "tools[0].body.a.b: placeholder '{nope}' is not an input of this tool"),
    ("{id: t, kind: http, url: 'https://x.io', headers: {X-Key: '${secrets:k}'}}",
     "tools[0].headers.X-Key: invalid secret reference '${secrets:k}'; write '${secret:NAME}' (letters, digits, _ . / -)"),
    ("{id: t, kind: http, url: 'https://x.io', headers: {X-Key: '${secret:}'}}",
     "tools[0].headers.X-Key: invalid secret reference '${secret:}'; write '${secret:NAME}' (letters, digits, _ . / -)"),
    ("{id: t, kind: http, url: 'https://x.io', headers: {X-Order: '{order_id}'}, input: {order_id: {}}}",
     "tools[0].headers.X-Order: header values take constants and '${secret:NAME}' only, not '{argument}'"),
    ("{id: t, kind: lambda, function: 'not a name!'}",
     "tools[0].function: expected a function name, 'name:alias' or a function ARN"),
    ("{id: t, kind: http, method: POST, url: 'https://x.io', side_effect: true, retries: 2}",
     "tools[0].retries: a side_effect tool is never retried unless it is declared idempotent: true"),
    ("{id: t, kind: http, url: 'https://x.io/{ghost}', input: {ghost: {}}}",
     "tools[0].input.ghost: argument 'ghost' is not a declared variable, so it can never be filled; "
     "map it to one with arguments: {ghost: <variable>}"),
    ("{id: t, entrypoint: 'no_colon'}",
     "tools[0].entrypoint: expected 'file.py:function' (a file in the agent's folder)"),
])
def test_validate_explains_each_problem_at_its_field_path(tool, expected):
    assert expected in problems(f"- {tool}\n")


def test_every_problem_of_a_tool_is_reported_at_once():
    found = problems("""
        - id: t
          kind: http
          url: 'https://x.io/{a}/{b}'
          headers: {K: '${oops}'}
    """)
    assert len(found) == 3, found


def test_python_tools_keep_working_without_a_kind():
    tool = Tool(id="t", entrypoint="tools.py:f")
    assert tool.kind.value == "python" and tool.http_method == "GET" and tool.may_retry


def test_url_placeholders_are_escaped_whole_and_body_values_keep_their_type():
    url, used = fill_url("https://x.io/o/{a}?q={b}", {"a": "x/y z", "b": True})
    assert url == "https://x.io/o/x%2Fy%20z?q=true" and used == {"a", "b"}
    assert fill_body({"n": "{n}", "t": "n={n}", "c": 3, "gone": "{missing}"}, {"n": 2.5}) == {"n": 2.5, "t": "n=2.5", "c": 3}
    assert secret_names("Bearer ${secret:a/b} ${secret:c}") == ["a/b", "c"]
    assert bad_secret_references("${secret:ok} ${env:HOME} ${secret:bad name}") == ["${env:HOME}", "${secret:bad name}"]


def test_every_check_of_a_tool_definition_in_the_order_validate_reports_them():
    """One http tool wrong in each way a tool can be, and a lambda tool: each problem at its path, in order."""
    text = HEAD.replace("tools:\n", "  - {field_name: plan, field_type: enum}\ntools:\n") + textwrap.indent(textwrap.dedent("""\
        - id: t
          kind: http
          method: POST
          url: 'http://{host}/x/{a}/{b}?k=${secret:k}'
          body: {x: '{ghost}', y: '${secret:key}', z: '{a}'}
          headers: {K: '${secret:jwt_secret} {a} ${oops}', L: '${secret:Customer_Token_Secret}'}
          arguments: {nope: order_id, a: 'order_id ==', note: "'x'"}
          input: {a: {type: string}, b: {type: string, required: false}, note: {type: enum}, plan: {type: enum},
                  status: {type: enum}}
          output: {s: order_statu}
          side_effect: true
          retries: 1
        - id: l
          kind: lambda
          function: 'bad name'
    """), "  ")
    loaded = parse_agent_text(text)
    assert loaded.config is not None, loaded.problems
    found = [(p.path, p.severity, p.message) for p in semantic_problems(loaded.config, loaded.raw)
             if p.path.startswith("tools")]
    assert found == [
        ("tools[0].arguments.nope", "error", "'nope' is not an input of this tool; did you mean 'note'?"),
        ("tools[0].arguments.a", "error", "invalid expression: syntax error: invalid syntax (in 'order_id ==')"),
        ("tools[0].input.b", "error", "argument 'b' is not a declared variable, so it can never be filled; map it to one "
         "with arguments: {b: <variable>}"),
        ("tools[0].input.plan", "warning", "argument 'plan' is an enum, but field 'plan' lists no allowed_values, so any "
         "text passes; list the values on the field"),
        ("tools[0].input.status", "error", "argument 'status' is not a declared variable, so it can never be filled; map it "
         "to one with arguments: {status: <variable>}"),
        ("tools[0].output.s", "error", "output 's' is mapped to 'order_statu', which is not a declared field; did you mean "
         "'order_status'? (no tool's output fills that field)"),
        ("tools[0].url", "error", "expected an absolute http:// or https:// URL with a fixed host (no placeholder in the host)"),
        ("tools[0].url", "error", "secrets are only allowed in headers, write '${secret:NAME}' in a header value"),
        ("tools[0].url", "error", "placeholder '{host}' is not an input of this tool"),
        ("tools[0].url", "error", "placeholder '{b}' names an optional input; url placeholders must be required"),
        ("tools[0].body.x", "error", "placeholder '{ghost}' is not an input of this tool"),
        ("tools[0].body.y", "error", "'${secret:key}': secrets are only filled in headers; in a body it would be sent as "
         "this literal text (write '${secret:NAME}' in a header value)"),
        ("tools[0].headers.K", "error", "invalid secret reference '${oops}'; write '${secret:NAME}' (letters, digits, _ . / -)"),
        ("tools[0].headers.K", "error", "header values take constants and '${secret:NAME}' only, not '{argument}'"),
        ("tools[0].headers.L", "error", "secret 'Customer_Token_Secret' signs customer tokens and is never sent to a tool"),
        ("tools[0].retries", "error", "a side_effect tool is never retried unless it is declared idempotent: true"),
        ("tools[1].function", "error", "expected a function name, 'name:alias' or a function ARN"),
    ]
