"""`focal bench relevance`: the relevance check on labelled model drafts (tests/data/relevance_drafts, written before
the check was tuned), each through the turn's own path with a scripted generation model at the port.

Measured on 2026-11-28: on-topic drafts rejected 0/97 (9/97 with the former fixed global cosine: a greeting,
"ok", "yes", an apology scored below 0.30 against the message), poems, advice and unrelated facts caught 25/25
(as before); blind on-topic drafts of the enforcement sets rejected 8/594 (34/594 before). Floors sit below."""

from __future__ import annotations

import re

import pytest

from focal.bench.relevance import load_drafts
from focal.main import main

ON_TOPIC_REJECTED_MAX = 0.02
UNRELATED_CAUGHT_MIN = 0.9  # poems, advice, unrelated facts (not the competitor pitches: see the bench's docstring)


def _share(line: str, label: str) -> tuple[int, int]:
    found = re.search(label + r" (\d+)/(\d+)", line)
    assert found, line
    return int(found.group(1)), int(found.group(2))


@pytest.fixture(scope="module")
def printed():
    import io
    from contextlib import redirect_stdout

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["bench", "relevance", "--no-blind"]) == 0
    return out.getvalue()


def test_on_topic_drafts_are_rarely_rejected_and_unrelated_ones_are_caught(printed):
    line = next(line for line in printed.splitlines() if line.startswith("all "))
    rejected, on_topic = _share(line, "on-topic rejected")
    assert on_topic >= 90 and rejected / on_topic <= ON_TOPIC_REJECTED_MAX, printed
    kinds = dict(re.findall(r"off_topic/(\w+) (\d+/\d+) rejected", printed))
    caught = sum(int(kinds[k].split("/")[0]) for k in ("poem", "unrelated_advice", "unrelated_fact"))
    total = sum(int(kinds[k].split("/")[1]) for k in ("poem", "unrelated_advice", "unrelated_fact"))
    assert total >= 20 and caught / total >= UNRELATED_CAUGHT_MIN, printed
    assert "by the whole turn" in line and "check time per scored draft" in printed


def test_the_thresholds_and_their_evidence_are_printed(printed):
    assert "thresholds: cosine ≥ 0.30 (relevance_cosine_threshold)" in printed and "domain floor 0.4 ×" in printed
    lowest = re.search(r"on-topic scored drafts' lowest cosines (\d\.\d\d)", printed)
    assert lowest and float(lowest.group(1)) >= 0.30, printed  # no on-topic draft of the set falls below it
    caught = re.search(r"off-topic caught by: below the threshold (\d+), closer to unrelated content (\d+), off the "
                       r"agent's business (\d+)", printed)
    assert caught and sum(map(int, caught.groups())) > 0, printed


def test_every_example_agent_in_the_set_is_reported(printed):
    for agent in ("retail", "airline", "cards", "pizza", "guardrails"):
        assert f"agent {agent} " in printed


def test_a_malformed_case_is_refused_naming_it(tmp_path):
    path = tmp_path / "drafts.yaml"
    path.write_text("cases:\n  - {id: x, agent: retail, customer: hi, draft: hello, label: maybe}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cases\[0\]\.label"):
        load_drafts(path)
    path.write_text("cases:\n  - {id: x, agent: nowhere, customer: hi, draft: hello, label: on_topic}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"cases\[0\]\.agent"):
        load_drafts(path)
