"""A count spelled out in Spanish, German or French fills an integer slot through the real pipeline (the tutorial's
library agent, offline): "trois semaines" was asked again as not understood."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

TUTORIAL = Path(__file__).resolve().parents[2] / "examples" / "tutorial" / "agent.yaml"
CONVERSATIONS = {
    "fr": (["Je voudrais prolonger un livre", "Ma carte est LC204518, le livre B30117", "trois semaines"], "3 semaines"),
    "de": (["Ich möchte ein Buch verlängern", "Meine Karte ist LC204518, das Buch B30117", "zwei Wochen bitte"],
           "2 Wochen"),
    "es": (["Quiero renovar un libro", "Mi tarjeta es LC204518 y el libro B30117", "tres semanas"], "3 semanas"),
}


@pytest.fixture(scope="module")
def runner(tmp_path_factory):
    return LocalRunner(local_deps(TUTORIAL, tmp_path_factory.mktemp("library") / "focal.db"))


@pytest.mark.parametrize("lang", sorted(CONVERSATIONS))
def test_a_spelled_count_fills_the_weeks(runner, lang):
    messages, said = CONVERSATIONS[lang]
    for n, message in enumerate(messages):
        result = runner.turn(TurnRequest(tenant_id="local", agent_id="library", session_id=f"weeks-{lang}",
                                         customer_id="m-1", turn_id=f"{lang}-{n}", message=message))
    assert result.scenario == {"id": "renew", "step_id": "confirm"}
    assert said in result.response
