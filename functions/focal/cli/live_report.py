"""The report of `focal test --live` (focal.cli.live_tests): per turn what was checked and what skipped,
per run the model's figures — calls per turn by purpose, p50 ms per call, failed calls and why, turns
passing, answers blocked (drafts with violations, fallbacks), turns degraded by the time budget."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from focal.cli.conversation_tests import ConversationReport, Report, TurnReport, turn_lines
from focal.cli.suite_report import error_line, not_run_lines

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


def _ms(call: dict[str, Any]) -> float:
    return float(call.get("ms") or 0.0)


def _turn_counts(turns: list[LiveTurnReport]) -> dict[str, int]:
    """Turns checked (something checkable live, or a failure), passing, failing, with nothing checkable."""
    return {
        "turns": len(turns),
        "turns_checked": sum(1 for t in turns if t.checked or t.failures),
        "turns_passing": sum(1 for t in turns if t.status == "pass"),
        "turns_failing": sum(1 for t in turns if t.failures),
        "turns_unchecked": sum(1 for t in turns if t.status == "unchecked"),
    }


def _purposes(by_purpose: Counter[str]) -> list[str]:
    """The purposes calls were made for: the pipeline's own in its order, then any other by name."""
    return [p for p in PURPOSE_ORDER if p in by_purpose] + sorted(p for p in by_purpose if p not in PURPOSE_ORDER)


def _call_figures(calls: list[dict[str, Any]], n_turns: int) -> dict[str, Any]:
    """Model calls in all, per turn (by purpose), and their p50/p95 ms (p50 by purpose); None without calls."""
    by_purpose: Counter[str] = Counter(c["purpose"] for c in calls)
    ms_by: dict[str, list[float]] = {}
    for c in calls:
        ms_by.setdefault(c["purpose"], []).append(_ms(c))
    purposes = _purposes(by_purpose)
    every = [_ms(c) for c in calls]
    return {
        "model_calls": len(calls),
        "calls_per_turn": round(len(calls) / n_turns, 2),
        "calls_per_turn_by_purpose": {p: round(by_purpose[p] / n_turns, 2) for p in purposes},
        "p50_ms_per_call": round(statistics.median(every), 1) if calls else None,
        "p95_ms_per_call": round(_p(every, 0.95), 1) if calls else None,
        "p50_ms_by_purpose": {p: round(statistics.median(ms_by[p]), 1) for p in purposes},
    }


def _failed_calls(calls: list[dict[str, Any]]) -> dict[str, int]:
    """'purpose: why' of each failed call, counted, the most frequent first."""
    failed = Counter(f"{c['purpose']}: {c.get('note') or 'failed'}" for c in calls if not c.get("ok"))
    return dict(failed.most_common())


def _answer_counts(turns: list[LiveTurnReport]) -> dict[str, int]:
    """What enforcement and the time budget did to the turns' answers."""
    return {
        "drafts_blocked": sum(t.drafts_blocked for t in turns),
        "turns_with_blocked_drafts": sum(1 for t in turns if t.drafts_blocked),
        "fallbacks": sum(1 for t in turns if t.fallback),
        "degraded_by_budget": sum(1 for t in turns if "model_budget" in t.degraded),
        "hard_rule_violations_provoked": sum(len(t.provoked) for t in turns),
    }


def _expectation_counts(turns: list[LiveTurnReport]) -> dict[str, dict[str, int]]:
    """Each expectation key checked live, and each skipped (by its key, without what follows it), counted."""
    checked: Counter[str] = Counter(k for t in turns for k in t.checked)
    skipped: Counter[str] = Counter(k.split(" ")[0] for t in turns for k in t.skipped)
    return {"expectations_checked": dict(sorted(checked.items())), "expectations_skipped": dict(sorted(skipped.items()))}


@dataclass
class LiveReport(Report):
    model: str = ""
    conversations: list[LiveConversationReport] = field(default_factory=list)  # type: ignore[assignment]

    @property
    def turns(self) -> list[LiveTurnReport]:
        return [t for c in self.conversations for t in c.turns]

    def summary(self) -> dict[str, Any]:
        """The run's figures (their keys in the order `--json` writes them)."""
        turns = self.turns
        calls = [c for t in turns for c in t.calls]
        return {
            "model": self.model,
            **_turn_counts(turns),
            **_call_figures(calls, max(len(turns), 1)),
            "p50_ms_per_turn": round(statistics.median([t.ms for t in turns]), 1) if turns else None,
            "calls_failed": _failed_calls(calls),
            **_answer_counts(turns),
            **_expectation_counts(turns),
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


def _mark(conv: LiveConversationReport, colour: bool) -> str:
    """FAIL, PASS, or SKIP for a conversation with nothing checkable live."""
    from focal.cli.style import paint

    if not conv.passed:
        return paint("FAIL", "blocked", colour)
    return paint("PASS", "pass", colour) if conv.checked else paint("SKIP", "unverified", colour)


def _live_turn_lines(turn: LiveTurnReport, colour: bool) -> list[str]:
    """A turn as the offline report shows it, then its model calls and what was checked and skipped live."""
    head = f"      turn {turn.index} > {turn.user}  [{turn.status}, {turn.ms / 1000:.1f}s]"
    lines = [*turn_lines(turn, head, colour), f"          · {_calls_line(turn)}"]
    if turn.checked:
        lines.append(f"          · checked: {', '.join(turn.checked)}")
    if turn.skipped:
        lines.append(f"          · skipped (not checkable live): {', '.join(turn.skipped)}")
    return lines


def _conversation_lines(conv: LiveConversationReport, verbose: bool, colour: bool) -> list[str]:
    lines = [f"{_mark(conv, colour)}  {conv.name}  ({len(conv.turns)} turn(s), {conv.ms / 1000:.1f}s)"]
    for turn in conv.turns:
        if verbose or not turn.passed:
            lines += _live_turn_lines(turn, colour)
    return lines + ([error_line(conv, colour)] if conv.error else [])


def _counted(counts: dict[str, Any], form: str, empty: str = "none") -> str:
    return ", ".join(form.format(k, v) for k, v in counts.items()) or empty


def _model_lines(s: dict[str, Any]) -> list[str]:
    """Model calls per turn by purpose, their p50/p95 ms, and the failed calls with why."""
    by = " + ".join(f"{p} {v:.2f}" for p, v in s["calls_per_turn_by_purpose"].items()) or "none"
    p50 = "" if s["p50_ms_per_call"] is None else (
        f"; p50 {s['p50_ms_per_call']:.0f} ms per call ({_counted(s['p50_ms_by_purpose'], '{} {:.0f}', '')}), "
        f"p95 {s['p95_ms_per_call']:.0f} ms")
    lines = [f"model calls per turn {s['calls_per_turn']:.2f} = {by}{p50}"]
    if s["calls_failed"]:
        lines.append(f"model calls failed: {sum(s['calls_failed'].values())} of {s['model_calls']} — "
                     + "; ".join(f"{k} ×{v}" for k, v in s["calls_failed"].items()))
    return lines


def _figures_lines(s: dict[str, Any]) -> list[str]:
    """The run's figures (`LiveReport.summary`) as the report's closing lines."""
    turns = (f"turns: {s['turns_passing']} of {s['turns_checked']} checked turn(s) passed, {s['turns_failing']} failed; "
             f"{s['turns_unchecked']} of {s['turns']} with nothing checkable live (skipped); "
             f"p50 {s['p50_ms_per_turn'] or 0:.0f} ms per turn")
    answers = (f"answers blocked: {s['drafts_blocked']} draft(s) with violations in {s['turns_with_blocked_drafts']} "
               f"turn(s), {s['fallbacks']} fallback(s); {s['degraded_by_budget']} turn(s) degraded by the time budget; "
               f"expected hard-rule violations provoked live: {s['hard_rule_violations_provoked']}")
    expectations = (f"expectations checked: {_counted(s['expectations_checked'], '{} {}')}; "
                    f"skipped (not checkable live): {_counted(s['expectations_skipped'], '{} {}')}")
    ignored = s["scripted_outputs_ignored"]
    return [turns, *_model_lines(s), answers, expectations,
            *([f"scripted model outputs ignored on {ignored} turn(s)"] if ignored else [])]


def format_live_report(report: LiveReport, verbose: bool = False, colour: bool = False) -> str:
    lines = [f"focal test --live: {report.suite_path} against {report.agent_path}, model {report.model}"]
    for conv in report.conversations:
        lines += _conversation_lines(conv, verbose, colour)
    lines += [*_figures_lines(report.summary()), *not_run_lines(report)]
    return "\n".join(lines)
