"""The figure-in-context check (focal.enforcement.figure_context) on labelled drafts: the dev set written with the check
(tests/data/figures_dev: shipped example agents, en/es/de/fr) and the held-out set written blind by another session
(tests/data/drafts_figures_blind, see its README; measured once, after the check's last design choice). The bounds
are regression guards a little below what was measured, never perfection."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.bench.drafts import run_set, shipped_embedders
from focal.config.loader import load_agent
from focal.enforcement.facts import DeclaredFigure, agent_declared_texts, build_sources, unbound_facts
from focal.enforcement.figure_context import figure_problems

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def _blocked(case: dict) -> bool:
    agent = load_agent(ROOT / "examples" / case["agent"] / "agent.yaml")
    texts = agent_declared_texts(agent)
    src = build_sources(texts, case.get("known") or {}, [case["customer"]])
    declared: list[DeclaredFigure] = []
    found = unbound_facts(case["draft"], src, [], languages=agent.languages, declared=declared)
    return bool(found or figure_problems(agent, texts, declared, case["language"], *shipped_embedders()))


def test_the_dev_set_catches_wrong_fact_figures_and_answers_restated_ones():
    cases = yaml.safe_load((DATA / "figures_dev" / "cases.yaml").read_text(encoding="utf-8"))["cases"]
    assert {c["language"] for c in cases} == {"en", "es", "de", "fr"} and len({c["agent"] for c in cases}) >= 3
    verdicts = [(c["label"], _blocked(c)) for c in cases]
    ok = [b for label, b in verdicts if label == "compliant"]
    bad = [b for label, b in verdicts if label == "violating"]
    # measured: compliant blocked 4/46 (2 of them by the value check alone), wrong-fact figures caught 20/32 (0 before)
    assert sum(ok) <= 5
    assert sum(bad) >= 17


def test_the_blind_figures_set_stays_within_what_was_measured():
    outcomes = run_set(DATA / "drafts_figures_blind")
    assert len(outcomes) == 320 and {o.language for o in outcomes} == {"en", "es", "de", "fr"}
    ok = [o for o in outcomes if o.label == "compliant"]
    bad = [o for o in outcomes if o.label == "violating"]
    blocked_ok = sum(o.verdict == "blocked" for o in ok)
    caught = sum(o.verdict != "passed" for o in bad)
    assert blocked_ok <= BLIND_COMPLIANT_BLOCKED + 3
    assert caught >= BLIND_CAUGHT - 3


# held out, measured after the last design choice (each figure of a sentence of several read by its own window, kinds
# narrowing the rivals, a range in words one figure): 33 of 200 compliant blocked, 87 of 120 caught. Before it, 23 and
# 72: the windows catch 15 more wrong figures at the cost of 10 more correct drafts blocked
BLIND_COMPLIANT_BLOCKED = 33
BLIND_CAUGHT = 87
