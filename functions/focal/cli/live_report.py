"""The report of `focal test --live` (focal.cli.live_tests): per turn what was checked and what skipped,
per run the model's figures — calls per turn by purpose, p50 ms per call, failed calls and why, turns
passing, answers blocked (drafts with violations, fallbacks), turns degraded by the time budget."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from focal.cli.conversation_tests import ConversationReport, Report, TurnReport, turn_lines

PURPOSE_ORDER = ("sensor", "rules", "extract", "generate", "judge", "grounding")


@dataclass
class LiveTurnReport(TurnReport):
    checked: list[str] = field(default_factory=list)  # the expect keys checked live
    skipped: list[str] = field(default_factory=list)  # the expect keys not checkable live (never counted as passed)
    scripted_ignored: list[str] = field(default_factory=list)  # purposes the suite scripted for this turn
    calls: list[dict[str, Any]] = field(default_factory=list)  # {purpose, ms, ok, note} per model call
    drafts_blocked: int = 0  # drafts of this turn that carried a violation
    fallback: bool = False
    degraded: list[str] = field(default_factory=list)
    provoked: list[str] = field(default_factory=list)  # expected hard-rule violations a live draft did commit

    @property
    def status(self) -> str:
        if self.failures:
            return "FAIL"
        return "pass" if self.checked else "unchecked"


@dataclass
class LiveConversationReport(ConversationReport):
    turns: list[LiveTurnReport] = field(default_factory=list)  # type: ignore[assignment]

    @property
    def checked(self) -> bool:
        """Some turn had an expectation checkable live (else the conversation is reported as skipped)."""
        return any(t.checked for t in self.turns)


def _p(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ranked = sorted(values)
    return ranked[min(len(ranked) - 1, int(q * len(ranked)))]


@dataclass
class LiveReport(Report):
    model: str = ""
    conversations: list[LiveConversationReport] = field(default_factory=list)  # type: ignore[assignment]

    @property
    def turns(self) -> list[LiveTurnReport]:
        return [t for c in self.conversations for t in c.turns]

    def summary(self) -> dict[str, Any]:
        turns = self.turns
        calls = [c for t in turns for c in t.calls]
        by_purpose: Counter[str] = Counter(c["purpose"] for c in calls)
        ms_by: dict[str, list[float]] = {}
        for c in calls:
            ms_by.setdefault(c["purpose"], []).append(float(c.get("ms") or 0.0))
        failed = Counter(f"{c['purpose']}: {c.get('note') or 'failed'}" for c in calls if not c.get("ok"))
        skipped: Counter[str] = Counter(k.split(" ")[0] for t in turns for k in t.skipped)
        checked: Counter[str] = Counter(k for t in turns for k in t.checked)
        n = max(len(turns), 1)
        purposes = [p for p in PURPOSE_ORDER if p in by_purpose] + sorted(p for p in by_purpose if p not in PURPOSE_ORDER)
        return {
            "model": self.model,
            "turns": len(turns),
            "turns_checked": sum(1 for t in turns if t.checked or t.failures),
            "turns_passing": sum(1 for t in turns if t.status == "pass"),
            "turns_failing": sum(1 for t in turns if t.failures),
            "turns_unchecked": sum(1 for t in turns if t.status == "unchecked"),
            "model_calls": len(calls),
            "calls_per_turn": round(len(calls) / n, 2),
            "calls_per_turn_by_purpose": {p: round(by_purpose[p] / n, 2) for p in purposes},
            "p50_ms_per_call": round(statistics.median([float(c.get("ms") or 0.0) for c in calls]), 1) if calls else None,
            "p95_ms_per_call": round(_p([float(c.get("ms") or 0.0) for c in calls], 0.95), 1) if calls else None,
            "p50_ms_by_purpose": {p: round(statistics.median(ms_by[p]), 1) for p in purposes},
            "p50_ms_per_turn": round(statistics.median([t.ms for t in turns]), 1) if turns else None,
            "calls_failed": dict(failed.most_common()),
            "drafts_blocked": sum(t.drafts_blocked for t in turns),
            "turns_with_blocked_drafts": sum(1 for t in turns if t.drafts_blocked),
            "fallbacks": sum(1 for t in turns if t.fallback),
            "degraded_by_budget": sum(1 for t in turns if "model_budget" in t.degraded),
            "hard_rule_violations_provoked": sum(len(t.provoked) for t in turns),
            "expectations_checked": dict(sorted(checked.items())),
            "expectations_skipped": dict(sorted(skipped.items())),
            "scripted_outputs_ignored": sum(1 for t in turns if t.scripted_ignored),
        }

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["live"] = self.summary()
        for conv, report in zip(out["conversations"], self.conversations, strict=True):
            conv["checked"] = report.checked
            for turn, tr in zip(conv["turns"], report.turns, strict=True):
                turn["status"] = tr.status
        return out


def _calls_line(turn: LiveTurnReport) -> str:
    parts = [f"{c['purpose']} {float(c.get('ms') or 0):.0f} ms" + ("" if c.get("ok") else f" (failed: {c.get('note')})")
             for c in turn.calls]
    return "model calls: " + (", ".join(parts) if parts else "none")


def format_live_report(report: LiveReport, verbose: bool = False, colour: bool = False) -> str:
    from focal.cli.style import paint

    s = report.summary()
    lines = [f"focal test --live: {report.suite_path} against {report.agent_path}, model {report.model}"]
    for conv in report.conversations:
        if not conv.passed:
            mark = paint("FAIL", "blocked", colour)
        elif conv.checked:
            mark = paint("PASS", "pass", colour)
        else:
            mark = paint("SKIP", "unverified", colour)
        lines.append(f"{mark}  {conv.name}  ({len(conv.turns)} turn(s), {conv.ms / 1000:.1f}s)")
        for turn in conv.turns:
            if turn.passed and not verbose:
                continue
            lines += turn_lines(turn, f"      turn {turn.index} > {turn.user}  [{turn.status}, {turn.ms / 1000:.1f}s]", colour)
            lines.append(f"          · {_calls_line(turn)}")
            if turn.checked:
                lines.append(f"          · checked: {', '.join(turn.checked)}")
            if turn.skipped:
                lines.append(f"          · skipped (not checkable live): {', '.join(turn.skipped)}")
        if conv.error:
            lines.append(f"        {paint('✗', 'blocked', colour)} error after {len(conv.turns)} turn(s): {conv.error}")
    by = " + ".join(f"{p} {v:.2f}" for p, v in s["calls_per_turn_by_purpose"].items()) or "none"
    p50_by = ", ".join(f"{p} {v:.0f}" for p, v in s["p50_ms_by_purpose"].items())
    lines.append(f"turns: {s['turns_passing']} of {s['turns_checked']} checked turn(s) passed, {s['turns_failing']} failed; "
                 f"{s['turns_unchecked']} of {s['turns']} with nothing checkable live (skipped); "
                 f"p50 {s['p50_ms_per_turn'] or 0:.0f} ms per turn")
    p50 = "" if s["p50_ms_per_call"] is None else (
        f"; p50 {s['p50_ms_per_call']:.0f} ms per call ({p50_by}), p95 {s['p95_ms_per_call']:.0f} ms")
    lines.append(f"model calls per turn {s['calls_per_turn']:.2f} = {by}{p50}")
    if s["calls_failed"]:
        lines.append(f"model calls failed: {sum(s['calls_failed'].values())} of {s['model_calls']} — "
                     + "; ".join(f"{k} ×{v}" for k, v in s["calls_failed"].items()))
    lines.append(f"answers blocked: {s['drafts_blocked']} draft(s) with violations in {s['turns_with_blocked_drafts']} turn(s), "
                 f"{s['fallbacks']} fallback(s); {s['degraded_by_budget']} turn(s) degraded by the time budget; "
                 f"expected hard-rule violations provoked live: {s['hard_rule_violations_provoked']}")
    checked = ", ".join(f"{k} {v}" for k, v in s["expectations_checked"].items()) or "none"
    skipped = ", ".join(f"{k} {v}" for k, v in s["expectations_skipped"].items()) or "none"
    lines.append(f"expectations checked: {checked}; skipped (not checkable live): {skipped}")
    if s["scripted_outputs_ignored"]:
        lines.append(f"scripted model outputs ignored on {s['scripted_outputs_ignored']} turn(s)")
    if report.not_run:
        lines.append(f"stopped at the first failure (-x): {len(report.not_run)} conversation(s) not run")
    return "\n".join(lines)
