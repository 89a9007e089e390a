"""The real large agent of `focal bench retrieval --rules` (focal.bench.retrieval_large): the example's file grown with
synthetic rules is read by the product's loader, within its limits, and its figures count the example's rules apart
from the synthetic ones."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.bench.retrieval import Case, CaseResult
from focal.bench.retrieval_large import AT_LIMIT, SYNTHETIC, large_agent, measure, room, synthetic_rules
from focal.config.limits import AGENT_FILE_LIMITS
from focal.config.loader import AgentConfigInvalid, agent_from_text
from focal.models.turn import ScoredRule

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def test_synthetic_rules_are_distinct_rules_with_a_condition_and_an_action() -> None:
    rules = synthetic_rules(300)
    assert len({r["id"] for r in rules}) == len({r["condition_text"] for r in rules}) == 300
    assert all(r["id"].startswith(SYNTHETIC) and r["action_text"] for r in rules)
    assert synthetic_rules(300) == rules  # the same agent every run
    with pytest.raises(ValueError, match="distinct synthetic rules"):
        synthetic_rules(10**6)


def test_the_largest_agent_is_what_the_loader_allows_and_one_more_rule_is_refused() -> None:
    raw = yaml.safe_load(RETAIL.read_text(encoding="utf-8"))
    own = len(raw["rules"])
    agent = large_agent(RETAIL, AT_LIMIT)
    assert len(agent.rules) == own + room(raw) <= AGENT_FILE_LIMITS.rules
    assert agent.rule(raw["rules"][0]["id"]) is not None  # the example's own rules are kept, as written
    raw["rules"] += synthetic_rules(room(raw) + 1)
    with pytest.raises(AgentConfigInvalid, match="the limit is"):
        agent_from_text(yaml.dump(raw, Dumper=yaml.CSafeDumper), "over", str(RETAIL.parent))


def test_a_grown_agent_has_the_rules_asked_for() -> None:
    agent = large_agent(RETAIL, 150)
    assert len(agent.rules) == 150
    assert sum(r.id.startswith(SYNTHETIC) for r in agent.rules) == 150 - len(yaml.safe_load(RETAIL.read_text())["rules"])


def test_precision_counts_the_examples_rules_and_synthetic_ones_beside_them() -> None:
    agent = large_agent(RETAIL, 40)
    own = [r.id for r in agent.rules if not r.id.startswith(SYNTHETIC)]

    def result(expected: tuple[str, ...], *passing: str) -> CaseResult:
        candidates = [ScoredRule(rule_id=rule_id, score=0.9, scope="GLOBAL") for rule_id in passing]
        return CaseResult(Case("m", None, None, expected), [], candidates, ms_search=1.0)

    row = measure(agent, [result((own[0],), own[0], f"{SYNTHETIC}0"), result((own[1],), own[2])], 40)
    assert (row.found, row.expected, row.others) == (1, 2, 1)
    assert row.synthetic == 0.5 and row.recall == 0.5 and row.precision == 0.5


def test_agent_sizes_on_the_command_line() -> None:
    from focal.bench.retrieval_cli import _agent_sizes

    assert _agent_sizes("150,500,max") == [150, 500, AT_LIMIT]
    assert _agent_sizes("max") == [AT_LIMIT] and _agent_sizes("40") == [40]
    with pytest.raises(ValueError, match="comma-separated integers"):
        _agent_sizes("many")
