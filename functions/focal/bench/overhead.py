"""`focal bench overhead`: what a turn costs, measured on an agent's conversation suite.

Three runs over the same suite (every examples/*/tests.yaml beside its agent.yaml by default):
  offline       no model: per-stage wall and CPU (the stage call, its validation and JSON hop
                included) p50/p95/p99, the whole turn, the first turn (ONNX load and index build), and
                on turns said in a translation the answer composed again in the file's language;
  instant model the scripted cooperative model of focal.bench.model for every purpose: model
                calls per turn by purpose, litellm's import (done at start, as `focal serve` and
                `focal chat` do) and then the first model turn, CPU per model call of ours and litellm's;
  latency       the same with `--latency-ms` slept in every call: the end-to-end effect of each call.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

from focal.bench.model import InstantModel, capturing
from focal.bench.runs import TENANT, TurnSample, one_turn, run_turns
from focal.cli.conversation_tests import load_suite
from focal.config.loader import load_agent
from focal.pipeline.runner import LocalRunner
from focal.turn.definition import STAGE_NAMES
from focal.wiring import local_deps

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
PURPOSES = ("sensor", "rules", "generate", "extract", "judge", "grounding")


def example_suites() -> list[tuple[Path, Path]]:
    """(agent.yaml, tests.yaml) of every example agent with a suite beside it."""
    return [(p.parent / "agent.yaml", p) for p in sorted(EXAMPLES.glob("*/tests.yaml")) if (p.parent / "agent.yaml").is_file()]


def _pct(values: list[float], *qs: int) -> str:
    return "".join(f"{np.percentile(values, q):>9.2f}" if values else f"{'-':>9}" for q in qs)


def overhead(agent_path: str, suite_path: str, repeat: int = 3, through_litellm: bool = True,
             latency_ms: float = 400.0, with_model: bool = True) -> str:
    agent = load_agent(agent_path)
    conversations = load_suite(suite_path, agent)
    turns = sum(len(c.turns) for c in conversations)
    lines = [f"== {agent_path} · {suite_path}: {len(conversations)} conversations, {turns} turns × {repeat}"]
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        deps = local_deps(agent_path, Path(tmp) / "bench.db")
        deps.model_factory = None  # offline even when the agent file names a model
        runner = LocalRunner(deps)
        first = one_turn(deps, runner, agent, "bench-warm", "warm", "warm-0", "hello")  # ONNX load + index build
        first_s = time.perf_counter() - started
        offline = run_turns(deps, agent, conversations, repeat)
        lines += _offline_lines(offline, first_s, first)
        if with_model:
            lines += _model_lines(agent_path, agent, conversations, repeat, deps, Path(tmp), offline,
                                  through_litellm, latency_ms)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lines.append(f"peak RSS {rss_mb:.0f} MB")
    return "\n".join(lines)


def _offline_lines(samples: list[TurnSample], first_s: float, first: TurnSample) -> list[str]:
    head = f"{'':<4}{'stage':<10}{'wall p50':>9}{'p95':>9}{'p99':>9}{'CPU p50':>9}{'p95':>9}{'p99':>9}{'in-stage':>10}"
    lines = [f"offline, no model ({len(samples)} turns)", head]
    for name in STAGE_NAMES:
        ran = [s for s in samples if name in s.stages]
        walls, cpus = [s.stages[name][0] for s in ran], [s.stages[name][1] for s in ran]
        inside = [s.in_stage_ms.get(name, 0.0) for s in ran]
        lines.append(f"{'':<4}{name:<10}{_pct(walls, 50, 95, 99)}{_pct(cpus, 50, 95, 99)}{_pct(inside, 50)}"
                     f"   ({len(ran)} turns)")
    walls, cpus = [s.wall_ms for s in samples], [s.cpu_ms for s in samples]
    lines.append(f"{'':<4}{'turn':<10}{_pct(walls, 50, 95, 99)}{_pct(cpus, 50, 95, 99)}")
    hops = [sum(w for w, _ in s.stages.values()) - sum(s.in_stage_ms.get(n, 0.0) for n in s.stages) for s in samples]
    lines.append(f"    JSON hops and validation between stages: p50 {np.percentile(hops, 50):.2f} ms per turn "
                 "(stage calls minus the stages' own time)")
    lines.append(_original_line(samples))
    lines.append(f"    first turn {first_s:.2f} s (ONNX load + index build; {first.wall_ms:.0f} ms the turn itself)")
    return lines


def _original_line(samples: list[TurnSample]) -> str:
    """What composing the answer again in the agent file's language, and enforce's reading of it, cost on the turns
    said in a translation."""
    translated = [s for s in samples if s.original_ms]
    if not translated:
        return "    original-language answer: composed on no turn (every turn in the agent file's language)"
    composed = [sum(s.original_ms) for s in translated]
    read = [sum(s.original_read_ms) for s in translated]
    share = 100 * (sum(composed) + sum(read)) / sum(s.wall_ms for s in translated)
    return (f"    original-language answer on {len(translated)} of {len(samples)} turns (translated; enforced on both "
            f"texts), ms per turn p50 p95 p99: composed{_pct(composed, 50, 95, 99)} · read by enforce"
            f"{_pct(read, 50, 95, 99)} · together {share:.2f} % of those turns' wall")


def _model_lines(agent_path: str, agent, conversations, repeat: int, offline_deps, tmp: Path,  # noqa: ANN001
                 offline: list[TurnSample], through_litellm: bool, latency_ms: float) -> list[str]:
    imported = "litellm" in sys.modules
    started = time.perf_counter()
    if through_litellm:  # init work, as `focal serve` and `focal chat` do with a model configured
        from focal.adapters.litellm_model import warm_up

        warm_up(background=False)
    import_s = time.perf_counter() - started
    started = time.perf_counter()
    model = InstantModel(through_litellm=through_litellm)
    deps = _model_deps(agent_path, tmp / "model.db", offline_deps, model)
    with capturing(model):
        conv = conversations[0]
        first = run_turns(deps, agent, [type(conv)(name=conv.name, turns=conv.turns[:1], customer_id=conv.customer_id,
                                                   profile=conv.profile)], 1, model)[0]
        first_s = time.perf_counter() - started
        samples = run_turns(deps, agent, conversations, repeat, model)
    how = "through litellm.completion (mock_response)" if through_litellm else "in-process, litellm not used"
    lines = [f"instant model, {how} ({len(samples)} turns)"]
    lines += _calls_lines(samples)
    walls, cpus = [s.wall_ms for s in samples], [s.cpu_ms for s in samples]
    lines.append(f"    turn wall p50/p95/p99 {_pct(walls, 50, 95, 99).strip()} ms · CPU p50/p99 {_pct(cpus, 50, 99).strip()} ms")
    n_calls = sum(sum(s.calls.values()) for s in samples)
    if n_calls:
        ours = (sum(s.cpu_ms - s.model_cpu_ms - s.capture_cpu_ms for s in samples)
                - sum(s.cpu_ms for s in offline)) / n_calls
        library = sum(s.model_cpu_ms - s.answer_cpu_ms for s in samples) / n_calls
        relevance = (sum(s.relevance_ms for s in samples) - sum(s.relevance_ms for s in offline)) / n_calls
        shown = f"{ours:.2f} ms" if ours >= 0 else "under the noise of the offline run"
        lines.append(f"    CPU per model call: ours {shown} (turn CPU outside the model minus the offline turn's, "
                     f"per call; of which ~{relevance:.2f} ms the relevance check embedding model drafts) · "
                     f"litellm {library:.2f} ms")
    note = "litellm was already imported" if imported else (
        f"after the warm-up at start: litellm's import {import_s:.2f} s" if through_litellm else "no litellm")
    lines.append(f"    first model turn {first_s:.2f} s ({first.wall_ms:.0f} ms the turn; {note})")
    changed = sum(a.outcome != b.outcome for a, b in zip(offline, samples, strict=False))
    lines.append(f"    outcome (path, violations, fallback, answer) differs from offline on {changed} of {len(samples)} turns")
    if model.conditions_asked:  # the judge calls above are an upper bound: every condition read as holding
        lines += _lower_bound(agent_path, agent, conversations, offline_deps, tmp, through_litellm)
    if latency_ms > 0:
        slow = InstantModel(through_litellm=through_litellm, latency_ms=latency_ms)
        timed = _one_pass(agent_path, agent, conversations, offline_deps, tmp / "latency.db", slow)
        walls = [s.wall_ms for s in timed]
        calls = sum(sum(s.calls.values()) for s in timed) / max(len(timed), 1)
        lines.append(f"with {latency_ms:.0f} ms per model call ({len(timed)} turns, {calls:.2f} calls/turn): "
                     f"wall p50 {np.percentile(walls, 50):.0f} ms · p95 {np.percentile(walls, 95):.0f} ms · "
                     f"mean {np.mean(walls):.0f} ms")
    return lines


def _lower_bound(agent_path: str, agent, conversations, offline_deps, tmp: Path,  # noqa: ANN001
                 through_litellm: bool) -> list[str]:
    """The same suite with the sensor model reading every subjective rule's condition as not holding."""
    model = InstantModel(through_litellm=through_litellm, condition_reading="does_not_hold")
    calls = _calls_lines(_one_pass(agent_path, agent, conversations, offline_deps, tmp / "lower.db", model))
    return ["    the judge calls above read every condition the sensor is asked about as holding (an upper bound); "
            "read as not holding:", *("  " + line for line in calls)]


def _one_pass(agent_path: str, agent, conversations, offline_deps, db: Path,  # noqa: ANN001
              model: InstantModel) -> list[TurnSample]:
    """One pass over the suite with `model`, in its own SQLite stores."""
    deps = _model_deps(agent_path, db, offline_deps, model)
    with capturing(model):
        return run_turns(deps, agent, conversations, 1, model)


def _calls_lines(samples: list[TurnSample]) -> list[str]:
    n = max(len(samples), 1)
    total: Counter[str] = Counter()
    for s in samples:
        total.update(s.calls)
    per_turn = sum(total.values()) / n
    purposes = [p for p in PURPOSES if total[p]] + [p for p in sorted(total) if p not in PURPOSES]
    by = " + ".join(f"{p} {total[p] / n:.2f}" for p in purposes) or "none"
    quiet = [sum(s.calls.values()) for s in samples if not s.violated]
    over = sum(c > 2 for c in quiet)
    return [f"    model calls per turn {per_turn:.2f} = {by}",
            f"    most calls on a turn without a violation: {max(quiet, default=0)} ({over} such turns over 2)"]


def _model_deps(agent_path: str, db, offline_deps, model: InstantModel):  # noqa: ANN001, ANN202
    """Own SQLite stores; the embedder, config and rule index of the offline run reused (already built)."""
    deps = local_deps(agent_path, db)
    deps.model, deps.model_factory = model, None
    deps.configs, deps.rule_index, deps.indexed = offline_deps.configs, offline_deps.rule_index, offline_deps.indexed
    return deps


def overhead_all(agent_path: str | None, suite_path: str | None, repeat: int = 3, through_litellm: bool = True,
                 latency_ms: float = 400.0, with_model: bool = True) -> str:
    if agent_path:
        pairs = [(Path(agent_path), Path(suite_path) if suite_path else Path(agent_path).parent / "tests.yaml")]
    else:
        pairs = example_suites()
    out = [f"focal bench overhead: {len(pairs)} agent(s), tenant {TENANT!r}, repeat {repeat}"]
    for agent, suite in pairs:
        try:
            out.append(overhead(str(agent), str(suite), repeat, through_litellm, latency_ms, with_model))
        except Exception as exc:  # noqa: BLE001 - one broken agent file must not hide the others' figures
            if agent_path:
                raise
            out.append(f"== {agent}: not measured: {type(exc).__name__}: {str(exc).splitlines()[0]}")
    return "\n".join(out)


def add_parser(sub) -> None:  # noqa: ANN001 - argparse sub-parsers
    s = sub.add_parser("overhead", help="per-stage wall/CPU offline, model calls per turn with an instant model and with latency")
    s.add_argument("agent", nargs="?", help="agent file (default: every examples/*/agent.yaml with a tests.yaml beside it)")
    s.add_argument("--suite", help="conversation suite (default: tests.yaml beside the agent)")
    s.add_argument("--repeat", type=int, default=3)
    s.add_argument("--through-litellm", action="store_true", default=True,
                   help="send the instant model's answers through litellm.completion (mock_response); the default")
    s.add_argument("--no-through-litellm", dest="through_litellm", action="store_false",
                   help="answer in-process without litellm")
    s.add_argument("--latency-ms", type=float, default=400.0, help="injected latency per model call (0: skip that run)")
    s.add_argument("--offline-only", action="store_true", help="skip the runs with a model")
    s.set_defaults(func=_cli)


def _cli(args) -> int:  # noqa: ANN001
    print(overhead_all(args.agent, args.suite, args.repeat, args.through_litellm, args.latency_ms, not args.offline_only))
    return 0
