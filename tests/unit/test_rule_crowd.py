"""A search's crowd (focal.dialogue.match_bounds): every hit carries the mean score of the search's rules after the
best few; a search that finds too few rules has none, nor does an agent of very many rules."""

from __future__ import annotations

import numpy as np
import pytest
from tests.unit.test_lexical_evidence import FixedIndex  # each rule's key at a fixed calibrated score

from focal.dialogue.match_bounds import CROWD_FROM, CROWD_MAX_RULES
from focal.models.agent import AgentConfig, Rule
from focal.ports import ScopeFilter
from focal.retrieval.matching import search_rules


def _agent(n: int) -> AgentConfig:
    return AgentConfig(id="crowd", name="Crowd", rules=[
        Rule(id=f"r{i}", condition_text=f"The member asks about topic {i}", action_text="") for i in range(n)])


def test_each_hit_carries_the_mean_of_the_rules_after_the_best_few():
    scores = [0.6, 0.5, 0.45, 0.4, 0.3, 0.2, 0.1]
    agent = _agent(len(scores))
    hits = search_rules(agent, FixedIndex({f"r{i}": s for i, s in enumerate(scores)}), ScopeFilter("t", "crowd"),
                        np.zeros(4, dtype=np.float32), 10)
    crowd = sum(scores[CROWD_FROM:]) / len(scores[CROWD_FROM:])
    assert len(hits) == len(scores)
    assert all(h.crowd == pytest.approx(crowd) for h in hits)


def test_a_search_with_too_few_rules_has_no_crowd():
    agent = _agent(CROWD_FROM)
    hits = search_rules(agent, FixedIndex({f"r{i}": 0.5 - 0.1 * i for i in range(CROWD_FROM)}), ScopeFilter("t", "crowd"),
                        np.zeros(4, dtype=np.float32), 10)
    assert hits and all(h.crowd is None for h in hits)


def test_an_agent_of_very_many_rules_has_no_crowd():
    scores = [0.6, 0.5, 0.45, 0.4, 0.3, 0.2, 0.1]
    index = FixedIndex({f"r{i}": s for i, s in enumerate(scores)})
    for n, has_crowd in ((CROWD_MAX_RULES, True), (CROWD_MAX_RULES + 1, False)):
        hits = search_rules(_agent(n), index, ScopeFilter("t", "crowd"), np.zeros(4, dtype=np.float32), 10)
        assert all((h.crowd is not None) is has_crowd for h in hits)
