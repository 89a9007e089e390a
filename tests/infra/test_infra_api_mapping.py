"""The request mapping's escaping scheme, checked against hostile input.

API Gateway's VTL cannot run here, so this renders the synthesized template's final document the
way API Gateway would for the lines it contains: each `$v_<field>` is the raw value passed twice
through `$util.escapeJavaScript` (emulated below after Apache commons-lang 2, which API Gateway
uses) with the `\\'` fix after each pass. The test asserts the template consists of exactly those
steps, then that the resulting body is valid JSON whose `input` parses to the intended request —
for values containing quotes, backslashes, apostrophes, newlines, non-ASCII text and injection
attempts.
"""

from __future__ import annotations

import json
import re

import pytest

from infra_helpers import method as api_method


def escape_javascript(text: str) -> str:
    out = []
    for unit in text.encode("utf-16-be").hex(" ", 2).split(" ") if text else []:
        code = int(unit, 16)
        ch = chr(code) if code < 0xD800 or code > 0xDFFF else None
        if code > 0x7F:
            out.append(f"\\u{code:04X}")
        elif code < 32:
            out.append({8: "\\b", 10: "\\n", 9: "\\t", 12: "\\f", 13: "\\r"}.get(code, f"\\u{code:04X}"))
        else:
            out.append({"'": "\\'", '"': '\\"', "\\": "\\\\", "/": "\\/"}.get(ch, ch))
    return "".join(out)


def fix_quote(text: str) -> str:  # .replaceAll("\\'", "'")
    return text.replace("\\'", "'")


@pytest.fixture(scope="module")
def request_template(resources) -> str:
    method = api_method(resources, "POST", "turns")
    tpl = method["Properties"]["Integration"]["RequestTemplates"]["application/json"]
    sep, parts = tpl["Fn::Join"]
    return sep.join(p if isinstance(p, str) else "arn:aws:states:us-east-1:1:stateMachine:x" for p in parts)


def render(template: str, raw: dict[str, str]) -> str:
    """Render the body as API Gateway would, after checking each value goes through both passes."""
    values = {}
    for name, value in raw.items():
        first = f'#set($v_{name} = $util.escapeJavaScript("$!raw_{name}").replaceAll("\\\\\'", "\'"))'
        second = f'#set($v_{name} = $util.escapeJavaScript($v_{name}).replaceAll("\\\\\'", "\'"))'
        assert first in template and second in template, name
        values[name] = fix_quote(escape_javascript(fix_quote(escape_javascript(value))))
    body = template[template.index("\n{\n") + 1:]
    assert "#" not in body.replace("$v_", "")  # no more directives in the document part
    return re.sub(r"\$v_(\w+)", lambda m: values[m.group(1)], body)


HOSTILE = [
    "plain",
    'He said "refund me" \\ now',
    "it's O'Brien's order / #42",
    "line one\nline two\ttabbed\r",
    "café — ünïcödé 😀 注文",
    '", "tenant_id": "evil", "x": "',
    '@@tenant_id@@: @@evil@@',
    "$context.authorizer.tenant_id #set($x = 1)",
    "\\'\\\"",
]


@pytest.mark.parametrize("message", HOSTILE)
def test_any_message_round_trips_and_cannot_inject_keys(request_template, message):
    raw = {
        "tenant_id": "acme",
        "agent_id": "retail",
        "session_id": "s-1",
        "customer_id": "anonymous",
        "turn_id": "req-123",
        "message": message,
    }
    body = json.loads(render(request_template, raw))
    assert body["stateMachineArn"].startswith("arn:aws:states:")
    execution_input = json.loads(body["input"], object_pairs_hook=_no_duplicates)
    assert execution_input == {"request": raw}


def test_path_values_are_escaped_too(request_template):
    raw = {
        "tenant_id": "acme",
        "agent_id": 'retail"}, "tenant_id": "evil',
        "session_id": "s'1",
        "customer_id": "c@x",
        "turn_id": "t",
        "message": "hi",
    }
    body = json.loads(render(request_template, raw))
    assert json.loads(body["input"], object_pairs_hook=_no_duplicates)["request"] == raw


def test_escaping_once_would_not_be_enough():
    """Guard for the emulation: with one pass, a quoted message breaks the inner document."""
    once = fix_quote(escape_javascript('say "hi"'))
    outer = json.loads('{"input": "{\\"message\\": \\"' + once + '\\"}"}')
    with pytest.raises(json.JSONDecodeError):
        json.loads(outer["input"])
    twice = fix_quote(escape_javascript(once))
    outer = json.loads('{"input": "{\\"message\\": \\"' + twice + '\\"}"}')
    assert json.loads(outer["input"]) == {"message": 'say "hi"'}


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    assert len(keys) == len(set(keys)), f"duplicate keys {keys}"
    return dict(pairs)


def customer_of(template: str, authorizer: dict[str, str], body: dict[str, str]) -> str:
    """`$customerId` as API Gateway sets it: the template must hold exactly the customer lines (checked
    here), whose VTL is emulated: the authorizer's customer; the body's only for a trusted backend."""
    from focal_infra.api_mapping import CUSTOMER_LINES

    lines = template.splitlines()
    assert all(line in lines for line in CUSTOMER_LINES)
    start = lines.index(CUSTOMER_LINES[0])
    assert lines[start:start + len(CUSTOMER_LINES)] == list(CUSTOMER_LINES)  # in this order, nothing between
    assert sum("$.customer_id" in line for line in lines) == 1  # the body's value is read on the trusted line only
    assert "#set($raw_customer_id = $customerId)" in lines
    customer = authorizer.get("customer_id", "")
    if authorizer.get("trusted_backend", "") == "true" and body.get("customer_id", ""):
        customer = body["customer_id"]
    return customer or "anonymous"


@pytest.mark.parametrize("authorizer,body,expected", [
    ({"customer_id": "anonymous", "trusted_backend": "false"}, {"customer_id": "c-100"}, "anonymous"),
    ({"customer_id": "c-200", "trusted_backend": "false"}, {"customer_id": "c-100"}, "c-200"),
    ({"customer_id": "anonymous", "trusted_backend": "true"}, {"customer_id": "c-100"}, "c-100"),
    ({"customer_id": "c-200", "trusted_backend": "true"}, {}, "c-200"),
    ({}, {"customer_id": "c-100"}, "anonymous"),
    ({"trusted_backend": "TRUE"}, {"customer_id": "c-100"}, "anonymous"),
])
def test_the_customer_comes_from_the_authorizer_not_the_body(request_template, authorizer, body, expected):
    customer = customer_of(request_template, authorizer, body)
    assert customer == expected
    raw = {"tenant_id": "acme", "agent_id": "retail", "session_id": "s", "customer_id": customer, "turn_id": "t", "message": "hi"}
    assert json.loads(json.loads(render(request_template, raw))["input"])["request"]["customer_id"] == expected
