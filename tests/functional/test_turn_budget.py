"""The per-turn time budget (focal.turn.budget) with a fake slow model at the LanguageModel port.

The model does not sleep: it advances the turn's clock (Deps.clock) by the time it "takes", or by the
time it was allowed when that is shorter (then it fails as a provider timeout would)."""

from __future__ import annotations

import time
from pathlib import Path

from focal.errors import ModelError
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail" / "agent.yaml"
GUARDRAILS = ROOT / "examples" / "guardrails" / "agent.yaml"


class Clock:
    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


class SlowModel:
    """Answers `text` after `seconds` of (fake) time per call; with `configured(total_s=…)` honoured."""

    def __init__(self, clock: Clock, purposes: set[str], seconds: float, text: str = "Standard shipping takes 3-5 business days."):
        self.clock, self.purposes, self.seconds, self.text = clock, purposes, seconds, text
        self.calls: list[tuple[str, float | None]] = []  # (purpose, the time it was given)
        self.allowed: float | None = None

    def available(self, purpose: str) -> bool:
        return purpose in self.purposes

    def configured(self, *, total_s: float | None = None, **_: object) -> SlowModel:
        view = SlowModel(self.clock, self.purposes, self.seconds, self.text)
        view.calls, view.allowed = self.calls, total_s
        return view

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.calls.append((purpose, self.allowed))
        if self.allowed is not None and self.seconds > self.allowed:
            self.clock.now += self.allowed
            raise ModelError("Timeout from model provider")
        self.clock.now += self.seconds
        if purpose == "judge":
            return ModelReply(text='{"verdicts": []}', model="fake/slow")
        return ModelReply(text=self.text, model="fake/slow")


def deps_with(agent: Path, tmp_path: Path, model_seconds: float, purposes: set[str]):
    deps = local_deps(agent, tmp_path / "focal.db")
    clock = Clock()
    deps.clock = clock
    model = SlowModel(clock, purposes, model_seconds)
    deps.model = model
    return deps, clock, model


def run(deps, agent_id: str, message: str, n: int = 0):
    runner = LocalRunner(deps)
    result = runner.turn(TurnRequest(tenant_id="t1", agent_id=agent_id, session_id="s1", turn_id=f"t-{n}", message=message))
    return result, deps.turns.list_for_session("t1", agent_id, "s1")[-1]


def test_a_fast_model_is_not_degraded_and_each_call_gets_the_time_left(tmp_path):
    deps, clock, model = deps_with(RETAIL, tmp_path, 2.0, {"generate"})
    start = clock.now
    result, record = run(deps, "retail", "how long does shipping take?")
    assert result.success and result.degraded == [] and result.response == "Standard shipping takes 3-5 business days."
    assert record.state["deadline"] == start + 20.0  # models.turn_budget_s, shipped default
    assert [p for p, _ in model.calls] == ["generate"] and model.calls[0][1] == 20.0  # min(timeout_s 20, 20 left)


def test_a_model_slower_than_the_budget_is_cut_at_the_deadline_and_the_turn_answers_offline(tmp_path):
    deps, clock, model = deps_with(RETAIL, tmp_path, 60.0, {"generate"})
    start = clock.now
    result, record = run(deps, "retail", "how long does shipping take?")
    assert clock.now - start <= 20.0  # the call got what was left, not its own 60 s
    assert result.success and result.error is None and "3-5 business days" in result.response  # offline composer
    assert result.degraded == ["model_budget"]
    assert record.state["model_calls"][0]["ok"] is False and record.state["generate"]["drafts"][0]["source"] == "offline"


def test_once_the_budget_is_spent_optional_calls_are_skipped_not_started(tmp_path):
    """The sensor's call (a message the fast path does not settle) takes 19.5 s of the 20: generate is
    not even started (less than MIN_CALL_S left), the offline composer answers and says why."""
    deps, clock, model = deps_with(RETAIL, tmp_path, 19.5, {"sensor", "generate"})
    model.text = "{}"
    result, record = run(deps, "retail", "ok but what about the thing with the parcel then")
    assert [p for p, _ in model.calls] == ["sensor"]
    assert result.success and "model_budget" in result.degraded
    assert "time budget spent: offline composer used" in record.state["route"]["decision"]["notes"]


def test_a_subjective_rule_fails_closed_when_the_budget_is_spent(tmp_path):
    """guardrails without its mark_unverified opt-in: generate uses the whole budget, the judge cannot be
    called, so the subjective GLOBAL rule blocks ("cannot verify: time budget spent"), never passes."""
    agent = tmp_path / "agent.yaml"
    agent.write_text(GUARDRAILS.read_text(encoding="utf-8").replace("  unverifiable_subjective: mark_unverified\n", ""),
                     encoding="utf-8")
    deps, clock, model = deps_with(agent, tmp_path, 19.5, {"generate", "judge"})
    result, record = run(deps, "guardrails", "do you offer any discounts?")
    assert [p for p, _ in model.calls] == ["generate"]  # the judge was never called
    violations = [v for v in result.enforcement["violations"] if v["lane"] == "judge"]  # (the draft's "3-5" is unbound too)
    assert violations and all(v["reason"] == "cannot verify: time budget spent" for v in violations)
    assert {v["rule_id"] for v in violations} == {"acknowledge_frustration"}
    assert result.enforcement["fallback_used"] is True and "model_budget" in result.degraded
    assert result.response != "Standard shipping takes 3-5 business days."


class Crawling(Clock):
    """A machine so loaded that every reading of the clock finds 5 s gone."""

    def __call__(self) -> float:
        self.now += 5.0
        return self.now


def test_scripted_outputs_are_used_however_slow_the_machine(tmp_path):
    """A conversation suite's scripted model (focal test) spends no provider time: a turn whose offline stages ran
    past the budget on a loaded machine still takes its scripted draft, so a suite reads the same anywhere. A real
    model's call under the same clock is turned down (the tests above)."""
    from focal.adapters.litellm_model import ScriptedLiteLLM

    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.clock = clock = Crawling()
    deps.model = scripted = ScriptedLiteLLM()
    scripted.script("generate", ["Standard shipping takes 3-5 business days, tracked."])
    start = clock.now
    result, _ = run(deps, "retail", "how long does shipping take?")
    assert clock.now - start > 20.0  # the turn's clock ran past the shipped budget
    assert result.response == "Standard shipping takes 3-5 business days, tracked."
    assert "model_budget" not in result.degraded and scripted.queues["generate"] == []
