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
or a malformed turn is an error of the suite (`SuiteError`, naming the file, the conversation and
the key), raised before anything runs.

Every conversation runs in its own session with its own in-memory SQLite stores; the embedder, the
agent config and the rule index are shared. Turns with no scripted output for a purpose take the
offline path for it, exactly as without a model; a scripted output goes through litellm's real
`completion` (`mock_response`), and one the turn did not consume fails that turn (the queue is
cleared after every turn, so it never leaks into the next one). A turn whose pipeline failed
(`result.error`) always fails.

Tools run for real and keep whatever process state they keep: the runner is agent-agnostic and does
not reset them. Write a suite so its conversations do not depend on each other's side effects (use
different records per conversation), or reset the tools' state before running the suite. A conversation
that needs a known state names a `setup` function ('file.py:function', under the same rules as a python
tool's entrypoint, checked when the suite loads): it is called once, with no arguments, before the
conversation's first turn, and must return a mapping like a tool; if it fails, the conversation fails
before any turn runs.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, get_args

import yaml

from focal.cli.tool_expect import tool_calls_failures, tool_calls_problems
from focal.cli.turn_why import turn_why
from focal.config.loader import load_agent
from focal.errors import ConfigError
from focal.models.agent import AgentConfig
from focal.models.context import CommandName
from focal.models.session import CustomerProfile
from focal.models.turn import OUTPUT_CHECKS, ApprovalStateName, ExecutionPath, TurnRequest, TurnResult

TENANT_ID = "local"
DEFAULT_CUSTOMER = "test-customer"
PURPOSES = ("sensor", "rules", "generate", "judge")
EXPECT_KEYS = (
    "execution_path", "intent", "scenario", "step", "matched_rules", "matched_rules_include", "matched_rules_exclude",
    "violations", "fallback_used", "regenerations", "response_contains", "response_not_contains", "tool_calls",
    "suggested_questions", "commands", "model_calls", "fast_path", "unverified", "approval_state", "blocked_tools",
)
SUITE_KEYS = ("conversations", "tasks_total")
CONVERSATION_KEYS = ("name", "customer_id", "profile", "turns", "task", "setup")
TURN_KEYS = ("user", "model", "expect")
SHOWN_RESPONSE = 300  # characters of the actual response quoted under a failing turn


class SuiteError(ConfigError):
    """The suite file is not a valid conversation-test suite; `problems` lists every problem."""

    code = "invalid_test_suite"

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the test suite\n{lines}")


# --- the suite ----------------------------------------------------------------------------------


@dataclass
class Turn:
    user: str
    model: dict[str, list[str]] = field(default_factory=dict)  # purpose → raw model outputs
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass
class Conversation:
    name: str
    turns: list[Turn]
    customer_id: str = DEFAULT_CUSTOMER
    profile: dict[str, Any] = field(default_factory=dict)
    task: int | None = None  # the benchmark task it covers, counted in the report
    setup: str | None = None  # 'file.py:function' called before the first turn (e.g. the tools' state reset)


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _check_expect(agent: AgentConfig, where: str, expect: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    scenario_ids = {s.id for s in agent.scenarios}
    step_ids = {st.id for s in agent.scenarios for st in s.steps}
    rule_ids = {r.id for r in agent.rules}
    tool_ids = {t.id for t in agent.tools}
    labels = {s.intent_label or s.id for s in agent.scenarios}

    def bad(key: str, what: str) -> None:
        problems.append(f"{where}: expect key {key!r} {what}")

    def ids(key: str, value: Any, known: set[str], kind: str) -> None:
        if not _is_str_list(value):
            bad(key, f"must be a list of {kind} ids, got {value!r}")
            return
        unknown = [v for v in value if v not in known]
        if unknown:
            bad(key, f"names unknown {kind}(s) {unknown} (the agent has {sorted(known)})")

    for key, value in expect.items():
        if key not in EXPECT_KEYS:
            problems.append(f"{where}: unknown expect key {key!r} (known keys: {', '.join(EXPECT_KEYS)})")
        elif key == "approval_state":
            if value not in get_args(ApprovalStateName):
                bad(key, f"must be one of {list(get_args(ApprovalStateName))}, got {value!r}")
        elif key == "execution_path":
            if value not in get_args(ExecutionPath):
                bad(key, f"must be one of {list(get_args(ExecutionPath))}, got {value!r}")
        elif key == "intent":
            if value is not None and value not in labels:
                bad(key, f"names unknown intent label {value!r} (the agent has {sorted(labels)})")
        elif key == "scenario":
            if value is not None and value not in scenario_ids:
                bad(key, f"names unknown scenario {value!r} (the agent has {sorted(scenario_ids)})")
        elif key == "step":
            if value is not None and value not in step_ids:
                bad(key, f"names unknown step {value!r}")
        elif key in ("matched_rules", "matched_rules_include", "matched_rules_exclude"):
            ids(key, value, rule_ids, "rule")
        elif key == "violations":
            ids(key, value, rule_ids | set(OUTPUT_CHECKS), "rule or output check")
        elif key == "suggested_questions":
            if not (isinstance(value, bool) or _is_str_list(value)):
                bad(key, f"must be true, false or a list of questions, got {value!r}")
        elif key == "tool_calls":
            problems += [f"{where}: expect key {key!r} {p}" for p in tool_calls_problems(agent, value)]
        elif key == "blocked_tools":
            ids(key, value, tool_ids, "tool")
        elif key == "commands":
            known_commands = set(get_args(CommandName))
            if not _is_str_list(value) or set(value) - known_commands:
                bad(key, f"must be a list of command names from {sorted(known_commands)}, got {value!r}")
        elif key == "unverified":
            ids(key, value, rule_ids, "rule")
        elif key == "model_calls":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                bad(key, f"must be a whole number ≥ 0, got {value!r}")
        elif key == "fast_path":
            if not isinstance(value, bool):
                bad(key, f"must be true or false, got {value!r}")
        elif key == "fallback_used":
            if not isinstance(value, bool):
                bad(key, f"must be true or false, got {value!r}")
        elif key == "regenerations":
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                bad(key, f"must be a whole number ≥ 0, got {value!r}")
        elif key in ("response_contains", "response_not_contains"):
            if not (isinstance(value, str) or _is_str_list(value)) or value in ("", []):
                bad(key, f"must be a non-empty string or list of strings, got {value!r}")
    return problems


def _model_outputs(where: str, model: Any, problems: list[str]) -> dict[str, list[str]]:
    if model is None:
        return {}
    if not isinstance(model, dict):
        problems.append(f"{where}: 'model' must be a mapping of {', '.join(PURPOSES)} to scripted outputs")
        return {}
    out: dict[str, list[str]] = {}
    for purpose, outputs in model.items():
        if purpose not in PURPOSES:
            problems.append(f"{where}: unknown model purpose {purpose!r} (known: {', '.join(PURPOSES)})")
            continue
        texts: list[str] = []
        for output in _as_list(outputs):
            if isinstance(output, str):
                texts.append(output)  # raw model text (a draft, or deliberately invalid JSON)
            elif isinstance(output, dict):
                texts.append(json.dumps(output))  # the structured answer, as the model would send it
            else:
                kind = "a mapping or a string"
                problems.append(f"{where}: each scripted {purpose} output must be {kind}, got {output!r}")
        if not texts:
            problems.append(f"{where}: model.{purpose} scripts no output")
        out[purpose] = texts
    return out


def load_suite(suite_path: str | Path, agent: AgentConfig) -> list[Conversation]:
    """Parse and check a suite against the agent; raise `SuiteError` listing every problem."""
    source = str(suite_path)
    try:
        raw = yaml.safe_load(Path(suite_path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise SuiteError(source, [f"cannot read file: {exc.strerror or exc}"]) from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark else ""
        raise SuiteError(source, [f"YAML syntax error: {getattr(exc, 'problem', None) or exc}{line}"]) from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("conversations"), list) or not raw["conversations"]:
        raise SuiteError(source, ["the suite must be a mapping with a non-empty list 'conversations'"])
    problems = [f"unknown top-level key {k!r} (known: {', '.join(SUITE_KEYS)})" for k in raw if k not in SUITE_KEYS]
    total = raw.get("tasks_total")
    if total is not None and (not isinstance(total, int) or isinstance(total, bool) or total < 1):
        problems.append(f"tasks_total must be a whole number ≥ 1 (the benchmark's number of tasks), got {total!r}")
    fields = {f.field_name for f in agent.profile_field_definitions}
    conversations: list[Conversation] = []
    seen: set[str] = set()
    for ci, conv in enumerate(raw["conversations"], start=1):
        if not isinstance(conv, dict):
            problems.append(f"conversation #{ci}: must be a mapping with name and turns")
            continue
        name = conv.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.append(f"conversation #{ci}: needs a non-empty 'name'")
            name = f"#{ci}"
        elif name in seen:
            problems.append(f"conversation {name!r}: the name is used twice")
        seen.add(name)
        where = f"conversation {name!r}"
        problems += [f"{where}: unknown key {k!r} (known: {', '.join(CONVERSATION_KEYS)})"
                     for k in conv if k not in CONVERSATION_KEYS]
        customer = conv.get("customer_id", DEFAULT_CUSTOMER)
        if not isinstance(customer, str) or not customer:
            problems.append(f"{where}: customer_id must be a non-empty string")
            customer = DEFAULT_CUSTOMER
        profile = conv.get("profile") or {}
        if not isinstance(profile, dict):
            problems.append(f"{where}: profile must be a mapping of field names to values")
            profile = {}
        problems += [f"{where}: profile field {k!r} is not declared by the agent" for k in profile if k not in fields]
        task = conv.get("task")
        if task is not None and (not isinstance(task, int) or isinstance(task, bool) or task < 0):
            problems.append(f"{where}: task must be a whole number ≥ 0 (the benchmark task index), got {task!r}")
            task = None
        setup = conv.get("setup")
        if setup is not None:
            from focal.adapters.python_tools import entrypoint_problem
            from focal.settings import get_settings

            problem = (f"must be a 'file.py:function' string, got {setup!r}" if not isinstance(setup, str) else
                       entrypoint_problem(setup, agent.base_dir, get_settings().tool_modules))
            if problem:
                problems.append(f"{where}: setup {problem}")
                setup = None
        turns_raw = conv.get("turns")
        if not isinstance(turns_raw, list) or not turns_raw:
            problems.append(f"{where}: needs a non-empty list 'turns'")
            turns_raw = []
        turns: list[Turn] = []
        for ti, turn in enumerate(turns_raw, start=1):
            twhere = f"{where} turn {ti}"
            if not isinstance(turn, dict) or not isinstance(turn.get("user"), str):
                got = turn.get("user") if isinstance(turn, dict) else turn
                hint = (" (quote it: YAML reads yes/no/on/off as booleans)" if isinstance(got, bool) else
                        f" (quote it: YAML reads {type(got).__name__} values like this one unquoted)"
                        if isinstance(got, int | float | date) else "")
                problems.append(
                    f"{twhere}: each turn needs 'user', the customer's message as a string, got {got!r}{hint}"
                )
                continue
            problems += [
                f"{twhere}: unknown key {k!r} (known: {', '.join(TURN_KEYS)})" for k in turn if k not in TURN_KEYS
            ]
            expect = turn.get("expect") or {}
            if not isinstance(expect, dict):
                problems.append(f"{twhere}: 'expect' must be a mapping")
                expect = {}
            problems += _check_expect(agent, twhere, expect)
            model = _model_outputs(twhere, turn.get("model"), problems)
            turns.append(Turn(user=turn["user"], model=model, expect=expect))
        conversations.append(Conversation(name=name, turns=turns, customer_id=customer, profile=dict(profile), task=task,
                                          setup=setup))
    if problems:
        raise SuiteError(source, problems)
    return conversations


# --- checking one turn --------------------------------------------------------------------------


def _quote(value: Any) -> str:
    return repr(value) if not isinstance(value, list) else "[" + ", ".join(repr(v) for v in value) + "]"


def check_turn(expect: dict[str, Any], result: TurnResult) -> list[str]:
    """'expected X, got Y' for every expectation the result does not meet."""
    failures: list[str] = []
    scenario = result.scenario or {}
    violated = list(dict.fromkeys(v["rule_id"] for v in result.enforcement.get("violations", [])))
    response = result.response.lower()

    if "execution_path" in expect and result.execution_path != expect["execution_path"]:
        failures.append(f"expected execution_path {expect['execution_path']!r}, got {result.execution_path!r}")
    if "approval_state" in expect and result.approval_state != expect["approval_state"]:
        failures.append(f"expected approval_state {expect['approval_state']!r}, got {result.approval_state!r}")
    if "intent" in expect and result.intent.get("label") != expect["intent"]:
        failures.append(f"expected intent {expect['intent']!r}, got {result.intent.get('label')!r}")
    if "scenario" in expect and scenario.get("id") != expect["scenario"]:
        failures.append(f"expected scenario {expect['scenario']!r}, got {scenario.get('id')!r}")
    if "step" in expect and scenario.get("step_id") != expect["step"]:
        failures.append(f"expected step {expect['step']!r}, got {scenario.get('step_id')!r}")
    if "matched_rules" in expect and sorted(result.matched_rules) != sorted(expect["matched_rules"]):
        failures.append(f"expected matched rules {_quote(expect['matched_rules'])}, got {_quote(result.matched_rules)}")
    if "matched_rules_include" in expect:
        missing = [r for r in expect["matched_rules_include"] if r not in result.matched_rules]
        if missing:
            failures.append(f"expected matched rules to include {_quote(missing)}, got {_quote(result.matched_rules)}")
    if "matched_rules_exclude" in expect:
        present = [r for r in expect["matched_rules_exclude"] if r in result.matched_rules]
        if present:
            failures.append(f"expected matched rules to exclude {_quote(present)}, got {_quote(result.matched_rules)}")
    if "violations" in expect:
        wanted = expect["violations"]
        if not wanted and violated:
            failures.append(f"expected no violations, got {_quote(violated)}")
        missing = [r for r in wanted if r not in violated]
        if missing:
            got = _quote(violated) if violated else "none"
            failures.append(f"expected violations to include {_quote(missing)}, got {got}")
    fallback_used = bool(result.enforcement.get("fallback_used"))
    if "fallback_used" in expect and fallback_used != expect["fallback_used"]:
        failures.append(f"expected fallback_used {expect['fallback_used']}, got {fallback_used}")
    regenerations = result.enforcement.get("regenerations", 0)
    if "regenerations" in expect and regenerations != expect["regenerations"]:
        failures.append(f"expected regenerations {expect['regenerations']}, got {regenerations}")
    for text in _as_list(expect.get("response_contains", [])):
        if text.lower() not in response:
            failures.append(f"expected the response to contain {text!r}, got {_shown(result.response)}")
    for text in _as_list(expect.get("response_not_contains", [])):
        if text.lower() in response:
            failures.append(f"expected the response not to contain {text!r}, got {_shown(result.response)}")
    if "suggested_questions" in expect:
        wanted_q, got_q = expect["suggested_questions"], result.suggested_questions
        if wanted_q is True and not got_q:
            failures.append("expected suggested questions, got none")
        elif wanted_q is False and got_q:
            failures.append(f"expected no suggested questions, got {_quote(got_q)}")
        elif isinstance(wanted_q, list):
            missing_q = [q for q in wanted_q if q.lower() not in {g.lower() for g in got_q}]
            if missing_q:
                failures.append(f"expected suggested questions to include {_quote(missing_q)}, got {_quote(got_q)}")
    if "commands" in expect:
        got_c = sorted(c["name"] for c in result.commands)
        if got_c != sorted(expect["commands"]):
            failures.append(f"expected commands {_quote(sorted(expect['commands']))}, got {_quote(got_c)}")
    if "unverified" in expect and sorted(result.enforcement.get("unverified", [])) != sorted(expect["unverified"]):
        failures.append(f"expected unverified {_quote(sorted(expect['unverified']))}, "
                        f"got {_quote(sorted(result.enforcement.get('unverified', [])))}")
    if "model_calls" in expect and result.model_calls != expect["model_calls"]:
        failures.append(f"expected {expect['model_calls']} model call(s), got {result.model_calls}")
    if "fast_path" in expect and result.intent.get("fast_path") != expect["fast_path"]:
        failures.append(f"expected fast_path {expect['fast_path']}, got {result.intent.get('fast_path')}")
    if "tool_calls" in expect:
        failures += tool_calls_failures(expect["tool_calls"], result.tool_calls)
    if "blocked_tools" in expect:
        blocked = [t["tool_id"] for t in result.tool_calls if t.get("status") == "blocked"]
        if sorted(set(blocked)) != sorted(set(expect["blocked_tools"])):
            failures.append(f"expected blocked tools {_quote(sorted(expect['blocked_tools']))}, got {_quote(sorted(set(blocked)))}")
    return failures


def _shown(response: str) -> str:
    text = response if len(response) <= SHOWN_RESPONSE else response[:SHOWN_RESPONSE] + "…"
    return repr(text)


# --- the report ---------------------------------------------------------------------------------


@dataclass
class TurnReport:
    index: int  # 1-based
    user: str
    response: str
    execution_path: str
    failures: list[str] = field(default_factory=list)
    ms: float = 0.0
    guard_attempt: bool = False  # the turn expects a guard to block a tool (a non-empty blocked_tools)
    why: list[str] = field(default_factory=list)  # each draft and its verdicts, each guard that stopped a call

    @property
    def passed(self) -> bool:
        return not self.failures


@dataclass
class ConversationReport:
    name: str
    turns: list[TurnReport] = field(default_factory=list)
    error: str | None = None  # the conversation could not run to its end
    ms: float = 0.0
    task: int | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(t.passed for t in self.turns)

    @property
    def failures(self) -> list[str]:
        """Every failure as one line: 'turn N: expected X, got Y'."""
        lines = [f"turn {t.index}: {f}" for t in self.turns for f in t.failures]
        return lines + ([f"error: {self.error}"] if self.error else [])


@dataclass
class Report:
    agent_path: str
    suite_path: str
    conversations: list[ConversationReport] = field(default_factory=list)
    ms: float = 0.0
    tasks_total: int | None = None  # the benchmark's number of tasks (the suite's `tasks_total`)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.conversations)

    @property
    def failed(self) -> list[ConversationReport]:
        return [c for c in self.conversations if not c.passed]

    @property
    def tasks_covered(self) -> list[int]:
        """The distinct tasks of the conversations, those whose every conversation passed."""
        tasks = {c.task for c in self.conversations if c.task is not None}
        return sorted(t for t in tasks if all(c.passed for c in self.conversations if c.task == t))

    @property
    def guard_attempts(self) -> tuple[int, int]:
        """(blocked as expected, attempted): turns whose expect names tools a guard must block."""
        turns = [t for c in self.conversations for t in c.turns if t.guard_attempt]
        return sum(t.passed for t in turns), len(turns)

    def to_dict(self) -> dict[str, Any]:
        out = dataclasses.asdict(self)
        out["passed"] = self.passed
        out["counts"] = {"conversations": len(self.conversations), "failed": len(self.failed),
                         "turns": sum(len(c.turns) for c in self.conversations)}
        if any(c.task is not None for c in self.conversations):
            out["tasks_covered"] = self.tasks_covered
        for conv, report in zip(out["conversations"], self.conversations, strict=True):
            conv["passed"] = report.passed
            conv["failures"] = report.failures
        return out


# --- running ------------------------------------------------------------------------------------


def _fresh_deps(agent_path: str | Path, shared: Any | None) -> Any:
    """Own SQLite stores and a scripted model; the embedder, config and rule index of `shared` reused."""
    from focal.adapters.litellm_model import ScriptedLiteLLM
    from focal.wiring import local_deps

    deps = local_deps(agent_path, ":memory:")
    deps.model = ScriptedLiteLLM()
    deps.model_factory = None  # an unscripted purpose stays offline, even when the agent names a model
    if shared is not None:
        deps.configs, deps.rule_index, deps.indexed = shared.configs, shared.rule_index, shared.indexed
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
            try:
                result = runner.turn(TurnRequest(
                    tenant_id=TENANT_ID, agent_id=agent.id, session_id=session_id, customer_id=conv.customer_id,
                    turn_id=f"{session_id}-t{index}", message=turn.user,
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
            tr.failures += [f"scripted {p} output(s) not consumed: {n} left" for p, n in sorted(left.items())]
            tr.failures += check_turn(turn.expect, result)
            tr.why = turn_why(deps, TENANT_ID, agent.id, session_id, f"{session_id}-t{index}", result)
            report.turns.append(tr)
    except Exception as exc:  # noqa: BLE001 - one broken conversation must not hide the others' results
        report.error = f"{type(exc).__name__}: {exc}"
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report


def selected(conversations: list[Conversation], patterns: list[str] | None) -> list[Conversation]:
    """`focal test -k TEXT`: the conversations whose name contains any of `patterns` (case-insensitive); all without."""
    if not patterns:
        return conversations
    return [c for c in conversations if any(p.casefold() in c.name.casefold() for p in patterns)]


def run_suite(agent_path: str | Path, suite_path: str | Path, select: list[str] | None = None) -> Report:
    """Run every conversation of the suite (those `select` names, see `selected`) against the agent; raise
    `SuiteError` for an invalid suite."""
    started = time.perf_counter()
    agent = load_agent(agent_path)  # raises AgentConfigInvalid listing every problem
    conversations = selected(load_suite(suite_path, agent), select)
    raw = yaml.safe_load(Path(suite_path).read_text(encoding="utf-8"))  # valid: load_suite checked it
    report = Report(agent_path=str(agent_path), suite_path=str(suite_path), tasks_total=raw.get("tasks_total"))
    shared = None
    run_id = f"{int(time.time() * 1000):x}"
    for index, conv in enumerate(conversations, start=1):
        deps = _fresh_deps(agent_path, shared)
        shared = shared or deps
        report.conversations.append(run_conversation(conv, agent, deps, f"test-{run_id}-{index}"))
    report.ms = round((time.perf_counter() - started) * 1000, 1)
    return report


def turn_lines(turn: Any, head: str, colour: bool) -> list[str]:
    """A reported turn: its head line, its failures, the answer it got and why (each draft, each guard)."""
    from focal.cli.style import paint

    return [head, *(f"        {paint('✗', 'blocked', colour)} {failure}" for failure in turn.failures),
            f"        < [{turn.execution_path}] {_shown(turn.response)}", *(f"          · {line}" for line in turn.why)]


def format_report(report: Report, verbose: bool = False, colour: bool = False) -> str:
    """One line per conversation; under a failing one, each failing turn with its failures and response.
    `colour`: PASS in green, FAIL and each failure in red (`focal.cli.style`; the CLI sets it on a TTY only)."""
    from focal.cli.style import paint

    lines = [f"focal test: {report.suite_path} against {report.agent_path}"]
    for conv in report.conversations:
        mark = paint("PASS", "pass", colour) if conv.passed else paint("FAIL", "blocked", colour)
        lines.append(f"{mark}  {conv.name}  ({len(conv.turns)} turn(s), {conv.ms / 1000:.2f}s)")
        for turn in conv.turns:
            if turn.passed and not verbose:
                continue
            lines += turn_lines(turn, f"      turn {turn.index} > {turn.user}", colour)
        if conv.error:
            lines.append(f"        {paint('✗', 'blocked', colour)} error after {len(conv.turns)} turn(s): {conv.error}")
    failed = len(report.failed)
    total = len(report.conversations)
    turns = sum(len(c.turns) for c in report.conversations)
    summary = f"{total - failed} of {total} conversation(s) passed, {turns} turn(s), {report.ms / 1000:.2f}s"
    lines.append(summary if not failed else f"{summary}; {paint('FAILED', 'blocked', colour)}: {', '.join(c.name for c in report.failed)}")
    blocked, attempts = report.guard_attempts
    tasks = {c.task for c in report.conversations if c.task is not None}
    parts = [f"tasks covered: {len(report.tasks_covered)} of {report.tasks_total or len(tasks)}"] if tasks else []
    parts += [f"violating attempts blocked: {blocked} of {attempts}"] if attempts else []
    if parts:
        lines.append(" · ".join(parts))
    return "\n".join(lines)
