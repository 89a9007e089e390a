"""Graded confidence and approval gates (seed 004) through the whole local pipeline.

The retail agent is copied into a temporary folder (its own tools module, so refunds issued here
stay here) and keeps its default weights (30/30/20/20) and bands (0.85 / 0.55). At a confirmation
of values the customer typed, the score is about 0.42 + 0.56 × the certainty of the yes
(dialogue/confidence.py): a lexicon "yes" scores 0.98 and runs the refund; a yes recognised only at
the exemplar-similarity threshold ("that should be fine", certainty 0.5) scores 0.70 and waits for
approval; a yes the model reads with 0.15 certainty scores 0.50 and is asked again. The agent's
`refund_guard` ($50 unless Premium) scales the risk: a clear yes to a $30 refund scores 0.94 and
runs it, the same yes to a $49.99 refund scores 0.80 and waits for approval.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

from focal.adapters.litellm_model import ScriptedLiteLLM
from focal.main import main
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest
from focal.pipeline.approval_answer import answer
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
SIMILARITY_YES = "that should be fine"  # affirm by exemplar similarity 0.70, at the threshold: 0.70
UNSURE = {"detected_intent": "refund", "intent_confidence": 0.15,  # the model barely reads a yes: 0.50
          "commands": [{"name": "AffirmConfirmation", "flow": "refund"}]}
TENANT = "local"


class Clock:
    def __init__(self) -> None:
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class CountingTools:
    """The real tool runner, counting executions per tool."""

    def __init__(self, inner) -> None:
        self.inner, self.runs = inner, {}
        self._lock = threading.Lock()

    def run(self, agent, tool, arguments, context=None):
        with self._lock:
            self.runs[tool.id] = self.runs.get(tool.id, 0) + 1
        return self.inner.run(agent, tool, arguments, context)


def make_agent(tmp_path: Path, extra: str = "") -> Path:
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder, ignore=shutil.ignore_patterns("tests.yaml", "__pycache__"))
    # The example tools act on the authenticated customer's own orders only: here every order is c-100's.
    orders = json.loads((folder / "orders.json").read_text())
    (folder / "orders.json").write_text(json.dumps({k: {**v, "customer_id": "c-100"} for k, v in orders.items()}))
    agent = folder / "agent.yaml"
    agent.write_text(agent.read_text() + extra)
    return agent


class Harness:
    def __init__(self, tmp_path: Path, extra: str = "") -> None:
        self.agent_path = make_agent(tmp_path, extra)
        self.db = tmp_path / "state" / "focal.db"
        self.deps = local_deps(self.agent_path, self.db)
        self.clock = Clock()
        self.deps.clock = self.clock
        self.tools = CountingTools(self.deps.tools)
        self.deps.tools = self.tools
        self.deps.model = ScriptedLiteLLM()
        self.deps.model_factory = None
        self.runner = LocalRunner(self.deps)
        self.n = 0

    def turn(self, message: str, session: str = "s1", sensor: dict | None = None):
        self.n += 1
        if sensor is not None:
            self.deps.model.script("sensor", [json.dumps(sensor)])
        return self.runner.turn(TurnRequest(tenant_id=TENANT, agent_id="retail", session_id=session,
                                            customer_id="c-100", turn_id=f"t{self.n}", message=message))

    def to_confirmation(self, session: str = "s1", order: str = "A1001"):
        result = self.turn(f"I'd like a refund for order {order}", session)
        assert result.scenario == {"id": "refund", "step_id": "confirm_refund"}, result.response
        return result

    def events(self) -> list[dict]:
        path = self.db.parent / "events.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def session(self, session: str = "s1"):
        return self.deps.sessions.get(TENANT, "retail", session)


@pytest.fixture
def h(tmp_path):
    return Harness(tmp_path)


def test_a_clear_yes_runs_the_refund_at_full_confidence(h):
    h.to_confirmation()
    result = h.turn("yes")
    assert result.execution_path == "respond" and result.approval_state == "none"
    # A lexicon yes to the confirmation on screen, an order number the customer typed and was shown:
    # everything is sure but the refund itself, a side effect that must not repeat (0.9); the $30 the order
    # look-up returned is exact, so refund_guard's $50 decides it and nearness to the limit adds no doubt.
    assert result.confidence == pytest.approx(0.98)
    assert result.confidence_factors == {"goal_understanding": 1.0, "tool_availability": 1.0,
                                         "context_richness": 1.0, "tool_determinism": pytest.approx(0.9)}
    assert [t["tool_id"] for t in result.tool_calls] == ["issue_refund"]
    assert h.tools.runs["issue_refund"] == 1
    decisions = [e for e in h.events() if e["type"] == "execution_decision"]
    assert decisions[-1]["data"]["path"] == "execute"


def test_medium_confidence_asks_for_approval_and_runs_nothing(h):
    h.to_confirmation()
    result = h.turn(SIMILARITY_YES)
    assert result.execution_path == "approval"
    assert result.approval_state == "awaiting_approval"
    assert 0.55 <= result.confidence < 0.85
    factors = result.confidence_factors
    assert factors["goal_understanding"] == pytest.approx(0.5, abs=0.05)  # no margin over the act threshold
    assert factors["context_richness"] == pytest.approx(factors["goal_understanding"])  # the values rest on it
    assert factors["tool_availability"] == pytest.approx(0.8 + 0.2 * factors["goal_understanding"])
    assert result.tool_calls == [] and "issue_refund" not in h.tools.runs
    approval = result.approval
    assert approval["state"] == "awaiting_approval" and approval["tool_id"] == "issue_refund"
    assert approval["expires_at"] == pytest.approx(h.clock.now + 300)
    assert result.request_id == approval["id"] and "approval" in result.response
    stored = h.deps.approvals.get(TENANT, approval["id"], h.clock.now)
    assert stored.arguments == {"order_id": "A1001", "order_total": 30.0} and stored.step == "refund.confirm_refund"
    assert stored.session_id == "s1" and stored.customer_id == "c-100" and stored.tools == ["issue_refund"]
    assert h.session().pending_approval_id == approval["id"]
    kinds = [e["type"] for e in h.events() if e["request_id"] == approval["id"]]
    assert "approval_requested" in kinds and "execution_decision" in kinds
    # No customer text in events: neither the message nor the arguments' values.
    text = (h.db.parent / "events.jsonl").read_text()
    assert SIMILARITY_YES not in text and "A1001" not in text and "refund for order" not in text


def test_a_clear_yes_to_an_exact_amount_just_under_a_guards_limit_runs(h):
    """$49.99 under refund_guard's $50, the total the order look-up returned: the amount is exact, so the guard's
    comparison is the decision (the business's "up to $50 without a person"); an amount not read exactly keeps the
    doubt near a limit (tests/unit/test_confidence.py)."""
    h.to_confirmation(order="A1006")
    result = h.turn("yes")
    assert result.execution_path == "respond" and [t["tool_id"] for t in result.tool_calls] == ["issue_refund"]
    factors = result.confidence_factors
    assert factors["goal_understanding"] == 1.0 and factors["tool_availability"] == 1.0
    assert factors["tool_determinism"] == pytest.approx(0.9)
    reasons = h.deps.turns.list_for_session(TENANT, "retail", "s1")[-1].state["tools"]["confidence_reasons"]
    assert "0.00 of refund_guard's limit left, its amounts read exactly" in reasons["tool_determinism"]


def test_a_premium_members_refund_is_not_near_any_limit(tmp_path):
    h = Harness(tmp_path)
    h.deps.profiles.save(CustomerProfile(tenant_id=TENANT, agent_id="retail", customer_id="c-100",
                                         fields={"is_premium": True}))
    h.to_confirmation(order="A1006")
    result = h.turn("yes")
    assert [t["tool_id"] for t in result.tool_calls] == ["issue_refund"]
    assert result.confidence_factors["tool_determinism"] == pytest.approx(0.9)  # the limit does not bind


def test_approve_twice_runs_the_action_once(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    first = answer(h.deps, TENANT, approval_id, approve=True)
    assert first.ok and first.state == "approved"
    assert [c["tool_id"] for c in first.tool_calls] == ["issue_refund"]
    assert "RF-A1001" in first.response and "$30.00" in first.response
    second = answer(h.deps, TENANT, approval_id, approve=True)
    assert not second.ok and second.state == "approved" and "already approved" in second.message
    assert h.tools.runs["issue_refund"] == 1
    session = h.session()
    assert session.pending_approval_id is None
    assert session.variables["refund_reference"] == "RF-A1001"
    assert (session.active_scenario_id, session.flow_state) in ((None, "completed"),)
    records = h.deps.turns.list_for_session(TENANT, "retail", "s1")
    run = [r for r in records if r.turn_id == f"{approval_id}-run"]
    assert run and run[0].result.approval_state == "approved"
    assert [t["tool_id"] for t in run[0].result.tool_calls] == ["issue_refund"]
    stored = h.deps.approvals.get(TENANT, approval_id, h.clock.now)
    assert stored.state == "approved" and stored.outcome["ran"] == [{"tool_id": "issue_refund", "status": "ok"}]
    kinds = [e["type"] for e in h.events() if e["request_id"] == approval_id]
    assert kinds.count("approval_decided") == 1 and kinds.count("tool_result") == 1
    # The conversation goes on from where the approval left it.
    assert h.turn("how long does a refund take?").execution_path == "respond"


def test_racing_approvals_run_the_action_once(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    results = []
    threads = [threading.Thread(target=lambda: results.append(answer(h.deps, TENANT, approval_id, approve=True)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(r.ok for r in results) == 1
    assert h.tools.runs["issue_refund"] == 1


def test_approve_after_expiry_is_refused_and_runs_nothing(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    h.clock.now += 301
    late = answer(h.deps, TENANT, approval_id, approve=True)
    assert not late.ok and late.state == "expired" and "expired" in late.message and "nothing was run" in late.message
    assert "issue_refund" not in h.tools.runs
    assert h.deps.approvals.get(TENANT, approval_id, h.clock.now).state == "expired"
    assert not answer(h.deps, TENANT, approval_id, approve=False).ok
    expired = [e for e in h.events() if e["type"] == "approval_expired" and e["request_id"] == approval_id]
    assert len(expired) == 1
    # The customer says yes again: the expired request is dropped and a clear yes runs the refund.
    again = h.turn("yes")
    assert [t["tool_id"] for t in again.tool_calls] == ["issue_refund"] and h.tools.runs["issue_refund"] == 1


def test_deny_records_and_runs_nothing(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    denied = answer(h.deps, TENANT, approval_id, approve=False)
    assert denied.ok and denied.state == "denied" and "nothing was run" in denied.message
    assert "issue_refund" not in h.tools.runs
    assert h.session().pending_approval_id is None
    stored = h.deps.approvals.get(TENANT, approval_id, h.clock.now)
    assert stored.state == "denied" and stored.decided_at == h.clock.now
    later = answer(h.deps, TENANT, approval_id, approve=True)
    assert not later.ok and "already denied" in later.message
    assert "issue_refund" not in h.tools.runs


def test_a_pending_request_is_not_run_by_another_yes(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    again = h.turn("yes")
    assert again.execution_path == "approval" and again.approval["id"] == approval_id and again.tool_calls == []
    assert answer(h.deps, TENANT, approval_id, approve=True).ok
    assert h.tools.runs["issue_refund"] == 1


def test_approval_after_the_conversation_moved_on_runs_nothing(h):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    assert h.turn("cancel").scenario is None
    moved = answer(h.deps, TENANT, approval_id, approve=True)
    assert not moved.ok and "moved on" in moved.message
    assert "issue_refund" not in h.tools.runs


def test_low_confidence_asks_to_clarify_with_questions(h):
    h.to_confirmation()
    result = h.turn("I reckon that would be alright", sensor=UNSURE)
    assert result.execution_path == "clarify" and result.approval_state == "none" and result.approval is None
    assert result.confidence < 0.55 and result.tool_calls == []
    assert any("Shall I go ahead" in q for q in result.suggested_questions)
    assert "Shall I go ahead" in result.response
    assert result.request_id and result.request_id.startswith("clr-")
    assert [e["type"] for e in h.events() if e["request_id"] == result.request_id] == [
        "clarification_requested", "execution_decision"]
    # The flow asks again; a clear yes now runs the refund.
    assert h.session().flow_state == "confirming"
    assert [t["tool_id"] for t in h.turn("yes").tool_calls] == ["issue_refund"]


def test_low_confidence_without_clarification_is_rejected(tmp_path):
    h = Harness(tmp_path, "features: {clarification: false}\n")
    h.to_confirmation()
    result = h.turn("I reckon that would be alright", sensor=UNSURE)
    assert result.execution_path == "rejected" and result.tool_calls == [] and "issue_refund" not in h.tools.runs


def _conversation(h: Harness) -> list[tuple]:
    out = []
    for message in ("I'd like a refund for order A1001", SIMILARITY_YES, "how long does a refund take?"):
        r = h.turn(message)
        out.append((r.execution_path, r.response, [t["tool_id"] for t in r.tool_calls], r.approval_state,
                    r.confidence, r.confidence_factors))
    return out


@pytest.mark.parametrize("flags", [
    "features: {enabled: false, pre_validation: false, graded_confidence: false, approval_gates: false, clarification: false}\n",
    "features: {enabled: false}\n",  # the master switch alone turns every seed-004 feature off
])
def test_flags_off_reproduce_the_plain_pipeline(tmp_path, flags):
    off = Harness(tmp_path / "off", flags)
    plain = _conversation(off)
    # The similarity yes runs the refund at once, as before approval gates existed.
    assert plain[1][0] == "respond" and plain[1][2] == ["issue_refund"] and plain[1][3] == "none"
    assert all(p[5] == {} for p in plain)  # no graded confidence
    assert off.events() == []
    # The same conversation with only the gates and graded confidence off: the same answers and
    # the route's own confidence (the plain pipeline of before).
    base = Harness(tmp_path / "base", "features: {graded_confidence: false, approval_gates: false}\n")
    assert [p[:5] for p in _conversation(base)] == [p[:5] for p in plain]


def test_graded_confidence_off_gates_on_uses_the_plain_reading(tmp_path):
    """Seed 004's phase 1: without graded confidence, the gate runs an action whose tools are ready."""
    h = Harness(tmp_path, "features: {graded_confidence: false}\n")
    h.to_confirmation()
    result = h.turn(SIMILARITY_YES)
    assert result.approval_state == "none" and [t["tool_id"] for t in result.tool_calls] == ["issue_refund"]
    assert result.confidence_factors == {}


def test_cli_approve_and_deny(h, capsys):
    h.to_confirmation()
    approval_id = h.turn(SIMILARITY_YES).approval["id"]
    h.to_confirmation("s2", "A1007")  # $25: half the guard's limit left, so only the doubtful yes holds it
    denied_id = h.turn(SIMILARITY_YES, "s2").approval["id"]
    args = ["--agent", str(h.agent_path), "--db", str(h.db), "--tenant", TENANT]
    # A fresh process's view: the CLI builds its own deps on the same SQLite file (real clock).
    assert main(["approve", approval_id, *args]) == 0
    out = capsys.readouterr().out
    assert "approved" in out and "issue_refund: ok" in out and "RF-A1001" in out
    assert main(["approve", approval_id, *args]) == 1
    assert "already approved" in capsys.readouterr().out
    assert main(["deny", denied_id, *args, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["approval_state"] == "denied" and shown["tool_calls"] == []
    assert main(["approve", "apr-unknown", *args]) == 1
    assert "no approval request" in capsys.readouterr().out.lower()


def test_weights_must_name_the_factors_and_add_up(tmp_path):
    from focal.config.loader import load_agent_file
    from focal.config.validate import semantic_problems

    agent = make_agent(tmp_path, "\napproval:\n  weights: {goal_understanding: 0.5, tool_availability: 0.3, "
                                 "context_richness: 0.1, determinism: 0.2}\n")
    loaded = load_agent_file(agent)
    problems = [str(p) for p in semantic_problems(loaded.config, loaded.raw)]
    assert any("unknown: determinism" in p and "missing: tool_determinism" in p for p in problems), problems
    assert any("add up to 1.0 (they add up to 1.10" in p for p in problems), problems
