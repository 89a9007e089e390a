"""Each rule's own threshold, from its nearest other key (focal.retrieval.rule_thresholds), and the rule filter's
bounds that use it and the best rule's score (focal.dialogue.match_bounds)."""

from __future__ import annotations

import numpy as np
import pytest

from focal.dialogue.match_bounds import RELATIVE_MARGIN, THRESHOLD_DROP, best_margin, rule_threshold
from focal.dialogue.rule_filter import below
from focal.models.agent import AgentConfig, Rule, Scenario, Step
from focal.models.turn import ScoredRule
from focal.retrieval import rule_thresholds
from focal.retrieval.lexical import lexical_model
from focal.retrieval.rule_thresholds import nearest_others, rule_nearest_others


def unit(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


# Words that share no character n-gram, so each score is the cosine alone.
TABLE = {
    "kiwi": unit(1, 0, 0, 0), "kiwi. squash": unit(1, 0.1, 0, 0), "mango": unit(0.9, 0.1, 0.2, 0),
    "plum": unit(0, 1, 0, 0), "fudge": unit(0.3, 0.9, 0.1, 0),
    "orbit": unit(0.5, 0, 0, 1),
}


class TableEmbedder:
    """Vectors from a table (no background mean: the calibration leaves them as they are)."""

    dimension = 4
    model_name = "table"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts):
        self.calls += 1
        return np.vstack([TABLE[t] for t in texts])


def agent() -> AgentConfig:
    return AgentConfig(
        id="near", name="Near",
        scenarios=[Scenario(id="trip", name="Trip", entry_examples=["orbit"], entry_step_id="go",
                            steps=[Step(id="go", instructions="Go.")])],
        rules=[Rule(id="a", condition_text="kiwi", action_text="squash", examples=["mango"]),
               Rule(id="b", condition_text="plum", action_text="", examples=["fudge"])],
    )


def test_the_nearest_other_is_the_best_other_example_or_entry_example_never_the_rules_own():
    a = agent()
    lexical = lexical_model(a)
    assert all(v == 0.0 for v in lexical.scores(lexical.vector("kiwi mango plum fudge orbit"), []).values())
    table = nearest_others(a, TableEmbedder())
    keys_a = [TABLE["kiwi"], TABLE["kiwi. squash"], TABLE["mango"]]
    # a: b's example "fudge" or the entry example "orbit" — never its own example "mango" (cosine 0.97 with "kiwi")
    assert table["a"] == pytest.approx(max(float(k @ p) for k in keys_a for p in (TABLE["fudge"], TABLE["orbit"])), abs=1e-6)
    # b: a's example "mango" or "orbit" against b's keys "plum" and "fudge" (its own example "fudge" is a key, not a probe)
    assert table["b"] == pytest.approx(max(float(k @ p) for k in (TABLE["plum"], TABLE["fudge"])
                                           for p in (TABLE["mango"], TABLE["orbit"])), abs=1e-6)


def test_it_is_computed_once_per_config_object_and_not_at_all_above_the_key_limit(monkeypatch):
    a, embedder = agent(), TableEmbedder()
    first = rule_nearest_others(a, embedder)
    calls = embedder.calls
    assert rule_nearest_others(a, embedder) is first and embedder.calls == calls
    monkeypatch.setattr(rule_thresholds, "MAX_KEYS", 3)
    assert nearest_others(agent(), TableEmbedder()) == {}


def test_a_rules_threshold_is_its_nearest_other_bounded_by_the_agents():
    a = AgentConfig(id="x", name="X")
    threshold = a.retrieval.rule_match_threshold
    assert rule_threshold(a, None) == threshold
    assert rule_threshold(a, threshold + 0.3) == threshold  # never raised
    assert rule_threshold(a, threshold - 0.04) == pytest.approx(threshold - 0.04)
    assert rule_threshold(a, -0.5) == pytest.approx(threshold - THRESHOLD_DROP)  # never lowered past the drop


def test_the_best_rule_margin_grows_with_the_best_score():
    a = AgentConfig(id="x", name="X")
    assert best_margin(a, 0.2) == a.retrieval.rule_match_margin
    assert best_margin(a, 1.2) == pytest.approx(RELATIVE_MARGIN * 1.2)


def test_the_rule_filter_lets_a_rule_with_no_near_neighbour_match_below_the_agents_threshold():
    a = AgentConfig(id="x", name="X", rules=[Rule(id="upset", condition_text="The customer is upset", action_text="")])
    threshold = a.retrieval.rule_match_threshold
    plain = ScoredRule(rule_id="upset", score=threshold - 0.05, scope="GLOBAL")
    alone = plain.model_copy(update={"nearest_other": threshold - 0.08})
    crowded = plain.model_copy(update={"nearest_other": threshold - 0.02})
    assert below(a, [plain], plain) == ""
    assert below(a, [alone], alone) is None
    assert below(a, [crowded], crowded) == ""


def test_the_rule_filter_keeps_a_rule_within_a_share_of_a_high_best_score():
    a = AgentConfig(id="x", name="X", rules=[Rule(id=i, condition_text=i, action_text="") for i in ("top", "also")])
    top = ScoredRule(rule_id="top", score=1.0, scope="GLOBAL", best_score=1.0)
    also = ScoredRule(rule_id="also", score=1.0 - a.retrieval.rule_match_margin - 0.05, scope="GLOBAL", best_score=1.0)
    assert below(a, [top, also], also) is None
