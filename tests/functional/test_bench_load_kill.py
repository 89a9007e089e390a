"""`focal bench load --kill-once`: a real `focal serve` child process killed with SIGKILL mid-run and started
again; every client retries its failed turn with the same turn id until answered. Nothing is lost or recorded
twice. Small scale; the timeouts inside the bench are failure guards only (nothing here asserts a duration)."""

from __future__ import annotations

import re
from pathlib import Path

from focal.bench.load_kill import load_with_kill

AGENT = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"


def _count(out: str, label: str) -> int:
    match = re.search(rf"^{label}\s+(\d+)", out, re.MULTILINE)
    assert match, out
    return int(match.group(1))


def test_a_server_killed_mid_run_loses_and_duplicates_no_turn():
    # a 2 s turn budget: a claim left by the killed server blocks its retries for 12 s, not 30
    out = load_with_kill(str(AGENT), conversations=5, turns=2, turn_budget_s=2)
    assert re.search(r"^SIGKILL\s+once, after 4 answers", out, re.MULTILINE), out
    assert re.search(r"^turns answered\s+10 of 10", out, re.MULTILINE), out
    for label in ("failed answers", "lost turns", "duplicated", "counted twice", "mismatched"):
        assert _count(out, label) == 0, out
    interrupted = _count(out, "interrupted")
    assert interrupted >= 1, out  # the kill cut turns in flight; each was retried until answered
    # a turn the dead server had claimed is refused until the claim's lease ends, and Retry-After says when:
    # one wait per interrupted turn at most, then the retry takes the claim over
    assert _count(out, "in-progress") <= interrupted, out
