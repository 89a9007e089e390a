"""`focal bench overhead`: per-stage latency of the pipeline on the embedded defaults, no model."""

from __future__ import annotations

import resource
from dataclasses import dataclass
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import yaml

from focal.config.loader import load_agent
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.definition import STAGE_NAMES
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps


def suite_messages(suite_path: Path) -> list[tuple[str, list[str]]]:
    """The customer and the user messages of each conversation of a conversation-test suite."""
    suite = yaml.safe_load(suite_path.read_text(encoding="utf-8")) or {}
    out = []
    for i, conversation in enumerate(suite.get("conversations", [])):
        messages = []
        for j, turn in enumerate(conversation.get("turns", [])):
            if not isinstance(turn.get("user"), str):
                raise ValueError(
                    f"{suite_path}: conversations[{i}].turns[{j}].user must be a string "
                    "(quote it: yes, no, on and off are booleans in YAML)"
                )
            messages.append(turn["user"])
        out.append((str(conversation.get("customer_id") or "test-customer"), messages))
    return out


def overhead(agent_path: str, suite_path: str, repeat: int = 3) -> str:
    conversations = suite_messages(Path(suite_path))
    started = time.perf_counter()
    agent = load_agent(agent_path)
    agent_id = agent.id
    soft = {r.id for r in agent.rules if not r.is_hard_constraint}
    with tempfile.TemporaryDirectory() as tmp:
        deps = local_deps(agent_path, Path(tmp) / "bench.db")
        runner = LocalRunner(deps)
        runner.turn(TurnRequest(tenant_id="bench", agent_id=agent_id, session_id="warm",
                                turn_id="warm", message="hello"))  # model load and index build, not measured
        warm_s = time.perf_counter() - started
        per_stage: dict[str, list[float]] = {name: [] for name in STAGE_NAMES}
        totals: list[float] = []
        usage = ModelUsage()
        for _ in range(repeat):
            for customer, messages in conversations:
                session = uuid.uuid4().hex[:12]
                for i, message in enumerate(messages):
                    clear = getattr(deps.embedder, "clear_cache", None)
                    if clear is not None:
                        clear()  # every customer message is new: measure the embedding, not the cache
                    t0 = time.perf_counter()
                    result = runner.turn(TurnRequest(tenant_id="bench", agent_id=agent_id, customer_id=customer,
                                                     session_id=session, turn_id=f"{session}-{i}", message=message))
                    totals.append((time.perf_counter() - t0) * 1000)
                    for name in STAGE_NAMES:
                        per_stage[name].append(result.timings_ms.get(name, 0.0))
                    usage.add(result, soft)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines = [f"focal bench overhead: {len(totals)} turns ({len(conversations)} conversations × {repeat}), offline, no model",
             f"{'stage':<10}{'p50 ms':>10}{'p95 ms':>10}"]
    for name, values in per_stage.items():
        lines.append(f"{name:<10}{np.percentile(values, 50):>10.2f}{np.percentile(values, 95):>10.2f}")
    lines.append(f"{'turn':<10}{np.percentile(totals, 50):>10.2f}{np.percentile(totals, 95):>10.2f}   (wall clock, JSON hops included)")
    lines.append(f"start-up (model load + index) {warm_s:.2f} s · peak RSS {rss_mb:.0f} MB")
    lines += usage.lines()
    return "\n".join(lines)


@dataclass
class ModelUsage:
    """How often a configured model would be called, read from each offline turn's own trace."""

    turns: int = 0
    measured_calls: int = 0
    fast: int = 0
    sensor: int = 0
    rules: int = 0
    generate: int = 0
    judge: int = 0

    def add(self, result: TurnResult, soft_rules: set[str]) -> None:
        self.turns += 1
        self.measured_calls += result.model_calls
        understood = result.execution_path != "rejected"
        fast = bool(result.intent.get("fast_path"))
        self.fast += understood and fast
        self.sensor += understood and not fast
        self.rules += any(r in soft_rules for r in result.matched_rules)  # the rule check judges soft candidates
        if "generate" in result.timings_ms:
            self.generate += 1 + int(result.enforcement.get("regenerations", 0))
        self.judge += bool(result.enforcement.get("unverified"))

    def lines(self) -> list[str]:
        n = max(self.turns, 1)
        per_turn = (self.sensor + self.rules + self.generate + self.judge) / n
        return [
            f"model calls per turn: {self.measured_calls / n:.2f} measured (offline run)",
            f"  with a model configured: {per_turn:.2f} = sensor {self.sensor / n:.2f} + rule check {self.rules / n:.2f}"
            f" + generate {self.generate / n:.2f}"
            f" + judge {self.judge / n:.2f} (the calls this run's turns would make)",
            f"sensor fast path: {self.fast}/{self.turns} turns ({100 * self.fast / n:.0f} %) skip the model call",
        ]
