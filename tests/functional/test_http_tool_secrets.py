"""Where a `${secret:NAME}` may go in an `http` tool, and that its value never comes back.

The runner fills secrets in headers only: a `${secret:…}` in a body would be sent as that literal text, so
`focal validate` refuses it (file, field path, line, why), in a value or a key, as it already refused one in
the url; the secret that signs customer tokens is refused in a header too. A service that echoes the secret
it was sent does not put it into the tool's outputs (which reach turn records, prompts and replies).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal.config.gate import validate_file
from test_http_tools import AGENT, SECRET, http_tool, runner, server  # noqa: F401 - fixtures

AGENT_FILE = """\
id: t
name: T
description: secret placement
persona: You help.
greeting: Hi.
out_of_scope_message: No.
tools:
  - id: call
    kind: http
    method: POST
    url: https://api.example.com/v1/things
    headers:
      Authorization: "Bearer ${{secret:store_api}}"{extra_header}
    body:
{body}
    input: {{}}
    output: {{}}
"""


def _validate(tmp_path: Path, body: str, extra_header: str = "") -> tuple[list[tuple[str, str, int | None]], str]:
    text = AGENT_FILE.format(body=textwrap.indent(body, "      "), extra_header=extra_header)
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    result = validate_file(path)
    return [(p.path, p.message, p.line) for p in result.problems], text


def _line(text: str, fragment: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), start=1) if fragment in row)


def test_a_secret_in_a_body_value_or_key_is_refused_with_its_place_and_why(tmp_path: Path) -> None:
    problems, text = _validate(tmp_path, 'token: "${secret:store_api}"\nnested:\n  - "x ${secret:other} y"\n'
                                         '"${secret:k}": 1\n')
    why = "secrets are only filled in headers; in a body it would be sent as this literal text"
    assert [(p, m.split(": ", 1)[1].split(" (")[0], n) for p, m, n in problems] == [
        ("tools[0].body.token", why, _line(text, "token:")),
        ("tools[0].body.nested[0]", why, _line(text, "nested:")),  # a list item: the line of its key
        ("tools[0].body.${secret:k}", why, _line(text, '"${secret:k}"')),
    ]
    assert problems[0][1].startswith("'${secret:store_api}': ")


def test_a_body_without_secrets_and_a_secret_header_pass(tmp_path: Path) -> None:
    problems, _ = _validate(tmp_path, 'kind: "refund"\nprice: "${not closed"\n')
    assert [p for p in problems if "secret" in p[1]] == [("tools[0].body.price", problems[0][1], problems[0][2])]
    problems, _ = _validate(tmp_path, 'kind: "refund"\n')
    assert problems == []


def test_the_customer_token_secret_is_refused_in_a_header(tmp_path: Path) -> None:
    problems, text = _validate(tmp_path, 'kind: "x"\n', '\n      X-Sign: "${secret:customer_token_secret}"')
    assert problems == [("tools[0].headers.X-Sign",
                         "secret 'customer_token_secret' signs customer tokens and is never sent to a tool",
                         _line(text, "X-Sign"))]


def test_a_secret_echoed_by_the_service_does_not_reach_the_outputs(server, runner) -> None:  # noqa: F811
    base, script = server
    script.on("/echo", (200, {"status": "ok", "you_sent": f"Bearer {SECRET}", SECRET: ["again " + SECRET]}))
    tool = http_tool(url=base + "/echo", method="POST", input={}, output={"status": "order_status"},
                     headers={"Authorization": "Bearer ${secret:store_api}"})
    out = runner.run(AGENT, tool, {})
    assert script.received[0].headers["Authorization"] == f"Bearer {SECRET}"  # the service did get it
    assert out == {"status": "ok", "you_sent": "Bearer [secret]", "[secret]": ["again [secret]"]}


@pytest.mark.parametrize("body", [{"token": "${secret:store_api}"}])
def test_the_runner_never_fills_a_secret_in_a_body(server, runner, body) -> None:  # noqa: F811
    base, script = server
    script.on("/things", (200, {"status": "ok"}))
    runner.run(AGENT, http_tool(url=base + "/things", method="POST", input={}, output={}, body=body), {})
    assert script.received[0].body == {"token": "${secret:store_api}"}  # literal: why validate refuses it
