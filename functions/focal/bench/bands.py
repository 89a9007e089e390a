"""`focal bench bands [SUITE ...]`: how the approval gate decides over conversation suites.

Each suite (default: every `examples/*/tests.yaml` with an `agent.yaml` beside it) runs through the
local pipeline exactly as `focal test` runs it, at the agent's own `approval` weights and bands.
Every gate decision is read back from the stored turn records (the route's note "approval gate on
issue_refund (step confirm_refund): execute (confidence 0.98)") and counted per suite and in total:
execute / approval / clarify / rejected, plus turns where an action already waited for approval
(held: nothing run, nothing decided). `--show` lists each decision with its factors.

Python tools that keep process state (what an example's tools have already done) are reset before and after
each suite through their own `reset_state`, when the tools file has one, so a suite's decisions do
not depend on what ran before it.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from focal.cli.conversation_tests import TENANT_ID, load_suite, run_conversation
from focal.config.loader import load_agent

PATHS = ("execute", "approval", "clarify", "rejected")
GATE_NOTE = re.compile(r"^approval gate on (?P<tools>.+?) \((?P<trigger>.+?)\): (?P<path>\w+) \((?P<reason>.*)\)$")
HELD_NOTE = re.compile(r"^approval \S+ still pending: nothing run$")
CONFIDENCE = re.compile(r"^confidence ([0-9.]+)$")
SHORT = {"goal_understanding": "goal", "tool_availability": "args", "context_richness": "context",
         "tool_determinism": "risk"}


@dataclass
class Decision:
    conversation: str
    turn: int
    tools: str
    path: str
    reason: str
    confidence: float | None
    factors: dict[str, float] = field(default_factory=dict)


@dataclass
class SuiteBands:
    agent_path: str
    suite_path: str
    turns: int = 0
    held: int = 0
    conversations: int = 0
    passed: int = 0
    decisions: list[Decision] = field(default_factory=list)
    weights: dict[str, float] = field(default_factory=dict)
    thresholds: tuple[float, float] = (0.85, 0.55)
    seconds: float = 0.0
    reset_problems: list[str] = field(default_factory=list)

    def count(self, path: str) -> int:
        return sum(d.path == path for d in self.decisions)


def default_suites(root: str | Path = "examples") -> list[Path]:
    """Every `tests.yaml` under `root/*/` that has an `agent.yaml` beside it."""
    return sorted(p for p in Path(root).glob("*/tests.yaml") if (p.parent / "agent.yaml").exists())


def reset_tools(agent_path: str | Path) -> list[str]:
    """Call `reset_state` of the agent's python tools files, in the worker the suite's turns use (tenant
    TENANT_ID). Returns what could not be reset (the suite still runs; its decisions may then depend on what
    ran before)."""
    from focal.adapters.python_tools import PythonToolRunner
    from focal.errors import ToolError
    from focal.models.agent import Tool

    agent = load_agent(agent_path)
    files = {t.entrypoint.split(":", 1)[0] for t in agent.tools if t.entrypoint and ":" in t.entrypoint}
    problems: list[str] = []
    for name in sorted(files):
        source = Path(agent_path).parent / name
        if source.exists() and "def reset_state(" in source.read_text(encoding="utf-8"):
            try:
                PythonToolRunner().run_outside_turn(agent, Tool(id="reset_state", entrypoint=f"{name}:reset_state"),
                                                    TENANT_ID)
            except ToolError as exc:  # e.g. a reset_state that returns None: it ran, the runner wants a mapping
                if "expected a mapping" not in str(exc):
                    problems.append(f"{name}: {exc}")
    return problems


def _deps(agent_path: str | Path, shared: Any | None) -> Any:
    """What `focal test` gives each conversation: its own stores, a scripted model, shared index."""
    from focal.adapters.litellm_model import ScriptedLiteLLM
    from focal.wiring import local_deps

    deps = local_deps(agent_path, ":memory:")
    deps.model = ScriptedLiteLLM()
    deps.model_factory = None
    if shared is not None:
        deps.configs, deps.rule_index, deps.indexed = shared.configs, shared.rule_index, shared.indexed
    return deps


def decisions_of(records: list[Any], conversation: str) -> tuple[list[Decision], int]:
    """The gate decisions in a session's turn records (oldest first), and how many turns were held."""
    out: list[Decision] = []
    held = 0
    for record in sorted(records, key=lambda r: r.turn_number):
        notes = (((record.state or {}).get("route") or {}).get("decision") or {}).get("notes") or []
        for note in notes:
            if HELD_NOTE.match(note):
                held += 1
            m = GATE_NOTE.match(note)
            if m is None or m["path"] not in PATHS:
                continue
            c = CONFIDENCE.match(m["reason"])
            out.append(Decision(conversation=conversation, turn=record.turn_number, tools=m["tools"], path=m["path"],
                                reason=m["reason"], confidence=float(c.group(1)) if c else None,
                                factors=dict(record.result.confidence_factors)))
    return out, held


def run_bands(suite_path: str | Path, agent_path: str | Path | None = None) -> SuiteBands:
    suite_path = Path(suite_path)
    agent_path = Path(agent_path) if agent_path else suite_path.parent / "agent.yaml"
    started = time.perf_counter()
    agent = load_agent(agent_path)
    conversations = load_suite(suite_path, agent)
    out = SuiteBands(agent_path=str(agent_path), suite_path=str(suite_path), weights=dict(agent.approval.weights),
                     thresholds=(agent.approval.execute_threshold, agent.approval.approval_threshold))
    out.reset_problems = reset_tools(agent_path)
    try:
        shared = None
        run_id = f"{int(time.time() * 1000):x}"
        for index, conv in enumerate(conversations, start=1):
            deps = _deps(agent_path, shared)
            shared = shared or deps
            session_id = f"bands-{run_id}-{index}"
            report = run_conversation(conv, agent, deps, session_id)
            out.conversations += 1
            out.passed += report.passed
            out.turns += len(report.turns)
            found, held = decisions_of(deps.turns.list_for_session(TENANT_ID, agent.id, session_id), conv.name)
            out.decisions += found
            out.held += held
    finally:
        reset_tools(agent_path)
    out.seconds = round(time.perf_counter() - started, 2)
    return out


def _range(values: list[float]) -> str:
    return f"{min(values):.2f}–{max(values):.2f}" if values else "-"


def format_bands(results: list[SuiteBands], show: bool = False) -> str:
    lines = ["focal bench bands: approval-gate decisions over conversation suites, at each agent's weights"]
    for r in results:
        w = " / ".join(f"{k} {v:.2f}" for k, v in r.weights.items())
        lines.append(f"  {r.suite_path}: {r.passed}/{r.conversations} conversations pass; weights {w}; "
                     f"execute ≥ {r.thresholds[0]:.2f}, approval ≥ {r.thresholds[1]:.2f}")
        lines += [f"    tool state not reset: {p}" for p in r.reset_problems]
    head = f"{'suite':<32}{'turns':>6}{'gates':>6}" + "".join(f"{p:>10}" for p in PATHS) + f"{'held':>6}"
    lines += ["", head, "-" * len(head)]

    def row(name: str, rs: list[SuiteBands]) -> str:
        decisions = [d for r in rs for d in r.decisions]
        counts = "".join(f"{sum(d.path == p for d in decisions):>10}" for p in PATHS)
        return (f"{name:<32}{sum(r.turns for r in rs):>6}{len(decisions):>6}{counts}"
                f"{sum(r.held for r in rs):>6}")

    for r in results:
        lines.append(row(r.suite_path, [r]))
    lines.append(row("total", results))
    every = [d for r in results for d in r.decisions]
    lines.append("")
    lines.append("confidence per band: " + ", ".join(
        f"{p} {_range([d.confidence for d in every if d.path == p and d.confidence is not None])}" for p in PATHS))
    if show:
        for r in results:
            lines.append(f"\n{r.suite_path}:")
            for d in r.decisions:
                factors = " ".join(f"{SHORT.get(k, k)}={v:.2f}" for k, v in d.factors.items())
                score = f"{d.confidence:.2f}" if d.confidence is not None else d.reason
                lines.append(f"  {d.path:<9}{score:>6}  {factors}  {d.tools} · {d.conversation} (turn {d.turn})")
    return "\n".join(lines)


def cli(args: Any) -> int:
    suites = [Path(s) for s in args.suites] or default_suites(args.root)
    if not suites:
        print(f"no suites found (looked for {args.root}/*/tests.yaml beside an agent.yaml)")
        return 1
    missing = [s for s in suites if not s.exists() or not (s.parent / "agent.yaml").exists()]
    if missing:
        print("no suite with an agent.yaml beside it: " + ", ".join(map(str, missing)))
        return 1
    print(format_bands([run_bands(s) for s in suites], show=args.show))
    return 0


def add_parser(bsub: Any) -> None:
    s = bsub.add_parser("bands", help="execute / approval / clarify / rejected counts of the approval gate over suites")
    s.add_argument("suites", nargs="*", help="conversation suites (tests.yaml beside an agent.yaml); default: examples/*")
    s.add_argument("--root", default="examples", help="where to look for suites when none is given")
    s.add_argument("--show", action="store_true", help="also list every gate decision with its factors")
    s.set_defaults(func=cli)
