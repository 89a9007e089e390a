"""`focal validate` warns when a field that a tool or the profile sets, and that decides a guard, a hard
constraint or a transition, can also be set by the customer's message (newcomer finding: `is_verified`, set by
the PIN check, was also readable from "I'm verified")."""

from __future__ import annotations

from focal.config.validate import semantic_warnings
from focal.models.agent import AgentConfig


def _agent(sources: list[str], privileged: bool = False, output: bool = True) -> AgentConfig:
    return AgentConfig.model_validate({
        "id": "gym", "name": "Gym",
        "profile_field_definitions": [
            {"field_name": "door_pin", "field_type": "id", "sources": ["message"]},
            {"field_name": "member_checked", "field_type": "boolean", "sources": sources, "privileged": privileged,
             "default": False},
            {"field_name": "guest_count", "field_type": "integer", "sources": ["message", "profile"]},
        ],
        "tools": [
            {"id": "check_pin", "entrypoint": "tools.py:check_pin", "input": {"door_pin": {"type": "id"}},
             "output": {"ok": "member_checked"} if output else {}},
            {"id": "open_locker", "entrypoint": "tools.py:open_locker", "input": {"door_pin": {"type": "id"}},
             "side_effect": True},
        ],
        "rules": [{"id": "members_only", "condition_text": "opening a locker", "action_text": "members only",
                   "is_hard_constraint": True, "enforcement_expression": "member_checked",
                   "guarded_tool_ids": ["open_locker"]}],
    })


def _privilege(agent: AgentConfig) -> list[str]:
    return [str(p) for p in semantic_warnings(agent) if "not privileged" in str(p)]


def test_a_tool_set_field_a_guard_reads_and_the_message_can_set_is_warned_about():
    found = _privilege(_agent(["message", "tool"]))
    assert len(found) == 1
    assert "member_checked" in found[0] and "check_pin" in found[0] and "members_only" in found[0]
    assert "profile_field_definitions[1].sources" in found[0]


def test_a_profile_field_the_message_can_set_is_warned_about_too():
    assert len(_privilege(_agent(["message", "profile"], output=False))) == 1


def test_privileged_or_not_from_the_message_or_read_by_nothing_is_fine():
    assert _privilege(_agent(["message", "tool"], privileged=True)) == []
    assert _privilege(_agent(["tool"])) == []
    assert _privilege(_agent(["message"], output=False)) == []  # the customer's own statement, nothing vouches otherwise
