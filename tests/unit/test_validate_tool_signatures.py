"""`focal validate`: a python tool's function must take the arguments its `input` declares, as the runner passes
them (keywords, only those with a value), read from the file's source without running it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from focal.config.gate import validate_file

TOOLS = '''\
import os

def lookup(order_id):
    return {}

def wrong_name(order):
    return {}

def needs_more(order_id, amount, *, reason):
    return {}

def optional_without_default(order_id, note):
    return {}

def takes_anything(**kwargs):
    return {}

def positional_only(order_id, /):
    return {}

def with_context(order_id, customer_id, idempotency_key=None):
    return {}

def side_effect_key(order_id, idempotency_key):
    return {}

@staticmethod
def decorated(x):
    return {}
'''


def agent(tmp_path: Path, tools: str) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    text = textwrap.dedent("""\
        id: shop
        name: Shop
        profile_field_definitions:
          - {field_name: order_id, field_type: id}
          - {field_name: note, field_type: string}
        tools:
        """) + textwrap.indent(textwrap.dedent(tools), "  ")
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def errors(tmp_path: Path, tools: str) -> list[str]:
    return [f"{p.path}: {p.message}" for p in validate_file(agent(tmp_path, tools)).problems]


def tool(name: str, function: str, inputs: str, extra: str = "") -> str:
    return f"- id: {name}\n  entrypoint: 'tools.py:{function}'\n  input: {inputs}\n{extra}"


def test_matching_signatures_are_fine(tmp_path):
    assert errors(tmp_path, tool("a", "lookup", "{order_id: {type: id}}")
                  + tool("b", "takes_anything", "{order_id: {type: id}, note: {required: false}}")
                  + tool("c", "with_context", "{order_id: {type: id}}")
                  + tool("d", "side_effect_key", "{order_id: {type: id}}", "  side_effect: true\n")
                  + tool("e", "decorated", "{order_id: {type: id}}")) == []


def test_an_input_the_function_does_not_take_is_an_error(tmp_path):
    assert errors(tmp_path, tool("refund", "wrong_name", "{order_id: {type: id}}")) == [  # sorted by line
        "tools[0].entrypoint: tool 'refund': parameter 'order' of function 'wrong_name' in 'tools.py' has no default "
        "and is not an input of the tool, so every call fails; declare it under input, or give it a default",
        "tools[0].input.order_id: tool 'refund': function 'wrong_name' in 'tools.py' has no parameter 'order_id' "
        "(did you mean 'order'?), so every call fails (it is passed as order_id=...); its parameters: order",
    ]


def test_a_required_parameter_no_input_fills_is_an_error(tmp_path):
    assert errors(tmp_path, tool("refund", "needs_more", "{order_id: {type: id}}")) == [
        "tools[0].entrypoint: tool 'refund': parameter 'amount' of function 'needs_more' in 'tools.py' has no default "
        "and is not an input of the tool, so every call fails; declare it under input, or give it a default",
        "tools[0].entrypoint: tool 'refund': parameter 'reason' of function 'needs_more' in 'tools.py' has no default "
        "and is not an input of the tool, so every call fails; declare it under input, or give it a default",
    ]


def test_an_optional_input_behind_a_parameter_without_default_is_an_error(tmp_path):
    assert errors(tmp_path, tool("note", "optional_without_default", "{order_id: {type: id}, note: {required: false}}")) == [
        "tools[0].input.note: tool 'note': input 'note' is optional (required: false) but parameter 'note' of function "
        "'optional_without_default' in 'tools.py' has no default, so a call without a note fails; give the "
        "parameter a default (note=None) or make the input required",
    ]


def test_a_positional_only_parameter_cannot_take_its_input(tmp_path):
    assert errors(tmp_path, tool("p", "positional_only", "{order_id: {type: id}}")) == [
        "tools[0].input.order_id: tool 'p': parameter 'order_id' of function 'positional_only' in 'tools.py' is "
        "positional-only (before '/'), but arguments are passed by name, so every call fails; remove the '/'",
    ]


def test_the_idempotency_key_is_passed_only_to_side_effecting_tools(tmp_path):
    assert errors(tmp_path, tool("k", "side_effect_key", "{order_id: {type: id}}")) == [
        "tools[0].entrypoint: tool 'k': parameter 'idempotency_key' of function 'side_effect_key' in 'tools.py' has no "
        "default and is given only to a side_effect tool, so every call fails; give it a default "
        "(idempotency_key=None) or declare side_effect: true",
    ]


def test_the_file_is_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "tools.py").write_text(f"open({str(marker)!r}, 'w').close()\n\ndef lookup(order):\n    return {{}}\n",
                                       encoding="utf-8")
    path = tmp_path / "agent.yaml"
    path.write_text("id: shop\nname: Shop\nprofile_field_definitions:\n  - {field_name: order_id, field_type: id}\n"
                    "tools:\n  - id: a\n    entrypoint: 'tools.py:lookup'\n    input: {order_id: {type: id}}\n",
                    encoding="utf-8")
    problems = [p.path for p in validate_file(path).problems]
    assert problems == ["tools[0].entrypoint", "tools[0].input.order_id"] and not marker.exists()
