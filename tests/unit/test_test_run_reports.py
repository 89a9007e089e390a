"""The text of a `focal test` report and of a `focal test --live` report, and the live run's figures, line by line
(focal.cli.suite_report.format_report, focal.cli.live_report)."""

from __future__ import annotations

from focal.cli.live_report import LiveConversationReport, LiveReport, LiveTurnReport, format_live_report
from focal.cli.style import paint
from focal.cli.suite_report import ConversationReport, Report, TurnReport, format_report


def offline_report() -> Report:
    return Report(agent_path="agent.yaml", suite_path="tests.yaml", ms=4321.0, tasks_total=5, not_run=["later"],
                  conversations=[
        ConversationReport(name="happy", ms=1200.0, task=1, turns=[
            TurnReport(1, "hello", "Hi there", "respond", ms=5.0, why=["draft 1: compliant"]),
            TurnReport(2, "book it", "Booked", "respond", warnings=["scripted sensor output not used: fast path"]),
        ]),
        ConversationReport(name="refused", ms=800.0, task=2, error="ToolError: down", turns=[
            TurnReport(1, "pay me back", "I cannot do that", "rejected", failures=["expected tool calls ['pay'] with "
                       "status ok, got none"], guard_attempt=True, why=["guard cap stopped pay"]),
        ]),
        ConversationReport(name="blocked", ms=100.0, task=2, turns=[
            TurnReport(1, "pay 5000", "No", "rejected", guard_attempt=True),
        ]),
    ])


def test_the_offline_report_lists_failing_turns_warnings_and_the_figures() -> None:
    assert format_report(offline_report()).splitlines() == [
        "focal test: tests.yaml against agent.yaml",
        "PASS  happy  (2 turn(s), 1.20s)",
        "      turn 2 > book it",
        "        ⚠ scripted sensor output not used: fast path",
        "FAIL  refused  (1 turn(s), 0.80s)",
        "      turn 1 > pay me back",
        "        ✗ expected tool calls ['pay'] with status ok, got none",
        "        < [rejected] 'I cannot do that'",
        "          · guard cap stopped pay",
        "        ✗ error after 1 turn(s): ToolError: down",
        "PASS  blocked  (1 turn(s), 0.10s)",
        "2 of 3 conversation(s) passed, 4 turn(s), 4.32s; FAILED: refused",
        "⚠ 1 turn(s) with warnings",
        "stopped at the first failure (-x): 1 conversation(s) not run",
        "tasks covered: 1 of 5 · violating attempts blocked: 1 of 2",
    ]


def test_verbose_lists_every_turn_and_colour_paints_the_marks() -> None:
    report = offline_report()
    report.conversations = report.conversations[:1]
    report.not_run, report.tasks_total = [], None
    assert format_report(report, verbose=True, colour=True).splitlines() == [
        "focal test: tests.yaml against agent.yaml",
        f"{paint('PASS', 'pass', True)}  happy  (2 turn(s), 1.20s)",
        "      turn 1 > hello",
        "        < [respond] 'Hi there'",
        "          · draft 1: compliant",
        "      turn 2 > book it",
        f"        {paint('⚠', 'unverified', True)} scripted sensor output not used: fast path",
        "        < [respond] 'Booked'",
        "1 of 1 conversation(s) passed, 2 turn(s), 4.32s",
        f"{paint('⚠', 'unverified', True)} 1 turn(s) with warnings",
        "tasks covered: 1 of 1",
    ]


def test_a_report_without_tasks_guards_or_warnings_ends_with_its_counts() -> None:
    report = Report(agent_path="a", suite_path="s", conversations=[
        ConversationReport(name="plain", turns=[TurnReport(1, "hi", "Hello", "respond")])])
    assert format_report(report, colour=True).splitlines() == [
        "focal test: s against a", f"{paint('PASS', 'pass', True)}  plain  (1 turn(s), 0.00s)",
        "1 of 1 conversation(s) passed, 1 turn(s), 0.00s"]
    report.conversations[0].turns[0].failures = ["expected x, got y"]
    assert format_report(report, colour=True).splitlines()[-1] == (
        f"0 of 1 conversation(s) passed, 1 turn(s), 0.00s; {paint('FAILED', 'blocked', True)}: plain")


def live_report() -> LiveReport:
    return LiveReport(agent_path="agent.yaml", suite_path="tests.yaml", model="canned/m", not_run=["later"], conversations=[
        LiveConversationReport(name="checked", ms=2500.0, turns=[
            LiveTurnReport(1, "hello", "Hi", "respond", ms=900.0, checked=["response_contains"], skipped=["scenario"],
                           calls=[{"purpose": "generate", "ms": 400.0, "ok": True},
                                  {"purpose": "sensor", "ms": 100.0, "ok": True}]),
            LiveTurnReport(2, "pay 5000", "No", "rejected", ms=1500.0, checked=["violations"],
                           skipped=["violations (relevance)", "regenerations"], drafts_blocked=2, fallback=True,
                           degraded=["model_budget"], provoked=["cap"], scripted_ignored=["generate"],
                           calls=[{"purpose": "generate", "ms": 700.0, "ok": False, "note": "Timeout"},
                                  {"purpose": "generate", "ms": 300.0, "ok": True},
                                  {"purpose": "custom", "ms": 50, "ok": False},
                                  {"purpose": "judge", "ok": True}]),
        ]),
        LiveConversationReport(name="failing", ms=700.0, error="RuntimeError: boom", turns=[
            LiveTurnReport(1, "hi", "Hello", "respond", ms=700.0, failures=["expected a, got b"],
                           checked=["response_contains"], calls=[]),
        ]),
        LiveConversationReport(name="nothing live", ms=300.0, turns=[
            LiveTurnReport(1, "hi", "Hello", "respond", ms=300.0, skipped=["scenario"]),
        ]),
    ])


def test_the_live_figures() -> None:
    assert live_report().summary() == {
        "model": "canned/m",
        "turns": 4,
        "turns_checked": 3,
        "turns_passing": 2,
        "turns_failing": 1,
        "turns_unchecked": 1,
        "model_calls": 6,
        "calls_per_turn": 1.5,
        "calls_per_turn_by_purpose": {"sensor": 0.25, "generate": 0.75, "judge": 0.25, "custom": 0.25},
        "p50_ms_per_call": 200.0,
        "p95_ms_per_call": 700.0,
        "p50_ms_by_purpose": {"sensor": 100.0, "generate": 400.0, "judge": 0.0, "custom": 50.0},
        "p50_ms_per_turn": 800.0,
        "calls_failed": {"generate: Timeout": 1, "custom: failed": 1},
        "drafts_blocked": 2,
        "turns_with_blocked_drafts": 1,
        "fallbacks": 1,
        "degraded_by_budget": 1,
        "hard_rule_violations_provoked": 1,
        "expectations_checked": {"response_contains": 2, "violations": 1},
        "expectations_skipped": {"regenerations": 1, "scenario": 2, "violations": 1},
        "scripted_outputs_ignored": 1,
    }


def test_the_figures_of_a_live_run_without_turns() -> None:
    summary = LiveReport(agent_path="a", suite_path="s", model="m").summary()
    assert summary["turns"] == 0 and summary["calls_per_turn"] == 0.0 and summary["calls_per_turn_by_purpose"] == {}
    assert summary["p50_ms_per_call"] is None and summary["p95_ms_per_call"] is None
    assert summary["p50_ms_per_turn"] is None and summary["calls_failed"] == {}


def test_the_live_report_text() -> None:
    assert format_live_report(live_report()).splitlines() == [
        "focal test --live: tests.yaml against agent.yaml, model canned/m",
        "PASS  checked  (2 turn(s), 2.5s)",
        "FAIL  failing  (1 turn(s), 0.7s)",
        "      turn 1 > hi  [FAIL, 0.7s]",
        "        ✗ expected a, got b",
        "        < [respond] 'Hello'",
        "          · model calls: none",
        "          · checked: response_contains",
        "        ✗ error after 1 turn(s): RuntimeError: boom",
        "SKIP  nothing live  (1 turn(s), 0.3s)",
        "turns: 2 of 3 checked turn(s) passed, 1 failed; 1 of 4 with nothing checkable live (skipped); p50 800 ms per turn",
        "model calls per turn 1.50 = sensor 0.25 + generate 0.75 + judge 0.25 + custom 0.25; p50 200 ms per call "
        "(sensor 100, generate 400, judge 0, custom 50), p95 700 ms",
        "model calls failed: 2 of 6 — generate: Timeout ×1; custom: failed ×1",
        "answers blocked: 2 draft(s) with violations in 1 turn(s), 1 fallback(s); 1 turn(s) degraded by the time budget; "
        "expected hard-rule violations provoked live: 1",
        "expectations checked: response_contains 2, violations 1; skipped (not checkable live): regenerations 1, "
        "scenario 2, violations 1",
        "scripted model outputs ignored on 1 turn(s)",
        "stopped at the first failure (-x): 1 conversation(s) not run",
    ]


def test_the_verbose_live_report_shows_every_turn_in_colour() -> None:
    report = live_report()
    report.conversations = report.conversations[:1] + report.conversations[2:]
    report.not_run = []
    lines = format_live_report(report, verbose=True, colour=True).splitlines()
    assert lines[:13] == [
        "focal test --live: tests.yaml against agent.yaml, model canned/m",
        f"{paint('PASS', 'pass', True)}  checked  (2 turn(s), 2.5s)",
        "      turn 1 > hello  [pass, 0.9s]",
        "        < [respond] 'Hi'",
        "          · model calls: generate 400 ms, sensor 100 ms",
        "          · checked: response_contains",
        "          · skipped (not checkable live): scenario",
        "      turn 2 > pay 5000  [pass, 1.5s]",
        "        < [rejected] 'No'",
        "          · model calls: generate 700 ms (failed: Timeout), generate 300 ms, custom 50 ms (failed: None), judge 0 ms",
        "          · checked: violations",
        "          · skipped (not checkable live): violations (relevance), regenerations",
        f"{paint('SKIP', 'unverified', True)}  nothing live  (1 turn(s), 0.3s)",
    ]
    assert lines[13:] == [
        "      turn 1 > hi  [unchecked, 0.3s]",
        "        < [respond] 'Hello'",
        "          · model calls: none",
        "          · skipped (not checkable live): scenario",
        "turns: 2 of 2 checked turn(s) passed, 0 failed; 1 of 3 with nothing checkable live (skipped); p50 900 ms per turn",
        "model calls per turn 2.00 = sensor 0.33 + generate 1.00 + judge 0.33 + custom 0.33; p50 200 ms per call "
        "(sensor 100, generate 400, judge 0, custom 50), p95 700 ms",
        "model calls failed: 2 of 6 — generate: Timeout ×1; custom: failed ×1",
        "answers blocked: 2 draft(s) with violations in 1 turn(s), 1 fallback(s); 1 turn(s) degraded by the time budget; "
        "expected hard-rule violations provoked live: 1",
        "expectations checked: response_contains 1, violations 1; skipped (not checkable live): regenerations 1, "
        "scenario 2, violations 1",
        "scripted model outputs ignored on 1 turn(s)",
    ]


def test_a_live_run_without_model_calls_says_none() -> None:
    report = LiveReport(agent_path="a", suite_path="s", model="m", conversations=[
        LiveConversationReport(name="quiet", turns=[LiveTurnReport(1, "hi", "Hello", "respond")])])
    assert format_live_report(report).splitlines()[2:] == [
        "turns: 0 of 0 checked turn(s) passed, 0 failed; 1 of 1 with nothing checkable live (skipped); p50 0 ms per turn",
        "model calls per turn 0.00 = none",
        "answers blocked: 0 draft(s) with violations in 0 turn(s), 0 fallback(s); 0 turn(s) degraded by the time budget; "
        "expected hard-rule violations provoked live: 0",
        "expectations checked: none; skipped (not checkable live): none",
    ]
