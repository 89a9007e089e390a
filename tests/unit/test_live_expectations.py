"""Which expectations `focal test --live` checks (focal.cli.live_tests.split_expect) and the hard-rule check:
the answer sent never is a draft that a hard rule blocked."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from focal.cli.live_tests import NoModel, hard_rule_failures, resolve_model, split_expect
from focal.config.loader import load_agent

AGENT = load_agent(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")


@pytest.mark.parametrize(("expect", "checked", "hard", "skipped"), [
    ({"tool_calls": [], "blocked_tools": ["issue_refund"], "response_contains": "x", "response_not_contains": ["y"]},
     ["blocked_tools", "response_contains", "response_not_contains", "tool_calls"], [], []),
    ({"execution_path": "approval", "approval_state": "awaiting_approval"}, ["execution_path"], [], ["approval_state"]),
    ({"execution_path": "rejected"}, ["execution_path"], [], []),
    ({"execution_path": "respond", "scenario": "refund", "step": "collect_order"}, [], [],
     ["execution_path", "scenario", "step"]),
    ({"violations": []}, [], [], ["violations"]),  # none at all: a live draft may break a rule and be regenerated
    ({"violations": ["refund_cap"]}, [], ["refund_cap"], []),
    ({"violations": ["refund_cap", "grounding"], "regenerations": 1}, [], ["refund_cap"],
     ["regenerations", "violations (grounding)"]),
    ({"violations": ["grounding"], "fallback_used": True, "model_calls": 3}, [], [],
     ["violations", "fallback_used", "model_calls"]),
])
def test_only_what_holds_whatever_the_model_says_is_checked(expect, checked, hard, skipped):
    got_checked, got_hard, got_skipped = split_expect(AGENT, expect)
    assert (sorted(got_checked), got_hard, got_skipped) == (checked, hard, skipped)


def test_a_soft_rule_is_never_checked_live():
    soft = next(r.id for r in AGENT.rules if not r.is_hard_constraint)
    assert split_expect(AGENT, {"violations": [soft]}) == ({}, [], ["violations"])


def draft(text: str, *rules: str) -> dict:
    return {"text": text, "violations": [{"rule_id": r, "lane": "deterministic", "reason": "r"} for r in rules]}


def test_the_answer_sent_must_not_be_a_draft_a_hard_rule_blocked():
    blocked, kept = draft("Your $75 refund is approved.", "refund_cap"), draft("A person will review it.")
    fine = SimpleNamespace(response="A person will review it.")
    assert hard_rule_failures(["refund_cap"], fine, [blocked, kept]) == ([], ["refund_cap"])
    leaked = SimpleNamespace(response=" Your $75 refund is approved. ")
    assert hard_rule_failures(["refund_cap"], leaked, [blocked, kept]) == (
        ["the answer sent breaks hard rule 'refund_cap' (a draft it blocked went out)"], ["refund_cap"])
    assert hard_rule_failures(["refund_cap"], fine, [kept]) == ([], [])  # not provoked: still checked, passes


def test_the_model_comes_from_the_command_line_or_the_agent_file():
    assert resolve_model("openai/local", AGENT) == "openai/local"
    named = AGENT.model_copy(update={"models": AGENT.models.model_copy(update={"model": "ollama/qwen"})})
    assert resolve_model(None, named) == "ollama/qwen"
    with pytest.raises(NoModel, match="needs a model"):
        resolve_model(None, AGENT)
