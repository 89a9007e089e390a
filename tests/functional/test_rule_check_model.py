"""The rule filter's optional model check (`retrieval.model_filter: true`, off by default): one batched
call over the soft candidates above the threshold; what it rejects is dropped with a note; an unusable
answer keeps every candidate. Off, no call is made and the generation prompt carries the conditions."""

from __future__ import annotations

import json
from pathlib import Path

from focal.errors import ModelError
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


class RuleJudge:
    """Answers only the rule check (purpose "rules"), from a script."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, *answers):
        self.answers, self.prompts = list(answers), []

    def available(self, purpose: str) -> bool:
        return purpose == "rules"

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.prompts.append(messages[-1]["content"])
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return ModelReply(text=answer, model="fake/rules")


def opted_in(tmp_path: Path) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT.read_text(encoding="utf-8") + "\nretrieval:\n  model_filter: true\n", encoding="utf-8")
    (tmp_path / "tools.py").write_text((AGENT.parent / "tools.py").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "orders.json").write_text((AGENT.parent / "orders.json").read_text(encoding="utf-8"), encoding="utf-8")
    return agent


ASKS = "I want a refund for my order, where will the money go?"  # refund_destination matches by similarity


def turn(tmp_path, model, message=ASKS, agent=None):
    deps = local_deps(agent or opted_in(tmp_path), tmp_path / "focal.db")
    deps.model = model
    runner = LocalRunner(deps)
    result = runner.turn(TurnRequest(tenant_id="t", agent_id="retail", session_id="s", turn_id="1", message=message))
    notes = deps.turns.list_for_session("t", "retail", "s")[-1].state["route"]["decision"]["notes"]
    return result, notes


def test_the_model_drops_a_candidate_that_only_sounds_alike(tmp_path):
    # refund_destination matches ASKS by similarity; the scripted model judges that it does not apply.
    model = RuleJudge(json.dumps({"applies": []}))
    result, notes = turn(tmp_path, model)
    assert len(model.prompts) == 1 and "refund_destination" in model.prompts[0]
    assert "refund_cap" not in model.prompts[0]  # hard constraints are never judged away
    assert "refund_destination" not in result.matched_rules
    assert "rule refund_destination judged not to apply by the model" in notes
    assert result.model_calls == 1
    assert "original payment method" not in result.response


def test_an_invalid_or_failed_answer_keeps_the_candidates(tmp_path):
    for answer in ("not json", ModelError("Timeout from model provider")):
        result, notes = turn(tmp_path / type(answer).__name__, RuleJudge(answer))
        assert "refund_destination" in result.matched_rules and result.success
        assert any("all candidates kept" in n for n in notes)


def test_no_soft_candidate_no_call(tmp_path):
    model = RuleJudge()
    result, _ = turn(tmp_path, model, message="A1001")
    assert model.prompts == [] and result.model_calls == 0


def test_by_default_no_call_is_spent_on_applicability(tmp_path):
    model = RuleJudge(json.dumps({"applies": []}))
    result, _ = turn(tmp_path, model, agent=AGENT)
    assert model.prompts == [] and result.model_calls == 0
    assert "refund_destination" in result.matched_rules
