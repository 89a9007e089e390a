"""Scoring and the report of `focal bench enforcement` (focal.bench.enforcement): TP/FP/FN per lane and per check
over (case, id) pairs, with and without the cases marked hard; each lane's latency and status; the share of
violating drafts caught, the false-block rate on compliant ones, and (with --show) the wrong cases by id."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from focal.bench.enforcement_cases import CHECKS, LANES, Case, lane_of
from focal.models.agent import AgentConfig


@dataclass
class Outcome:
    case: Case
    predicted: dict[str, str]  # violated id -> lane
    unverified: list[str]
    timings: dict[str, float]  # lane -> ms
    stage_ms: float

    @property
    def correct(self) -> bool:
        return set(self.predicted) == set(self.case.expected)


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def score(agent: AgentConfig, outcomes: Sequence[Outcome], include_hard: bool = True) -> tuple[dict[str, Tally], dict[str, Tally]]:
    """(per lane, per check) TP/FP/FN over (case, id) pairs. A predicted id is attributed to the lane
    that reported it; an expected one to the lane that should have."""
    lanes: dict[str, Tally] = {lane: Tally() for lane in LANES}
    checks: dict[str, Tally] = {}
    for o in outcomes:
        if o.case.hard and not include_hard:
            continue
        for check in set(o.predicted) | set(o.case.expected):
            lane = o.predicted.get(check) or lane_of(agent, check)
            t_lane, t_check = lanes.setdefault(lane, Tally()), checks.setdefault(check, Tally())
            hit, wanted = check in o.predicted, check in o.case.expected
            for t in (t_lane, t_check):
                t.tp += hit and wanted
                t.fp += hit and not wanted
                t.fn += wanted and not hit
    return lanes, checks


def lane_ran(lane: str, outcomes: Sequence[Outcome]) -> bool:
    return any(lane in o.timings or lane in o.predicted.values() for o in outcomes)


def _pct(value: float | None) -> str:
    return "   —" if value is None else f"{value:.3f}"


def _ms(values: list[float]) -> str:
    if not values:
        return f"{'—':>7} {'—':>7}"
    return f"{np.percentile(values, 50):7.2f} {np.percentile(values, 95):7.2f}"


def _row(name: str, t: Tally, easy: Tally, timing: str, status: str = "") -> str:
    """A lane's or a check's row: TP/FP/FN, precision and recall (all cases, then excluding hard ones), timing."""
    return (f"{name:<26}{t.tp:>5}{t.fp:>5}{t.fn:>5}  {_pct(t.precision):>6} {_pct(t.recall):>6}  "
            f"{_pct(easy.precision):>6} {_pct(easy.recall):>6}  {timing}{'  ' + status if status else ''}")


def _header_lines(agent: AgentConfig, outcomes: Sequence[Outcome], source: str, checks: Sequence[str]) -> list[str]:
    compliant = sum(1 for o in outcomes if not o.case.expected)
    hard = sum(o.case.hard for o in outcomes)
    categories: dict[str, int] = {}
    for o in outcomes:
        categories[o.case.category] = categories.get(o.case.category, 0) + 1
    return [
        f"enforcement on {source}: agent {agent.id!r}, {len(outcomes)} cases ({hard} hard, {compliant} compliant), "
        f"one draft each, max_retries 0, output checks on: {', '.join(checks) or 'none'}",
        "categories: " + ", ".join(f"{k} {v}" for k, v in sorted(categories.items())),
        "",
        f"{'lane / check':<26}{'TP':>5}{'FP':>5}{'FN':>5}  {'prec':>6} {'recall':>6}  {'excl. hard':>13}  {'p50 ms':>7} {'p95 ms':>7}",
    ]


def _lane_status(agent: AgentConfig, lane: str, outcomes: Sequence[Outcome], checks: Sequence[str]) -> str:
    """Why a lane has no figures (off, no model, not run), or where its judge verdicts came from; and the cases
    the judge left unverified."""
    scripted_judge = any(o.case.judge for o in outcomes)
    status = ""
    if lane in CHECKS and lane not in checks:
        status = "off (the set is not labelled for it)"
    elif lane == "judge" and not scripted_judge:
        status = ("no model: subjective rules marked unverified" if agent.enforcement.unverifiable_subjective
                  == "mark_unverified" else "no model: subjective rules block (fail_closed)")
    elif not lane_ran(lane, outcomes):
        status = "not run (no verdict, no timing)"
    elif lane == "judge":
        status = "scripted verdicts"
    unverified = sum(bool(o.unverified) for o in outcomes) if lane == "judge" else 0
    if unverified:
        status += f"{'; ' if status else ''}unverified (no verdict) in {unverified} case(s)"
    return status


def _lane_timings(lane: str, outcomes: Sequence[Outcome]) -> list[float]:
    # an unverified judge made no call: its near-zero time is not the lane's latency
    return [o.timings[lane] for o in outcomes if lane in o.timings and not (lane == "judge" and o.unverified)]


def _table_lines(agent: AgentConfig, outcomes: Sequence[Outcome], checks: Sequence[str]) -> list[str]:
    """Each lane with its checks under it, any other lane that reported, then all lanes together."""
    lanes_all, checks_all = score(agent, outcomes)
    lanes_easy, checks_easy = score(agent, outcomes, include_hard=False)
    lines = []
    for lane in LANES:
        status = _lane_status(agent, lane, outcomes, checks)
        lines.append(_row(lane, lanes_all[lane], lanes_easy[lane], _ms(_lane_timings(lane, outcomes)), status))
        for check in sorted(c for c in checks_all if lane_of(agent, c) == lane):
            lines.append(_row(f"  {check}", checks_all[check], checks_easy.get(check, Tally()), ""))
    for lane in sorted(set(lanes_all) - set(LANES)):
        lines.append(_row(lane, lanes_all[lane], lanes_easy.get(lane, Tally()), ""))
    total = Tally(*(sum(getattr(t, k) for t in lanes_all.values()) for k in ("tp", "fp", "fn")))
    easy = Tally(*(sum(getattr(t, k) for t in lanes_easy.values()) for k in ("tp", "fp", "fn")))
    return lines + [_row("all lanes", total, easy, _ms([o.stage_ms for o in outcomes]), "(timing: the whole stage)")]


def _rate_lines(outcomes: Sequence[Outcome]) -> list[str]:
    """Violating drafts caught whole, compliant drafts blocked (by lane), cases with exactly the expected verdict."""
    compliant = [o for o in outcomes if not o.case.expected]
    blocked = [o for o in compliant if o.predicted]
    rate = len(blocked) / len(compliant) if compliant else 0.0
    violating = [o for o in outcomes if o.case.expected]
    caught = [o for o in violating if o.case.expected <= set(o.predicted)]
    return [
        f"violating drafts caught (every expected id reported): {len(caught)}/{len(violating)} "
        f"({len(caught) / len(violating) if violating else 0.0:.1%})",
        f"false-block rate on compliant drafts: {len(blocked)}/{len(compliant)} ({rate:.1%}); by lane: "
        + ", ".join(f"{lane} {sum(lane in o.predicted.values() for o in compliant)}" for lane in LANES),
        f"cases with exactly the expected verdict: {sum(o.correct for o in outcomes)}/{len(outcomes)}",
    ]


def _wrong_lines(outcomes: Sequence[Outcome]) -> list[str]:
    """Each case with another verdict than expected, by id: the ids it missed and those it reported falsely."""
    lines = []
    for o in outcomes:
        if not o.correct:
            missed = sorted(set(o.case.expected) - set(o.predicted))
            extra_ids = sorted(set(o.predicted) - set(o.case.expected))
            lines.append(f"  wrong {o.case.id}{' (hard)' if o.case.hard else ''}: "
                         f"missed {missed or '-'}, false {extra_ids or '-'}")
    return lines


def format_report(
    agent: AgentConfig, outcomes: Sequence[Outcome], source: str, show: bool = False, checks: Sequence[str] = CHECKS
) -> str:
    lines = [*_header_lines(agent, outcomes, source, checks), *_table_lines(agent, outcomes, checks), "",
             *_rate_lines(outcomes), *(_wrong_lines(outcomes) if show else [])]
    return "\n".join(lines)
