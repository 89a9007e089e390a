"""A failed tool action never counts as done (the retail refund and the card-credit desk, through the real pipeline).

Found: the claim before a step's tools run marks the step's action as taken (so a crash mid-turn is not replayed), and
a failed call left that mark: the next message took the refund as done and moved on ("Done: your refund ... is on its
way"). Now a call that failed with nothing done (`error`) leaves the step not done, its yes spent: the customer hears
it did not go through, and only a fresh yes runs it again, once. A call that may have taken effect (`unknown`: a
timeout after sending) is never run again and never reported done: the flow waits at the step, and the customer hears
it is being checked (handed to a person when the agent has a handoff tool). An approved action that fails does the
same. Tools are faked at the runner: the engine and the example's own tools are the real ones.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from example_tools import reset_state

from focal.errors import ToolError, ToolOutcomeUnknown
from focal.models.engine_texts import all_keys
from focal.models.turn import TurnRequest
from focal.pipeline.approval_answer import answer
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps
from test_approvals import SIMILARITY_YES, TENANT, Harness
from test_blocked_yes_single_use import Desk

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
DONE = "Done: your refund of"
REFUSED = ToolError("tool 'issue_refund': HTTP 409")  # the payment system said no: nothing happened
HANDOFF = "transfer_to_staff"


def text(key: str, lang: str = "en") -> str:
    return all_keys()[key][lang]


class ScriptedTools:
    """The real tool runner, except for the failures queued per tool: `refuse` raises before the tool runs; `lose`
    runs it, then raises as a timeout after sending would (it did happen; the engine cannot know). `ran` counts what
    really ran. The handoff tool is a person's queue here: it records the summary it was given."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.queued, self.ran, self.handed = inner, {}, Counter(), []

    def refuse(self, tool_id: str, error: Exception = REFUSED) -> None:
        self.queued.setdefault(tool_id, []).append(("refuse", error))

    def lose(self, tool_id: str) -> None:
        self.queued.setdefault(tool_id, []).append(("lose", ToolOutcomeUnknown(f"tool {tool_id!r} timed out after 10s")))

    def run(self, agent: Any, tool: Any, arguments: dict, context: Any = None) -> dict:
        if tool.id == HANDOFF:
            self.handed.append(arguments["summary"])
            return {"ref": "H-1"}
        queue = self.queued.get(tool.id) or []
        how, error = queue.pop(0) if queue else (None, None)
        if how == "refuse":
            raise error
        self.ran[tool.id] += 1
        result = self.inner.run(agent, tool, arguments, context)
        if how == "lose":
            raise error
        return result


class Shop:
    """One customer's refund conversation with a copy of the retail example; `handoff`: the agent hands over through
    its own tool."""

    def __init__(self, tmp_path: Path, handoff: bool = False) -> None:
        folder = tmp_path / "retail"
        shutil.copytree(RETAIL, folder, ignore=shutil.ignore_patterns("tests.yaml", "__pycache__"))
        raw = yaml.safe_load((folder / "agent.yaml").read_text())
        if handoff:
            raw["handoff_tool"] = HANDOFF
            raw["tools"].append({"id": HANDOFF, "kind": "python", "entrypoint": "tools.py:transfer",
                                 "input": {"summary": {"type": "string"}}, "arguments": {"summary": "conversation_summary"},
                                 "side_effect": True})
            with (folder / "tools.py").open("a") as f:  # a person's queue: ScriptedTools answers for it
                f.write("\n\ndef transfer(summary):\n    return {}\n")
        (folder / "agent.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
        self.deps = local_deps(folder / "agent.yaml", tmp_path / "focal.db")
        reset_state(self.deps.configs.get_agent("t1", "retail"), "t1")
        self.tools = ScriptedTools(self.deps.tools)
        self.deps.tools = self.tools
        self.runner = LocalRunner(self.deps)
        self.n = 0

    def say(self, message: str) -> Any:
        self.n += 1
        return self.runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-100",
                                            turn_id=f"t{self.n}", message=message))

    def session(self) -> Any:
        return self.deps.sessions.get("t1", "retail", "s1")

    def at_confirmation(self) -> None:
        self.say("I'd like a refund for my order")
        offer = self.say("It's A1001")
        assert offer.scenario == {"id": "refund", "step_id": "confirm_refund"} and "Shall I go ahead?" in offer.response


def statuses(result: Any) -> list[tuple[str, str]]:
    return [(c["tool_id"], c["status"]) for c in result.tool_calls]


def test_a_refused_refund_is_not_done_and_only_a_fresh_yes_runs_it_again_once(tmp_path):
    shop = Shop(tmp_path)
    shop.at_confirmation()
    shop.tools.refuse("issue_refund")
    failed = shop.say("yes")
    assert statuses(failed) == [("issue_refund", "error")]
    assert text("action_failed") in failed.response and text("action_retry") in failed.response
    assert DONE not in failed.response
    session = shop.session()
    assert (session.active_step_id, session.flow_state, session.confirmed_step) == ("confirm_refund", "confirming", None)
    assert session.actions_done_step is None and session.action_failed_step == "confirm_refund"

    later = shop.say("what happened?")  # no yes: the step is not taken as done, and nothing runs
    assert later.tool_calls == [] and DONE not in later.response
    assert shop.session().active_step_id == "confirm_refund" and shop.tools.ran["issue_refund"] == 0

    retried = shop.say("yes")
    assert statuses(retried) == [("issue_refund", "ok")] and DONE in retried.response
    assert shop.tools.ran["issue_refund"] == 1
    assert shop.say("thanks").tool_calls == [] and shop.tools.ran["issue_refund"] == 1


def test_a_refund_whose_outcome_is_unknown_is_never_run_again_nor_said_done(tmp_path):
    shop = Shop(tmp_path)
    shop.at_confirmation()
    shop.tools.lose("issue_refund")
    lost = shop.say("yes")
    assert statuses(lost) == [("issue_refund", "unknown")] and shop.tools.ran["issue_refund"] == 1
    assert text("action_unknown") in lost.response and DONE not in lost.response
    assert text("action_retry") not in lost.response  # nothing is offered to run again
    session = shop.session()
    assert (session.active_step_id, session.flow_state) == ("confirm_refund", "error")
    assert session.outcome_unknown == ["confirm_refund"] and session.actions_done_step == "confirm_refund"
    for message in ("yes", "yes please go ahead", "did it work?"):
        later = shop.say(message)
        assert later.tool_calls == [] and DONE not in later.response, message
        assert text("action_unknown") in later.response
    assert shop.tools.ran["issue_refund"] == 1 and shop.session().active_step_id == "confirm_refund"


def test_a_call_whose_outcome_is_unknown_is_not_made_again_after_cancelling_and_starting_afresh(tmp_path):
    shop = Shop(tmp_path)
    shop.at_confirmation()
    # a timeout after sending that in fact never reached the payment system: the order still reads as refundable, so
    # only the remembered call stops the second attempt
    shop.tools.refuse("issue_refund", ToolOutcomeUnknown("tool 'issue_refund' timed out after 10s"))
    assert statuses(shop.say("yes")) == [("issue_refund", "unknown")]
    shop.say("cancel")
    assert shop.session().outcome_unknown == [] and len(shop.session().unknown_calls) == 1
    shop.at_confirmation()  # the same refund asked for again, and a fresh yes
    again = shop.say("yes")
    assert statuses(again) == [("issue_refund", "unknown")] and shop.tools.ran["issue_refund"] == 0
    assert text("action_unknown") in again.response and DONE not in again.response
    assert all("A1001" not in d for d in shop.session().unknown_calls)  # a digest: no customer value at rest


def test_an_unknown_outcome_is_handed_to_a_person_through_the_agents_handoff_tool(tmp_path):
    shop = Shop(tmp_path, handoff=True)
    shop.at_confirmation()
    shop.tools.lose("issue_refund")
    lost = shop.say("yes")
    assert statuses(lost) == [("issue_refund", "unknown"), (HANDOFF, "ok")]
    assert text("action_unknown") in lost.response and text("handoff") in lost.response and DONE not in lost.response
    [summary] = shop.tools.handed
    assert "issue_refund" in summary and "unknown" in summary and "A1001" in summary
    assert shop.say("yes").tool_calls == [] and shop.tools.ran["issue_refund"] == 1


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_failure_is_said_in_the_customers_language(tmp_path, lang):
    desk = Desk(tmp_path)
    tools = ScriptedTools(desk.deps.tools)
    desk.deps.tools = tools
    start, _, yes, *_ = {"en": ("I want a goodwill credit", "", "yes"), "de": ("Ich möchte eine Kulanzgutschrift", "", "ja")}[lang]
    desk.say(start)
    desk.say("15 euros" if lang == "en" else "15 Euro")
    tools.refuse("issue_credit", ToolError("tool 'issue_credit': HTTP 422"))
    failed = desk.say(yes)
    assert text("action_failed", lang) in failed.response and text("action_retry", lang) in failed.response
    assert desk.credited() == []
    done = desk.say(yes)
    assert [c["status"] for c in done.tool_calls] == ["ok"] and desk.credited() == ["15"]


def _awaiting_approval(tmp_path) -> tuple[Harness, ScriptedTools, str]:
    """A refund waiting for a person's approval, its tools scripted: (harness, tools, approval id)."""
    h = Harness(tmp_path)
    tools = ScriptedTools(h.deps.tools)
    h.deps.tools = tools
    h.to_confirmation()
    pending = h.turn(SIMILARITY_YES)
    assert pending.approval_state == "awaiting_approval", pending.response
    return h, tools, pending.approval["id"]


def test_an_approved_refund_that_is_refused_leaves_the_step_for_a_fresh_yes(tmp_path):
    h, tools, approval_id = _awaiting_approval(tmp_path)
    tools.refuse("issue_refund")
    approved = answer(h.deps, TENANT, approval_id, approve=True)
    assert approved.ok is False and [c["status"] for c in approved.tool_calls] == ["error"]
    assert DONE not in (approved.response or "") and text("action_failed") in (approved.response or "")
    session = h.session()
    assert session.actions_done_step is None and session.confirmed_step is None
    assert (session.active_step_id, session.flow_state) == ("confirm_refund", "confirming")
    assert h.turn("what happened?").tool_calls == [] and tools.ran["issue_refund"] == 0
    # the fresh yes meets the gate afresh: an unsure one asks for a new approval, nothing runs on the spent one
    asked = h.turn(SIMILARITY_YES)
    assert asked.approval_state == "awaiting_approval" and asked.approval["id"] != approval_id
    assert asked.tool_calls == [] and tools.ran["issue_refund"] == 0
    retried = answer(h.deps, TENANT, asked.approval["id"], approve=True)
    assert retried.ok and [(c["tool_id"], c["status"]) for c in retried.tool_calls] == [("issue_refund", "ok")]
    assert tools.ran["issue_refund"] == 1 and DONE in (retried.response or "")


def test_an_approved_refund_whose_outcome_is_unknown_is_never_run_again(tmp_path):
    h, tools, approval_id = _awaiting_approval(tmp_path)
    tools.lose("issue_refund")
    approved = answer(h.deps, TENANT, approval_id, approve=True)
    assert approved.ok is False and [c["status"] for c in approved.tool_calls] == ["unknown"]
    assert DONE not in (approved.response or "") and text("action_unknown") in (approved.response or "")
    assert h.session().outcome_unknown == ["confirm_refund"]
    for message in ("yes", "ok"):
        later = h.turn(message)
        assert later.tool_calls == [] and DONE not in later.response
    assert tools.ran["issue_refund"] == 1
    assert answer(h.deps, TENANT, approval_id, approve=True).ok is False and tools.ran["issue_refund"] == 1


def test_the_turn_record_keeps_the_unknown_status(tmp_path):
    shop = Shop(tmp_path)
    shop.at_confirmation()
    shop.tools.lose("issue_refund")
    shop.say("yes")
    record = shop.deps.turns.list_for_session("t1", "retail", "s1")[-1].state
    [call] = [c for c in record["tools"]["tool_calls"] if c["tool_id"] == "issue_refund"]
    assert call["status"] == "unknown" and call["error_code"] == "tool_outcome_unknown"
    assert json.dumps(record["route"]["decision"]["action"]) == '"tool_error"'


@pytest.mark.parametrize("lost", [True, False], ids=["unknown", "refused"])
def test_a_failed_refund_is_kept_when_another_turn_saved_the_session_first(tmp_path, monkeypatch, lost):
    """The turn's own session write loses the version race: the session the claim saved says the refund was taken.
    What the turn learnt is put onto the winner's session (as a refund that ran is): an unknown outcome waits at the
    step, a refusal leaves it not done for a fresh yes."""
    shop = Shop(tmp_path)
    shop.at_confirmation()
    shop.tools.lose("issue_refund") if lost else shop.tools.refuse("issue_refund")
    sessions, raced = shop.deps.sessions, []
    original = sessions.save

    def racing_save(session: Any, expected_version: int) -> Any:
        failed = session.outcome_unknown or session.action_failed_step
        if not raced and failed and not session.action_claims:  # persist's write, after the tools ran
            raced.append(True)
            winner = sessions.get("t1", "retail", "s1")
            assert winner.actions_done_step == "confirm_refund"  # what the claim saved before the call
            winner.variables["note"] = "another turn"
            original(winner, expected_version=winner.version)
        return original(session, expected_version=expected_version)

    monkeypatch.setattr(sessions, "save", racing_save)
    failed = shop.say("yes")
    assert raced and DONE not in failed.response
    stored = shop.session()
    assert stored.variables["note"] == "another turn" and stored.action_claims == {}  # the winner's, with the outcome
    if lost:
        assert (stored.outcome_unknown, stored.flow_state, stored.confirmed_step) == (["confirm_refund"], "error", None)
    else:
        assert (stored.actions_done_step, stored.action_failed_step, stored.flow_state) == (
            None, "confirm_refund", "confirming")
    monkeypatch.setattr(sessions, "save", original)
    again = shop.say("yes")
    assert shop.tools.ran["issue_refund"] == 1
    assert (DONE not in again.response) if lost else (DONE in again.response)


NEWSLETTER = """
id: news
name: Newsletter desk
description: Newsletter sign-ups for a bookshop.
greeting: Hi, I can sign you up for our newsletter.
out_of_scope_message: I can sign you up for our newsletter.
tools:
  - id: subscribe
    kind: python
    entrypoint: 'tools.py:subscribe'
    description: Subscribe the customer to the newsletter.
    side_effect: true
rules:
  - id: newsletter_signup
    condition_text: The customer asks to subscribe to the newsletter
    action_text: Subscribe them.
    attached_tool_ids: [subscribe]
    response_template: You're now subscribed to our newsletter.
"""
SUBSCRIBED = "You're now subscribed"


@pytest.mark.parametrize("lost", [False, True], ids=["refused", "unknown"])
def test_a_rules_failed_action_is_never_said_done(tmp_path, lost):
    """A rule's side-effecting tool that failed: its template ("You're now subscribed") was said all the same."""
    (tmp_path / "agent.yaml").write_text(NEWSLETTER)
    refusing = "    raise ValueError('the mailing service refused the address')\n"
    (tmp_path / "tools.py").write_text("def subscribe(customer_id=None):\n" + ("    return {}\n" if lost else refusing))
    deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
    tools = ScriptedTools(deps.tools)
    deps.tools = tools
    if lost:
        tools.lose("subscribe")
    result = LocalRunner(deps).turn(TurnRequest(tenant_id="t1", agent_id="news", session_id="s1", customer_id="c-1",
                                                turn_id="t1", message="Please subscribe me to the newsletter"))
    assert statuses(result) == [("subscribe", "unknown" if lost else "error")]
    assert SUBSCRIBED not in result.response
    assert text("action_unknown" if lost else "action_failed") in result.response
