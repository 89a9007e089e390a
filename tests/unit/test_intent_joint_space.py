"""The joint intent space (focal.sensing.intent_ensemble) on small synthetic vectors: no model needed."""

from __future__ import annotations

import numpy as np
import pytest

from focal.models.agent import AgentConfig, NavigationConfig, Scenario, Step
from focal.sensing.intent_ensemble import JointEmbedder, joint
from focal.sensing.intents import IntentIndex


def unit(v) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


class Table:
    def __init__(self, name: str, table: dict[str, list[float]]):
        self.model_name, self.table = name, {k: unit(v) for k, v in table.items()}
        self.dimension = len(next(iter(table.values())))

    def embed(self, texts):
        return np.stack([self.table[t] for t in texts]).astype(np.float32)


# The first model cannot tell "alpha" from "beta" messages (both near its axis 0); the second separates them.
FIRST = Table("first", {"a1": [1, 0.30, 0], "a2": [1, 0.28, 0], "b1": [1, 0.27, 0.02], "b2": [1, 0.25, 0.03],
                        "q": [1, 0.29, 0.01], "alpha": [1, 0.3, 0], "beta": [1, 0.25, 0.03]})
SECOND = Table("second", {"a1": [0.1, 1, 0], "a2": [0.2, 1, 0], "b1": [1, 0.1, 0], "b2": [1, 0.2, 0],
                          "q": [1, 0.15, 0], "alpha": [0.1, 1, 0], "beta": [1, 0.1, 0]})


def agent(weight: float = 0.0) -> AgentConfig:
    return AgentConfig(id="ag", name="ag", navigation=NavigationConfig(intent_head_weight=weight), scenarios=[
        Scenario(id=s, name=s, intent_label=s, entry_examples=ex, steps=[Step(id="s")], entry_step_id="s")
        for s, ex in (("alpha", ["a1", "a2"]), ("beta", ["b1", "b2"]))])


def test_joint_rows_are_unit_and_mix_the_cosines():
    m, u = unit([[1, 2, 0], [0, 1, 1]]), unit([[3, 0, 1], [1, 1, 0]])
    j = joint(m, u, 0.7)
    assert np.allclose(np.linalg.norm(j, axis=1), 1.0, atol=1e-6)
    assert j[0] @ j[1] == pytest.approx(0.7 * (m[0] @ m[1]) + 0.3 * (u[0] @ u[1]), abs=1e-6)


def test_the_joint_space_ranks_by_both_models():
    first_only = IntentIndex(agent(), FIRST).scores(FIRST.embed(["q"])[0])
    space = JointEmbedder(FIRST, SECOND, 0.5)
    both = IntentIndex(agent(), space).scores(space.embed(["q"])[0])
    assert first_only[0].scenario_id == "alpha"  # the first model alone is wrong
    assert both[0].scenario_id == "beta"


@pytest.mark.parametrize("weight", [0.0, 0.3])
def test_the_message_vector_from_the_turns_first_vector_matches_embed(weight):
    space = JointEmbedder(FIRST, SECOND, 0.5)
    assert np.allclose(space.joint_message(FIRST.embed(["q"])[0], "q"), space.embed(["q"])[0])
    ranked = IntentIndex(agent(weight), space).scores(space.joint_message(FIRST.embed(["q"])[0], "q"))
    assert ranked[0].scenario_id == "beta"
    assert -1.0 <= ranked[1].score < ranked[0].score <= 1.0


def test_a_share_outside_the_unit_interval_is_refused():
    with pytest.raises(ValueError, match="share"):
        JointEmbedder(FIRST, SECOND, 0.0)


def test_an_english_turn_is_matched_in_the_joint_space_when_the_deployment_has_both_models():
    from focal.sensing.spaces import intent_scores

    notes: list[str] = []
    q = FIRST.embed(["q"])[0]
    assert intent_scores("tj", agent(0.3), "en", FIRST, q, SECOND, "q", notes)[0].scenario_id == "beta"
    assert intent_scores("tj", agent(0.3), "en", FIRST, q, None, "q", notes)[0].scenario_id == "alpha"  # MiniLM alone
