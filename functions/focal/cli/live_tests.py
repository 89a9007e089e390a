"""`focal test AGENT SUITE --live`: a conversation-test suite against a real model.

The suite's scripted model outputs (`model:`) are ignored: every model call of every turn goes to the
configured model (FOCAL_MODEL, `--model`, else the agent's `models.model`), with the agent's `models`
settings and the turn's time budget (FOCAL_MODEL_TIMEOUT_S / FOCAL_TURN_BUDGET_S for a slow local model).
A real model words its answers, reads messages and judges drafts its own way, so only the expectations
that must hold whatever a competent model says are checked:

- `tool_calls` — which tools ran with status ok (and with which arguments, when the entry gives them);
  `[]`: no call attempted;
- `blocked_tools` — the tools an action guard stopped (exactly these);
- `response_contains` / `response_not_contains`;
- `execution_path` only when it is `rejected` or `approval` (a refusal or an action waiting for a person;
  `respond`, `clarify`, `fallback`, … depend on the model's wording and reading);
- `violations` naming hard constraints: the answer sent keeps each of them — no draft a hard rule blocked
  went out (checked whether or not the live model's drafts provoked the violation; the report counts
  those that did).

Every other key is skipped and reported as skipped, never as passed: `intent`, `scenario`, `step`,
`matched_rules*`, `commands`, `model_calls`, `fast_path`, `regenerations`, `fallback_used`,
`suggested_questions`, `unverified`, `approval_state`, `execution_path` of any other value, and
`violations` of soft rules or output checks (`relevance`, `grounding`, `internals`) or `violations: []`.
A turn with nothing checkable live is neither passed nor failed ("unchecked"); a turn whose pipeline
failed always fails. The report gives, per run: model calls per turn by purpose, p50 ms per call (all,
and per purpose), calls that failed (timeouts, invalid answers) and why, turns passing, answers blocked
(drafts with violations, fallbacks) and turns degraded by the time budget (focal.cli.live_report).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from focal.cli.conversation_tests import (
    TENANT_ID,
    Conversation,
    Suite,
    Turn,
    check_turn,
    checked_suite,
    selected,
    start_conversation,
    until_first_failure,
)
from focal.cli.live_report import LiveConversationReport, LiveReport, LiveTurnReport
from focal.cli.turn_why import turn_why
from focal.models.agent import AgentConfig
from focal.models.turn import TurnRequest, TurnResult

LIVE_KEYS = ("tool_calls", "blocked_tools", "response_contains", "response_not_contains")
LIVE_PATHS = ("rejected", "approval")  # execution_path values checked live


class NoModel(ValueError):
    """`--live` with no model named anywhere."""


def resolve_model(cli_model: str | None, agent: AgentConfig) -> str:
    """The model a live run uses: `--model` / FOCAL_MODEL, else the agent's `models.model`; NoModel otherwise."""
    name = cli_model or agent.models.model
    if not name:
        raise NoModel("focal test --live needs a model: set FOCAL_MODEL (e.g. openai/gpt-4o-mini, or openai/<name> with "
                      "OPENAI_API_BASE for a local OpenAI-compatible server, or ollama/<model>), pass --model, or set "
                      "models.model in the agent file")
    return name


def live_model(name: str) -> Any:
    """The real model (litellm); tests substitute a scripted one served through litellm's `mock_response`."""
    from focal.adapters.litellm_model import LiteLLMModel

    return LiteLLMModel(name, warm=False)


def split_expect(agent: AgentConfig, expect: dict[str, Any]) -> tuple[dict[str, Any], list[str], list[str]]:
    """(the expectations checked as written, the hard rules whose `violations` are checked live, the keys skipped)."""
    checked = {k: v for k, v in expect.items() if k in LIVE_KEYS}
    if expect.get("execution_path") in LIVE_PATHS:
        checked["execution_path"] = expect["execution_path"]
    hard_ids = {r.id for r in agent.rules if r.is_hard_constraint and r.enabled}
    hard = [r for r in expect.get("violations") or [] if r in hard_ids]
    skipped = [k for k in expect if k not in checked and not (k == "violations" and hard)]
    if "violations" in expect and hard and len(hard) < len(expect["violations"]):
        skipped.append("violations (" + ", ".join(r for r in expect["violations"] if r not in hard) + ")")
    return checked, hard, skipped


def hard_rule_failures(hard: list[str], result: TurnResult, drafts: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(failures: a hard rule's blocked draft that went out anyway, the rules a draft of this turn did break)."""
    failures, provoked = [], []
    for rule_id in hard:
        broke = [d for d in drafts if any(v.get("rule_id") == rule_id for v in d.get("violations") or [])]
        if broke:
            provoked.append(rule_id)
        if any((d.get("text") or "").strip() == result.response.strip() for d in broke):
            failures.append(f"the answer sent breaks hard rule {rule_id!r} (a draft it blocked went out)")
    return failures, provoked


def _fresh_deps(agent_path: str | Path, model: Any, shared: Any | None) -> Any:
    from focal.wiring import local_deps

    deps = local_deps(agent_path, ":memory:")
    deps.model, deps.model_factory = model, None  # every purpose goes to the live model
    if shared is not None:
        deps.configs, deps.rule_index, deps.indexed = shared.configs, shared.rule_index, shared.indexed
    return deps


def _record_state(deps: Any, agent_id: str, session_id: str, turn_id: str) -> dict[str, Any]:
    records = [r for r in deps.turns.list_for_session(TENANT_ID, agent_id, session_id) if r.turn_id == turn_id]
    return records[0].state if records else {}


def run_turn_live(runner: Any, deps: Any, agent: AgentConfig, conv: Conversation, turn: Turn, index: int,
                  session_id: str) -> LiveTurnReport:
    turn_id = f"{session_id}-t{index}"
    t0 = time.perf_counter()
    result = runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=agent.id, session_id=session_id,
                                     customer_id=conv.customer_id, turn_id=turn_id, message=turn.user))
    ms = round((time.perf_counter() - t0) * 1000, 1)
    state = _record_state(deps, agent.id, session_id, turn_id)
    drafts = (state.get("generate") or {}).get("drafts") or []
    checked, hard, skipped = split_expect(agent, turn.expect)
    tr = LiveTurnReport(
        index=index, user=turn.user, response=result.response, execution_path=result.execution_path, ms=ms,
        guard_attempt=bool(turn.expect.get("blocked_tools")),
        checked=sorted(checked) + (["violations"] if hard else []), skipped=skipped,
        scripted_ignored=sorted(turn.model),
        calls=[{k: c.get(k) for k in ("purpose", "ms", "ok", "note")} for c in state.get("model_calls") or []],
        drafts_blocked=sum(1 for d in drafts if d.get("violations")),
        fallback=bool(result.enforcement.get("fallback_used")),
        degraded=list(result.degraded),
    )
    if result.error:
        tr.failures.append(f"the pipeline failed in stage {result.error.get('stage')!r}: {result.error.get('code')}")
    tr.failures += check_turn(checked, result)
    failures, tr.provoked = hard_rule_failures(hard, result, drafts)
    tr.failures += failures
    tr.why = turn_why(deps, TENANT_ID, agent.id, session_id, turn_id, result)
    return tr


def run_conversation_live(conv: Conversation, agent: AgentConfig, deps: Any, session_id: str,
                          progress: Callable[[str], None] | None = None) -> LiveConversationReport:

    report = LiveConversationReport(name=conv.name, task=conv.task)
    started = time.perf_counter()
    try:
        runner = start_conversation(conv, agent, deps)
        for index, turn in enumerate(conv.turns, start=1):
            tr = run_turn_live(runner, deps, agent, conv, turn, index, session_id)
            report.turns.append(tr)
            if progress:
                progress(f"  {conv.name} turn {index}: {tr.status} ({tr.ms / 1000:.1f}s, {len(tr.calls)} model call(s))")
    except Exception as exc:  # noqa: BLE001 - one broken conversation must not hide the others' results
        report.error = f"{type(exc).__name__}: {exc}"
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report


def run_live_suite(agent_path: str | Path, suite_path: str | Path, model: Any, model_name: str,
                   select: list[str] | None = None, progress: Callable[[str], None] | None = None,
                   stop_at_first_failure: bool = False, checked: tuple[AgentConfig, Suite] | None = None) -> LiveReport:
    """Run the suite's conversations (those `select` names) against `model`; `SuiteError` for an invalid suite.
    `checked`: the agent and the suite already read and checked; `stop_at_first_failure`: `-x`."""
    started = time.perf_counter()
    agent, suite = checked or checked_suite(agent_path, suite_path)
    conversations = selected(suite.conversations, select)
    report = LiveReport(agent_path=str(agent_path), suite_path=suite.path, model=model_name)
    shared = None
    run_id = f"{int(time.time() * 1000):x}"
    for index, conv in until_first_failure(report, conversations, stop_at_first_failure):
        if progress:
            progress(f"live {index}/{len(conversations)}: {conv.name}")
        deps = _fresh_deps(agent_path, model, shared)
        shared = shared or deps
        report.conversations.append(run_conversation_live(conv, agent, deps, f"live-{run_id}-{index}", progress))
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report
