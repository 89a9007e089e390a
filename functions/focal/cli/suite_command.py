"""`focal test AGENT SUITE…`: every file read and checked before any model loads (an invalid one is reported,
with a JUnit <error> under --junit, and nothing runs), then each suite run (`-k` selects, `-x` stops at the
first failing conversation, `--live` runs against a real model), and the reports printed as text or JSON."""

from __future__ import annotations

import json
import sys

from focal.cli.conversation_tests import Report, SuiteError, format_report, read_suite, run_checked, selected
from focal.cli.junit import InvalidSuite, write_junit
from focal.cli.style import colour_for
from focal.config.loader import AgentConfigInvalid, load_agent


def _checked_suites(args) -> tuple[list, list]:  # noqa: ANN001 - the parsed arguments
    """(agent, suite) of each suite file, and an InvalidSuite for each that cannot run; no model is loaded."""
    try:
        agent = load_agent(args.agent)
    except AgentConfigInvalid as exc:
        print(str(exc), file=sys.stderr)
        problems = [f"{exc.source}: {p}" for p in exc.problems]
        return [], [InvalidSuite(suite, args.agent, "agent", problems) for suite in args.tests]
    checked, invalid = [], []
    for suite in args.tests:
        try:
            checked.append((agent, read_suite(suite, agent)))
        except SuiteError as exc:
            print(str(exc), file=sys.stderr)
            invalid.append(InvalidSuite(suite, args.agent, "suite", exc.problems))
    return checked, invalid


def run_tests(args) -> int:  # noqa: ANN001 - the parsed `focal test` arguments
    from focal.cli.progress import loading_model as _loading_model
    from focal.cli.progress import progress

    checked, invalid = _checked_suites(args)  # every file read and checked before any model loads
    if invalid:
        if args.junit:
            write_junit(invalid, args.junit)
            print(f"JUnit XML: {args.junit}", file=sys.stderr)
        return 1
    if args.live:
        from focal.cli.live_tests import NoModel, live_model, resolve_model

        try:
            name = resolve_model(args.model, checked[0][0])
        except NoModel as exc:
            print(f"focal test: {exc}", file=sys.stderr)
            return 2
        from focal.adapters.litellm_model import warm_up_if_configured

        warm_up_if_configured(name)
        model = live_model(name)
    _loading_model()
    started: list[bool] = []

    def on_start(deps) -> None:  # noqa: ANN001 - the first conversation's Deps
        if not started and args.verbose:
            from focal.cli.startup import process_age_s, startup_line

            progress(startup_line(process_age_s(), deps.embedder))
        started.append(True)

    reports: list[Report] = []
    for agent, suite in checked:
        if args.stop_first and any(not r.passed for r in reports):
            reports.append(Report(agent_path=args.agent, suite_path=suite.path, tasks_total=suite.tasks_total,
                                  not_run=[c.name for c in selected(suite.conversations, args.select)]))
            continue
        if args.live:
            from focal.cli.live_tests import run_live_suite

            reports.append(run_live_suite(args.agent, suite.path, model, name, args.select, progress,
                                          args.stop_first, (agent, suite)))
        else:
            reports.append(run_checked(args.agent, agent, suite, args.select, args.stop_first, on_start))
    if args.junit:
        write_junit(list(reports), args.junit)
    if args.json:
        dicts = [r.to_dict() for r in reports]
        print(json.dumps(dicts[0] if len(dicts) == 1 else dicts, indent=2))
    else:
        from focal.cli.live_report import LiveReport, format_live_report

        colour = colour_for(sys.stdout)
        print("\n\n".join(format_live_report(r, verbose=args.verbose, colour=colour) if isinstance(r, LiveReport)
                          else format_report(r, verbose=args.verbose, colour=colour) for r in reports))
    if args.junit:
        print(f"JUnit XML: {args.junit}", file=sys.stderr)
    return 0 if all(r.passed for r in reports) else 1
