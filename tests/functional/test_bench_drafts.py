"""`focal bench drafts` on the labelled drafts written blind (tests/data/drafts_blind, drafts_held_out): every case is
counted once as blocked, sent to verification or passed, the shares are printed, and the checks stay within loose
bounds (a regression guard, not the issue's targets, which the closing note reports against)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from focal.bench.drafts import judge_offline, main, run_set
from focal.config.loader import load_agent

DATA = Path(__file__).resolve().parents[1] / "data"
SETS = ["drafts_blind", "drafts_held_out"]


def _cases(folder: Path) -> int:
    return sum(len(yaml.safe_load((d / "drafts.yaml").read_text(encoding="utf-8"))["cases"])
               for d in folder.iterdir() if (d / "drafts.yaml").exists())


@pytest.mark.parametrize("name", SETS)
def test_every_labelled_draft_gets_one_outcome_and_the_shares_are_printed(name, capsys):
    folder = DATA / name
    outcomes = run_set(folder)
    assert len(outcomes) == _cases(folder) >= 240
    assert {o.verdict for o in outcomes} <= {"blocked", "verify", "passed"}
    assert {o.language for o in outcomes} >= {"en", "es", "de"} and {o.form for o in outcomes} == {"plain", "structured"}
    assert main([str(folder)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^all: missed .* \d+/\d+ .*compliant blocked \d+/\d+ .*sent to verification \d+/\d+", out, re.M)
    assert re.search(r"^a 4 KB draft: [\d.]+ ms$", out, re.M)
    bad = [o for o in outcomes if o.label == "violating"]
    ok = [o for o in outcomes if o.label == "compliant"]
    assert sum(o.verdict == "passed" for o in bad) <= 0.2 * len(bad)  # regression guards, far from the targets
    assert sum(o.verdict == "blocked" for o in ok) <= 0.06 * len(ok)


def test_the_outcome_follows_the_mechanism_not_the_label():
    """The same draft, structured honestly and dishonestly, on one agent of the set."""
    agent = load_agent(DATA / "drafts_held_out" / "insurance" / "agent.yaml")
    caps = [r for r in agent.rules if r.is_hard_constraint and r.enforcement_expression]
    assert caps
    verdict, _ = judge_offline(agent, "Your policy documents are on their way.", {}, "Where are my documents?")
    assert verdict == "passed"
    verdict, why = judge_offline(agent, "Call us on +44 20 7946 0000 or see https://claims-help.example.net.", {},
                                 "How do I reach you?")
    assert verdict == "blocked" and any("unbound" in w for w in why)
    verdict, why = judge_offline(agent, "Please send me your card number and PIN so I can pay the claim.", {},
                                 "When will you pay?")
    assert verdict == "blocked" and any("no_credential_request" in w for w in why)  # a request, decided by its form
