"""Running a conversation suite for `focal bench overhead`: every turn timed (wall and CPU), per stage.

Each conversation runs in its own session as the suite's `customer_id` with the suite's `profile`
stored first (as focal.cli.conversation_tests does), so tools find the customer's records; the tools'
own state is reset before every pass over the suite when the agent's tools.py defines `reset_state`, and
a conversation's own `setup` function is called before its first turn.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from focal.cli.conversation_tests import Conversation, run_setup
from focal.models.agent import AgentConfig, Tool
from focal.models.session import CustomerProfile
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline import runner as runner_module
from focal.pipeline.runner import LocalRunner

TENANT = "bench"


@dataclass
class TurnSample:
    wall_ms: float
    cpu_ms: float
    stages: dict[str, tuple[float, float]]  # stage → (wall ms, CPU ms) of its call, JSON hop included
    in_stage_ms: dict[str, float]  # the trace's own per-stage milliseconds (the stage's work only)
    calls: Counter[str] = field(default_factory=Counter)  # model calls by purpose
    model_cpu_ms: float = 0.0  # CPU inside the model's complete() (the fake model and litellm)
    answer_cpu_ms: float = 0.0  # of which making the scripted answers
    capture_cpu_ms: float = 0.0  # the fake model's copies of the state it answers from (outside complete())
    violated: bool = False  # a draft of the turn broke a rule or an output check
    relevance_ms: float = 0.0  # the relevance check (embedding the draft) over the turn's drafts
    outcome: tuple[Any, ...] = ()  # what the customer got: path, violations, fallback, response
    original_ms: list[float] = field(default_factory=list)  # each answer composed again in the file's language
    original_read_ms: list[float] = field(default_factory=list)  # enforce's reading of each of those


@contextmanager
def stage_timer(sink: list[tuple[str, float, float]]) -> Iterator[None]:
    """Wall and CPU of every stage call the local runner makes (the stage, its validation and its JSON)."""
    run_stage = runner_module.run_stage

    def timed(name: str, event: dict[str, Any], deps: Any) -> dict[str, Any]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return run_stage(name, event, deps)
        finally:
            sink.append((name, (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000))

    runner_module.run_stage = timed
    try:
        yield
    finally:
        runner_module.run_stage = run_stage


@contextmanager
def original_timer(sink: list[float], reads: list[float]) -> Iterator[None]:
    """Wall time of every answer composed again from the untranslated agent on a turn said in a translation
    (focal.generation.original_text), and of enforce's reading of that text (focal.enforcement.assess reads both
    texts); turns in the file's language compose and read nothing more."""
    from focal.enforcement import assess
    from focal.stages import generate

    in_original, offline_reading = generate.in_original, assess.offline_reading
    composed: set[str] = set()

    def timed(*args: Any) -> str | None:
        started = time.perf_counter()
        text = in_original(*args)
        if text is not None:
            sink.append((time.perf_counter() - started) * 1000)
            composed.add(text)
        return text

    def read(agent: Any, text: str, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return offline_reading(agent, text, *args, **kwargs)
        finally:
            if text in composed:
                reads.append((time.perf_counter() - started) * 1000)

    generate.in_original, assess.offline_reading = timed, read  # type: ignore[assignment]  # the same calls, timed
    try:
        yield
    finally:
        generate.in_original, assess.offline_reading = in_original, offline_reading


def reset_tools(agent: AgentConfig) -> None:
    """Forget the example tools' process state (payments, bookings), as the suites' own tests do."""
    tools = Path(agent.base_dir or ".") / "tools.py"
    if tools.is_file() and "def reset_state(" in tools.read_text(encoding="utf-8"):
        from focal.adapters.python_tools import PythonToolRunner

        PythonToolRunner().run_outside_turn(agent, Tool(id="reset_state", entrypoint="tools.py:reset_state"), TENANT)


def _outcome(result: TurnResult) -> tuple[Any, ...]:
    violations = tuple(sorted({str(v.get("rule_id")) for v in result.enforcement.get("violations", [])}))
    return result.execution_path, violations, bool(result.enforcement.get("fallback_used")), result.response


def run_turns(deps: Any, agent: AgentConfig, conversations: list[Conversation], repeat: int,
              model: Any = None) -> list[TurnSample]:
    """Every turn of every conversation, `repeat` passes over the suite."""
    runner = LocalRunner(deps)
    samples: list[TurnSample] = []
    for _ in range(repeat):
        reset_tools(agent)
        for conv in conversations:
            run_setup(conv, agent)  # the conversation's own `setup`, as `focal test` calls it
            deps.profiles.save(CustomerProfile(
                tenant_id=TENANT, agent_id=agent.id, customer_id=conv.customer_id,
                schema_version=agent.profile_schema_version, fields=dict(conv.profile),
            ))
            session = uuid.uuid4().hex[:12]
            for i, turn in enumerate(conv.turns):
                samples.append(one_turn(deps, runner, agent, conv.customer_id, session, f"{session}-{i}", turn.user, model))
    return samples


def one_turn(deps: Any, runner: LocalRunner, agent: AgentConfig, customer: str, session: str, turn_id: str,
             message: str, model: Any = None) -> TurnSample:
    clear = getattr(deps.embedder, "clear_cache", None)
    if clear is not None:
        clear()  # every customer message is new: measure the embedding, not the cache
    calls_before = Counter(model.calls) if model is not None else Counter()
    inside, answer, capture = (model.inside_cpu, model.answer_cpu, model.capture_cpu) if model is not None else (0.0,) * 3
    stages: list[tuple[str, float, float]] = []
    originals: list[float] = []
    reads: list[float] = []
    with stage_timer(stages), original_timer(originals, reads):
        wall, cpu = time.perf_counter(), time.process_time()
        result = runner.turn(TurnRequest(tenant_id=TENANT, agent_id=agent.id, customer_id=customer,
                                         session_id=session, turn_id=turn_id, message=message))
        wall, cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
    per_stage: dict[str, tuple[float, float]] = {}
    for name, w, c in stages:  # generate and enforce run again on a regeneration: added up
        pw, pc = per_stage.get(name, (0.0, 0.0))
        per_stage[name] = (pw + w, pc + c)
    sample = TurnSample(wall_ms=wall, cpu_ms=cpu, stages=per_stage, in_stage_ms=dict(result.timings_ms),
                        violated=bool(result.enforcement.get("violations")), outcome=_outcome(result),
                        relevance_ms=float(result.enforcement.get("timings", {}).get("relevance", 0.0)),
                        original_ms=originals, original_read_ms=reads)
    if model is not None:
        sample.calls = Counter(model.calls) - calls_before
        sample.model_cpu_ms = (model.inside_cpu - inside) * 1000
        sample.answer_cpu_ms = (model.answer_cpu - answer) * 1000
        sample.capture_cpu_ms = (model.capture_cpu - capture) * 1000
    return sample
