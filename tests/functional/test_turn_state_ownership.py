"""What a stage owns is what it writes: through real turns, every stage changes only the parts of the turn state
that the ownership table of focal.models.turn gives it (its own section, and the amendments named there)."""

from __future__ import annotations

from typing import Any

from held_clock import retail_runner

from focal.models.turn import TurnRequest, TurnState
from focal.models.turn_legacy import SECTIONS
from focal.pipeline import runner as pipeline_runner

# section → the stages that may change it ("Who writes what" in focal.models.turn)
WRITERS = {
    "sensor": {"sensor", "retrieve", "persist", "fallback"},  # retrieve notes a degraded index; persist a lost claim
    "retrieve": {"retrieve"},
    "route": {"sensor", "route", "tools", "generate", "enforce", "persist"},  # the decision is amended downstream
    "tools": {"tools"},
    "generate": {"generate", "enforce"},  # enforce records its verdicts on the draft
    "enforce": {"enforce"},
}
CONVERSATION = [
    "How long does shipping usually take?",
    "I'd like a refund for my order",
    "It's A1001",
    "yes",
    "what's the weather on mars?",
]


def _changes(stage: str, event: dict[str, Any], out: dict[str, Any]) -> set[tuple[str, str]]:
    before = TurnState.model_validate(event).model_dump(mode="json")  # the first stage gets only the request
    changed = {(stage, part) for part in SECTIONS if before[part] != out[part]}
    return changed | {(stage, part) for part in ("request", "resume") if before[part] != out[part]}


def test_each_stage_changes_only_the_parts_of_the_state_it_owns(tmp_path, monkeypatch):
    seen: set[tuple[str, str]] = set()
    run_stage = pipeline_runner.run_stage

    def watched(stage: str, event: dict[str, Any], deps: Any) -> dict[str, Any]:
        out = run_stage(stage, event, deps)
        seen.update(_changes(stage, event, out))
        return out

    monkeypatch.setattr(pipeline_runner, "run_stage", watched)
    runner = retail_runner(tmp_path, lambda tools: tools)
    for n, message in enumerate(CONVERSATION, start=1):
        result = runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", customer_id="c-100",
                                         turn_id=f"t-{n}", message=message))
        assert result.error is None, (message, result.error)

    assert not {(stage, part) for stage, part in seen if part in ("request", "resume")}  # the input is never written
    strays = {(stage, part) for stage, part in seen if part in WRITERS and stage not in WRITERS[part]}
    assert not strays, f"stages writing parts they do not own: {sorted(strays)}"
    assert {(part, part) for part in SECTIONS} <= seen  # every stage wrote its own section in these turns
