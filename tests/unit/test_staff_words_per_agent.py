"""The agent's words for its people are gathered once per agent config and embedder, not on every turn."""

from __future__ import annotations

from pathlib import Path

import pytest

from focal.config.loader import load_agent
from focal.sensing import staff_words

ROOT = Path(__file__).resolve().parents[2]


class _Embedder:
    model_name = "counting-fake"


def test_the_staff_words_of_an_agent_are_gathered_once_per_agent(monkeypatch: pytest.MonkeyPatch):
    gathered: list[str] = []

    def gather(embedder: object, agent: object) -> tuple[str, ...]:
        gathered.append(agent.id)  # type: ignore[attr-defined]
        return ("Put me through to one of your mechanics",)

    monkeypatch.setattr(staff_words, "own_handoff_examples", gather)
    monkeypatch.setattr(staff_words, "staff_words", lambda embedder, examples: frozenset({"mechanic"}))
    embedder, other_embedder = _Embedder(), _Embedder()
    agent = load_agent(ROOT / "tests/data/newcomer_carrental/agent.yaml")
    other = load_agent(ROOT / "tests/data/newcomer_carrental/agent.yaml")

    for _ in range(3):
        assert staff_words.agents_staff_words(embedder, agent) == frozenset({"mechanic"})  # type: ignore[arg-type]
    assert len(gathered) == 1
    staff_words.agents_staff_words(embedder, other)  # type: ignore[arg-type]  # another config: its own words
    staff_words.agents_staff_words(other_embedder, agent)  # type: ignore[arg-type]  # another space too
    assert len(gathered) == 3
