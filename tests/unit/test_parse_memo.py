"""An agent file's text and a tool file's source are parsed once per process (focal.config.loader.parse_agent_text,
focal.tool_files.parse_tool_file): the same text again gives the same agent, each caller its own copy to change,
and a changed text is read anew."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import parse_agent_text
from focal.tool_files import parse_tool_file

AGENT = """
id: memo_desk
name: Memo desk
rules:
  - id: polite
    condition_text: Always
    action_text: Be polite.
"""


def test_the_same_text_gives_each_caller_its_own_agent():
    first = parse_agent_text(AGENT, "a.yaml", "/agents/memo")
    first.config.rules[0].action_text = "changed by the first caller"
    first.config.name = "changed"
    first.raw["name"] = "changed"
    second = parse_agent_text(AGENT, "a.yaml", "/agents/memo")
    assert second.config is not first.config
    assert second.config.name == "Memo desk" and second.config.rules[0].action_text == "Be polite."
    assert second.raw["name"] == "Memo desk" and not second.problems
    assert second.config.base_dir == "/agents/memo"


def test_a_changed_text_or_folder_is_read_anew():
    parse_agent_text(AGENT, "a.yaml", "/agents/memo")
    changed = parse_agent_text(AGENT.replace("Memo desk", "Other desk"), "a.yaml", "/agents/memo")
    assert changed.config.name == "Other desk"
    elsewhere = parse_agent_text(AGENT, "a.yaml", "/agents/other")
    assert elsewhere.config.base_dir == "/agents/other"
    broken = parse_agent_text(AGENT + "  - [unclosed", "a.yaml", "/agents/memo")
    assert broken.config is None and broken.problems


def test_a_tool_file_changed_on_disk_is_parsed_again(tmp_path: Path):
    tools = tmp_path / "tools.py"
    tools.write_text("def refund(order_id):\n    return {}\n")
    assert [n.name for n in parse_tool_file(tools, "tools.py").body] == ["refund"]
    tools.write_text("def refund(order_id):\n    return {}\n\n\ndef lookup(order_id):\n    return {}\n")
    assert [n.name for n in parse_tool_file(tools, "tools.py").body] == ["refund", "lookup"]
    tools.write_text("def refund(order_id:\n")
    try:
        parse_tool_file(tools, "tools.py")
    except ValueError as exc:
        assert "cannot be parsed" in str(exc)
    else:
        raise AssertionError("a file that no longer parses was read from the cache")
