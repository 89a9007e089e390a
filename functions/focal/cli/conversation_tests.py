"""Conversation tests: multi-turn scripts with expectations, run through the local pipeline.

A suite is a YAML file::

    conversations:
      - name: credit happy path            # unique within the suite
        customer_id: c-100                 # optional (default "test-customer")
        task: 12                           # optional: the benchmark task this conversation covers (an int ≥ 0)
        setup: tools.py:reset_state        # optional: a function of the agent's folder called before the first turn
        profile: {is_premium: true}        # optional: stored profile facts, declared fields only
        turns:
          - user: I want a credit for my booking
            expect: {scenario: compensation, step: collect_booking}
          - user: It's B-123
            model:                          # optional: scripted model outputs for this turn only
              sensor: {detected_intent: compensation, commands: [...]}   # dict (or list of dicts / raw strings)
              generate: ["Sure, I'll credit you $75 right away"]   # drafts, first to last
              judge: [{verdicts: [...]}]
            expect:
              violations: [credit_cap]
              response_not_contains: "$75"

Expectation keys (all optional): execution_path, intent (label or null), scenario (id or null), step,
matched_rules (exactly these, in any sequence; `[]` means none matched), matched_rules_include,
matched_rules_exclude, violations (rule ids, or the output checks `relevance` and `grounding`, that must
appear in enforcement.violations; `[]` means none at all), fallback_used, regenerations, response_contains,
response_not_contains (a string or a list, case-insensitive), tool_calls (tool ids that must have run with status ok, an
entry `{tool: {argument: value}}` also with these arguments, see focal.cli.tool_expect; `[]` means no tool call at all),
suggested_questions (true: some, false: none, or a list that must be among them),
commands (the names of the commands the sensor read, exactly these in any sequence), model_calls (how
many model calls the turn made), fast_path (whether the offline sensor was sure enough to skip the
model), unverified (the subjective rules nobody could judge, exactly these), blocked_tools (tool ids an
action guard stopped before they ran: exactly these, `[]` means none was blocked).
A key not in this list, a scenario, step, rule, tool or profile field the agent does not declare,
or a malformed turn is an error of the suite (`SuiteError`: 'tests.yaml:LINE: what, in conversation X
turn N', with the closest known name; focal.cli.suite_file), raised before anything runs or loads.

Every conversation runs in its own session with its own in-memory SQLite stores; the embedder, the
agent config and the rule index are shared, and the agent's indexes are built before the first
conversation (focal.pipeline.warm). Turns with no scripted output for a purpose take the offline path
for it, exactly as without a model; a scripted output goes through litellm's real `completion`
(`mock_response`). The queue is cleared after every turn, so an output never leaks into the next one.
A scripted `generate`, `judge` or `rules` output the turn did not consume fails that turn. A scripted
`sensor` output is read only where a deployed agent would ask its model (not on the fast path): one the
turn did not use, or whose reading the merge rule set aside, is a warning under the turn saying why
(focal.cli.scripted_outputs). A turn whose pipeline failed (`result.error`) always fails.

Tools run for real and keep whatever process state they keep: the runner is agent-agnostic and does
not reset them. Write a suite so its conversations do not depend on each other's side effects (use
different records per conversation), or reset the tools' state before running the suite. A conversation
that needs a known state names a `setup` function ('file.py:function', under the same rules as a python
tool's entrypoint, checked when the suite loads): it is called once, with no arguments, before the
conversation's first turn, and must return a mapping like a tool; if it fails, the conversation fails
before any turn runs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from focal.cli.scripted_outputs import sensor_warnings
from focal.cli.suite_file import (  # noqa: F401 - the suite's names, imported from here by the runners and tests
    DEFAULT_CUSTOMER,
    EXPECT_KEYS,
    PURPOSES,
    Conversation,
    Suite,
    SuiteError,
    Turn,
    load_suite,
    read_suite,
)
from focal.cli.suite_report import (  # noqa: F401 - the report's names, imported from here by the runners and tests
    ConversationReport,
    Report,
    TurnReport,
    format_report,
    turn_lines,
)
from focal.cli.turn_checks import check_turn
from focal.cli.turn_why import turn_why
from focal.config.loader import load_agent
from focal.models.agent import AgentConfig
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest

TENANT_ID = "local"


# --- running ------------------------------------------------------------------------------------


def _fresh_deps(agent_path: str | Path, shared: Any | None) -> Any:
    """Own SQLite stores and a scripted model; the embedder, config and rule index of `shared` reused."""
    from focal.adapters.litellm_model import ScriptedLiteLLM
    from focal.wiring import local_deps

    deps = local_deps(agent_path, ":memory:", configs=shared.configs if shared is not None else None)
    deps.model = ScriptedLiteLLM()
    deps.model_factory = None  # an unscripted purpose stays offline, even when the agent names a model
    if shared is not None:
        deps.rule_index, deps.indexed = shared.rule_index, shared.indexed
        deps.multilingual_index = shared.multilingual_index
    return deps


def start_conversation(conv: Conversation, agent: AgentConfig, deps: Any) -> Any:
    """Run the conversation's setup, store the profile it gives, and return the runner its turns go through."""
    from focal.pipeline.runner import LocalRunner

    run_setup(conv, agent)
    if conv.profile:
        deps.profiles.save(CustomerProfile(
            tenant_id=TENANT_ID, agent_id=agent.id, customer_id=conv.customer_id,
            schema_version=agent.profile_schema_version, fields=dict(conv.profile),
        ))
    return LocalRunner(deps)


def run_setup(conv: Conversation, agent: AgentConfig) -> None:
    """Call the conversation's `setup` function (if any) in the tool worker of the conversation's tenant and
    agent: what it sets up is seen by the tools its turns run. Raises `ToolError` when it fails."""
    if conv.setup:
        from focal.adapters.python_tools import PythonToolRunner
        from focal.errors import ToolError
        from focal.models.agent import Tool

        try:
            PythonToolRunner().run_outside_turn(agent, Tool(id="setup", entrypoint=conv.setup), TENANT_ID)
        except ToolError as exc:
            raise ToolError(f"setup {conv.setup!r} failed before the first turn: {exc}") from exc


def _record_state(deps: Any, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
    records = [r for r in deps.turns.list_for_session(TENANT_ID, agent_id, session_id) if r.turn_id == turn_id]
    return records[0].state if records else {}


def run_conversation(conv: Conversation, agent: AgentConfig, deps: Any, session_id: str) -> ConversationReport:
    report = ConversationReport(name=conv.name, task=conv.task)
    started = time.perf_counter()
    model = deps.model
    try:
        runner = start_conversation(conv, agent, deps)
        for index, turn in enumerate(conv.turns, start=1):
            model.clear()
            for purpose, outputs in turn.model.items():
                model.script(purpose, outputs)
            t0 = time.perf_counter()
            turn_id = f"{session_id}-t{index}"
            try:
                result = runner.turn(TurnRequest(
                    tenant_id=TENANT_ID, agent_id=agent.id, session_id=session_id, customer_id=conv.customer_id,
                    turn_id=turn_id, message=turn.user,
                ))
            finally:
                left = {p: len(q) for p, q in model.queues.items() if q}
                model.clear()
            tr = TurnReport(index=index, user=turn.user, response=result.response,
                            execution_path=result.execution_path, ms=round((time.perf_counter() - t0) * 1000, 1),
                            guard_attempt=bool(turn.expect.get("blocked_tools")))
            if result.error:
                err = result.error
                tr.failures.append(f"the pipeline failed in stage {err.get('stage')!r}: {err.get('code')}")
            # A sensor reading the turn did not use is a warning with its reason (focal.cli.scripted_outputs); an
            # unused output of another purpose means the turn does not test what it says: a failure.
            tr.warnings = sensor_warnings(len(turn.model.get("sensor", [])), left.pop("sensor", 0),
                                          _record_state(deps, agent.id, session_id, turn_id), result)
            tr.failures += [f"scripted {p} output(s) not consumed: {n} left" for p, n in sorted(left.items())]
            tr.failures += check_turn(turn.expect, result)
            tr.why = turn_why(deps, TENANT_ID, agent.id, session_id, turn_id, result)
            report.turns.append(tr)
    except Exception as exc:  # noqa: BLE001 - one broken conversation must not hide the others' results
        report.error = f"{type(exc).__name__}: {exc}"
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report


def until_first_failure(report: Any, conversations: list[Conversation], stop: bool) -> Iterator[tuple[int, Conversation]]:
    """(number, conversation) in order; with `stop` (-x), none after the report's first failure, and those left are
    named in `report.not_run`."""
    for index, conv in enumerate(conversations, start=1):
        if stop and report.failed:
            report.not_run = [c.name for c in conversations[index - 1:]]
            return
        yield index, conv


def selected(conversations: list[Conversation], patterns: list[str] | None) -> list[Conversation]:
    """`focal test -k TEXT`: the conversations whose name contains any of `patterns` (case-insensitive); all without."""
    if not patterns:
        return conversations
    return [c for c in conversations if any(p.casefold() in c.name.casefold() for p in patterns)]


def checked_suite(agent_path: str | Path, suite_path: str | Path) -> tuple[AgentConfig, Suite]:
    """The agent and the suite, read and checked (no model is loaded); raise `AgentConfigInvalid` or `SuiteError`
    listing every problem."""
    agent = load_agent(agent_path)
    return agent, read_suite(suite_path, agent)


def run_checked(agent_path: str | Path, agent: AgentConfig, suite: Suite, select: list[str] | None = None,
                stop_at_first_failure: bool = False, on_start: Callable[[Any], None] | None = None) -> Report:
    """Run the suite's conversations (those `select` names, see `selected`); with `stop_at_first_failure` (`-x`)
    none after the first that fails. The agent's indexes are built before the first conversation (see
    focal.pipeline.warm), after which `on_start(deps)` is called."""
    from focal.pipeline.warm import warm_agent

    started = time.perf_counter()
    conversations = selected(suite.conversations, select)
    report = Report(agent_path=str(agent_path), suite_path=suite.path, tasks_total=suite.tasks_total)
    shared = None
    run_id = f"{int(time.time() * 1000):x}"
    for index, conv in until_first_failure(report, conversations, stop_at_first_failure):
        deps = _fresh_deps(agent_path, shared)
        if shared is None:
            warm_agent(deps, TENANT_ID, agent)
            if on_start is not None:
                on_start(deps)
        shared = shared or deps
        report.conversations.append(run_conversation(conv, agent, deps, f"test-{run_id}-{index}"))
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report


def run_suite(agent_path: str | Path, suite_path: str | Path, select: list[str] | None = None,
              stop_at_first_failure: bool = False) -> Report:
    """Check, then run the suite (see `run_checked`); raise `AgentConfigInvalid` or `SuiteError` for an invalid one."""
    agent, suite = checked_suite(agent_path, suite_path)
    return run_checked(agent_path, agent, suite, select, stop_at_first_failure)
