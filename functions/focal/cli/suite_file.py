"""A conversation-test suite file, read and checked against the agent before anything runs.

Every problem names the file and the line (the YAML node marks, read by the agent loader's line-annotating
reader in focal.config.loader, with its limits) and, for a name the file gets wrong, the closest known one
(focal.config.hints), then where it is:

    tests.yaml:14: unknown expectation 'tool_call' (did you mean 'tool_calls'?), in conversation 'reset password' turn 2

Problems are sorted by line (those of the whole file first); all of them are listed in one `SuiteError`.
The format of a suite is described in focal.cli.conversation_tests.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import yaml

from focal.adapters.python_tools import read_regular_file
from focal.cli.suite_expect import expect_problems, whole
from focal.config.hints import meant
from focal.config.loader import read_bounded, reading_problems, stripped
from focal.config.problems import format_path
from focal.config.yaml_readings import Reading, changed_in_reading, hint
from focal.errors import ConfigError
from focal.models.agent import AgentConfig

DEFAULT_CUSTOMER = "test-customer"
PURPOSES = ("sensor", "rules", "extract", "generate", "judge", "grounding")  # every purpose a turn calls a model for
EXPECT_KEYS = (
    "execution_path", "intent", "scenario", "step", "matched_rules", "matched_rules_include", "matched_rules_exclude",
    "violations", "fallback_used", "regenerations", "response_contains", "response_not_contains", "tool_calls",
    "suggested_questions", "commands", "model_calls", "fast_path", "unverified", "approval_state", "blocked_tools",
)
SUITE_KEYS = ("conversations", "tasks_total")
CONVERSATION_KEYS = ("name", "customer_id", "profile", "turns", "task", "setup")
TURN_KEYS = ("user", "model", "expect")
MAX_SUITE_BYTES = 20_000_000
_ANNOTATIONS = ("__lines__", "__line__", "__duplicates__")  # the line-annotating reader's own keys


class SuiteError(ConfigError):
    """The suite file is not a valid conversation-test suite; `problems` lists every problem, one line each."""

    code = "invalid_test_suite"

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the test suite\n{lines}")


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


@dataclass
class Suite:
    path: str
    conversations: list[Conversation]
    tasks_total: int | None = None  # the benchmark's number of tasks


class _Problems:
    def __init__(self, source: str):
        self.source = source
        self.found: list[tuple[int, str]] = []

    def add(self, line: int | None, message: str, where: str = "") -> None:
        head = f"{self.source}:{line}: " if line else f"{self.source}: "
        self.found.append((line or 0, head + message + (f", in {where}" if where else "")))

    def lines(self) -> list[str]:
        return [text for _, text in sorted(self.found, key=lambda found: found[0])]


def _keys(mapping: dict[str, Any]) -> list[Any]:
    return [k for k in mapping if k not in _ANNOTATIONS]


def _line(mapping: Any, key: str | None = None) -> int | None:
    """The line of `key` in an annotated mapping (of the mapping itself without a key)."""
    if not isinstance(mapping, dict):
        return None
    if key is not None and key in mapping.get("__lines__", {}):
        return int(mapping["__lines__"][key])
    line = mapping.get("__line__")
    return int(line) if isinstance(line, int) else None


def _unknown_keys(problems: _Problems, mapping: dict[str, Any], known: tuple[str, ...], where: str = "") -> None:
    for key in _keys(mapping):
        if key not in known:
            problems.add(_line(mapping, key), f"unknown key {key!r}{meant(key, known, 'known')}", where)


def _expect(problems: _Problems, agent: AgentConfig, expect: dict[str, Any], where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in _keys(expect):
        line = _line(expect, key)
        if key not in EXPECT_KEYS:
            problems.add(line, f"unknown expectation {key!r}{meant(key, EXPECT_KEYS, 'known')}", where)
            continue
        value = stripped(expect[key])
        for message in expect_problems(agent, key, value):
            problems.add(line, message, where)
        out[key] = value
    return out


def _model_outputs(problems: _Problems, turn: dict[str, Any], where: str) -> dict[str, list[str]]:
    model = turn.get("model")
    if model is None:
        return {}
    if not isinstance(model, dict):
        problems.add(_line(turn, "model"), f"'model' must be a mapping of {', '.join(PURPOSES)} to scripted outputs", where)
        return {}
    out: dict[str, list[str]] = {}
    for purpose in _keys(model):
        line = _line(model, purpose)
        if purpose not in PURPOSES:
            problems.add(line, f"unknown model purpose {purpose!r}{meant(purpose, PURPOSES, 'known')}", where)
            continue
        outputs = stripped(model[purpose])
        texts: list[str] = []
        for output in outputs if isinstance(outputs, list) else [outputs]:
            if isinstance(output, str):
                texts.append(output)  # raw model text (a draft, or deliberately invalid JSON)
            elif isinstance(output, dict):
                texts.append(json.dumps(output))  # the structured answer, as the model would send it
            else:
                problems.add(line, f"each scripted {purpose} output must be a mapping or a string, got {output!r}", where)
        if not texts:
            problems.add(line, f"model.{purpose} scripts no output", where)
        out[purpose] = texts
    return out


def _user_problem(turn: Any) -> str | None:
    got = turn.get("user") if isinstance(turn, dict) else turn
    if isinstance(got, str):
        return None
    need = "each turn needs 'user', the customer's message as a string"
    if isinstance(turn, dict) and "user" not in turn:
        return need
    hint = (" (quote it: YAML reads yes/no/on/off as booleans)" if isinstance(got, bool) else
            f" (quote it: YAML reads {type(got).__name__} values like this one unquoted)"
            if isinstance(got, int | float | date) else "")
    return f"{need}, got {got!r}{hint}"


def _turns(problems: _Problems, agent: AgentConfig, conv: dict[str, Any], where: str) -> list[Turn]:
    raw = conv.get("turns")
    if not isinstance(raw, list) or not raw:
        problems.add(_line(conv, "turns") or _line(conv), "needs a non-empty list 'turns'", where)
        return []
    turns: list[Turn] = []
    for index, turn in enumerate(raw, start=1):
        twhere = f"{where} turn {index}"
        line = _line(turn) or _line(conv, "turns")
        if isinstance(turn, dict):
            _unknown_keys(problems, turn, TURN_KEYS, twhere)
        problem = _user_problem(turn)
        if problem:
            problems.add(_line(turn, "user") or line, problem, twhere)
            continue
        assert isinstance(turn, dict)
        expect = turn.get("expect") or {}
        if not isinstance(expect, dict):
            problems.add(_line(turn, "expect"), "'expect' must be a mapping of expectations", twhere)
            expect = {}
        checked = _expect(problems, agent, expect, twhere)
        turns.append(Turn(user=turn["user"], model=_model_outputs(problems, turn, twhere), expect=checked))
    return turns


def _conversation(problems: _Problems, agent: AgentConfig, conv: dict[str, Any], index: int, seen: set[str]) -> Conversation:
    name = conv.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.add(_line(conv, "name") or _line(conv), "needs a non-empty 'name'", f"conversation #{index}")
        name = f"#{index}"
    elif name in seen:
        problems.add(_line(conv, "name"), "the name is used twice", f"conversation {name!r}")
    seen.add(name)
    where = f"conversation {name!r}"
    _unknown_keys(problems, conv, CONVERSATION_KEYS, where)
    customer = conv.get("customer_id", DEFAULT_CUSTOMER)
    if not isinstance(customer, str) or not customer:
        problems.add(_line(conv, "customer_id"), "customer_id must be a non-empty string", where)
        customer = DEFAULT_CUSTOMER
    profile = conv.get("profile") or {}
    if not isinstance(profile, dict):
        problems.add(_line(conv, "profile"), "profile must be a mapping of field names to values", where)
        profile = {}
    fields = {f.field_name for f in agent.profile_field_definitions}
    for key in _keys(profile):
        if key not in fields:
            problems.add(_line(profile, key), f"profile field {key!r} is not declared by the agent{meant(key, fields)}", where)
    task = conv.get("task")
    if task is not None and not whole(task):
        problems.add(_line(conv, "task"), f"task must be a whole number ≥ 0 (the benchmark task index), got {task!r}", where)
        task = None
    setup = _setup(problems, agent, conv, where)
    return Conversation(name=name, turns=_turns(problems, agent, conv, where), customer_id=customer,
                        profile=stripped(profile), task=task, setup=setup)


def _setup(problems: _Problems, agent: AgentConfig, conv: dict[str, Any], where: str) -> str | None:
    setup = conv.get("setup")
    if setup is None:
        return None
    from focal.adapters.python_tools import entrypoint_problem
    from focal.settings import get_settings

    problem = (f"must be a 'file.py:function' string, got {setup!r}" if not isinstance(setup, str) else
               entrypoint_problem(setup, agent.base_dir, get_settings().tool_modules))
    if problem:
        problems.add(_line(conv, "setup"), f"setup {problem}", where)
        return None
    return setup


def _read(path: Path, problems: _Problems) -> tuple[Any, list[Reading]]:
    try:
        text = read_regular_file(path, MAX_SUITE_BYTES).decode("utf-8")
    except OSError as exc:
        raise SuiteError(problems.source, [f"cannot read file: {exc.strerror or exc}"]) from exc
    except UnicodeDecodeError as exc:
        raise SuiteError(problems.source, [f"cannot read file: not UTF-8 text ({exc.reason} at byte {exc.start})"]) from exc
    try:
        return read_bounded(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark else getattr(exc, "line", None)
        reason = getattr(exc, "problem", None) or str(exc)
        problems.add(line, reason if mark is None else f"YAML syntax error: {reason}")  # no mark: a limit of the reader
        raise SuiteError(problems.source, problems.lines()) from exc


def read_suite(suite_path: str | Path, agent: AgentConfig) -> Suite:
    """Parse and check a suite against the agent; raise `SuiteError` listing every problem with its line."""
    source = str(suite_path)
    problems = _Problems(source)
    raw, found = _read(Path(suite_path), problems)
    if not isinstance(raw, dict) or not isinstance(raw.get("conversations"), list) or not raw["conversations"]:
        problems.add(_line(raw, "conversations") or _line(raw),
                     "the suite must be a mapping with a non-empty list 'conversations'")
        if isinstance(raw, dict):
            _unknown_keys(problems, raw, SUITE_KEYS)
        raise SuiteError(source, problems.lines())
    for unread in reading_problems(raw):  # duplicate keys, values YAML cannot read
        problems.add(unread.line, unread.message, unread.path)
    for reading in changed_in_reading(found):  # a date, 010, 1_000: never what a test means to compare
        if reading.path[-1:] != ("user",):  # a message must be text: said by its turn's own check
            problems.add(reading.line, hint(reading), format_path(reading.path))
    _unknown_keys(problems, raw, SUITE_KEYS)
    total = raw.get("tasks_total")
    if total is not None and not (whole(total) and total >= 1):
        problems.add(_line(raw, "tasks_total"),
                     f"tasks_total must be a whole number ≥ 1 (the benchmark's number of tasks), got {total!r}")
    conversations: list[Conversation] = []
    seen: set[str] = set()
    for index, conv in enumerate(raw["conversations"], start=1):
        if not isinstance(conv, dict):
            problems.add(_line(raw, "conversations"), "must be a mapping with name and turns", f"conversation #{index}")
            continue
        conversations.append(_conversation(problems, agent, conv, index, seen))
    if problems.found:
        raise SuiteError(source, problems.lines())
    return Suite(path=source, conversations=conversations, tasks_total=total)


def load_suite(suite_path: str | Path, agent: AgentConfig) -> list[Conversation]:
    """The suite's conversations (see `read_suite`)."""
    return read_suite(suite_path, agent).conversations
