"""`focal bench startup [AGENT] [SUITE]`: how long `focal test` takes to reach its first conversation.

Each run is a fresh interpreter running `focal test AGENT SUITE -v -k <the suite's first conversation>` with
its own empty `.focal/` (FOCAL_DB_PATH in a temporary folder), so the first run starts with no vector cache
and the later ones (`--runs`) with the cache the first one left (focal.adapters.vector_cache). The time is
what `-v` prints: from the process's start to its first conversation (imports, the agent and the suite
read and checked, the models loaded, the agent's indexes built; focal.cli.startup), wall clock and CPU (on a
machine busy with other work the wall clock measures the machine). Last, an invalid suite (a misspelt
expectation) is refused, and the whole process is timed: it must be over before any model loads.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

FUNCTIONS = Path(__file__).resolve().parents[2]
ROOT = FUNCTIONS.parent
STARTUP = re.compile(r"start-up: (\d+\.\d+) s to the first conversation \(CPU (\d+\.\d+) s\); the agent's texts: "
                     r"(\d+) vector\(s\) read from the cache, (\d+) embedded")
ORDINALS = ("first", "second", "third", "fourth", "fifth")
INVALID = "conversations:\n  - name: misspelt\n    turns:\n      - user: Hello!\n        expect: {tool_call: []}\n"


def _env(home: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(FUNCTIONS), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "FOCAL_DB_PATH": str(home / ".focal" / "focal.db"), "PYTHONPATH": path, "NO_COLOR": "1"}


def _focal_test(args: list[str], home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "focal.main", "test", *args], capture_output=True, text=True,
                          env=_env(home), cwd=home, timeout=900)
    return done, time.perf_counter() - started


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def first_conversation(agent: str, suite: str) -> str:
    from focal.cli.conversation_tests import checked_suite

    return checked_suite(agent, suite)[1].conversations[0].name


def measure(agent: str, suite: str, runs: int = 2) -> dict[str, Any]:
    """{"runs": [{"s", "cpu_s", "from_cache", "embedded"}, …] (the first with an empty cache), "invalid_s",
    "invalid_cpu_s"}."""
    agent, suite = str(Path(agent).resolve()), str(Path(suite).resolve())
    name = first_conversation(agent, suite)
    out: dict[str, Any] = {"runs": []}
    with tempfile.TemporaryDirectory(prefix="focal-startup-") as tmp:
        home = Path(tmp)
        for _ in range(1 + runs):
            done, _wall = _focal_test([agent, suite, "-v", "-k", name], home)
            found = STARTUP.search(done.stderr)
            if found is None:
                raise RuntimeError(f"focal test printed no start-up line (exit {done.returncode}):\n{done.stderr[-2000:]}")
            out["runs"].append({"s": float(found.group(1)), "cpu_s": float(found.group(2)),
                                "from_cache": int(found.group(3)), "embedded": int(found.group(4))})
        bad = home / "invalid.yaml"
        children = _child_cpu()
        bad.write_text(INVALID, encoding="utf-8")
        done, wall = _focal_test([agent, str(bad)], home)
        out["invalid_cpu_s"] = _child_cpu() - children
        if done.returncode != 1 or "unknown expectation 'tool_call'" not in done.stderr:
            raise RuntimeError(f"the invalid suite was not refused as expected:\n{done.stderr[-2000:]}")
        out["invalid_s"] = wall
    return out


def report(agent: str, suite: str, figures: dict[str, Any]) -> str:
    lines = [f"focal test {agent} {suite}: time to the first conversation (process start → first turn)"]
    for i, run in enumerate(figures["runs"]):
        label = f"{ORDINALS[i] if i < len(ORDINALS) else f'run {i + 1}'} run ({'empty' if i == 0 else 'warm'} cache):"
        lines.append(f"  {label:<26}{run['s']:5.2f} s, {run['embedded']} vector(s) embedded, "
                     f"{run['from_cache']} read from the cache (CPU {run['cpu_s']:.2f} s)")
    warm = [r["s"] for r in figures["runs"][1:]]
    if len(warm) > 1:
        cpu = statistics.median([r["cpu_s"] for r in figures["runs"][1:]])
        lines.append(f"  {'warm runs, median:':<26}{statistics.median(warm):5.2f} s (CPU {cpu:.2f} s)")
    lines.append(f"  an invalid suite is refused after {figures['invalid_s']:5.2f} s (CPU {figures['invalid_cpu_s']:.2f} s; "
                 "the whole process, no model loaded)")
    return "\n".join(lines)


def cli(args: Any) -> int:
    agent = args.agent or str(ROOT / "examples" / "retail" / "agent.yaml")
    suite = args.suite or str(Path(agent).parent / "tests.yaml")
    print(report(agent, suite, measure(agent, suite, max(1, args.runs))))
    return 0


def add_parser(bsub: Any) -> None:
    s = bsub.add_parser("startup", help="focal test's time to its first conversation: empty, then warm vector cache")
    s.add_argument("agent", nargs="?", help="the agent YAML file (default: examples/retail/agent.yaml)")
    s.add_argument("suite", nargs="?", help="the suite (default: tests.yaml beside the agent)")
    s.add_argument("--runs", type=int, default=2, help="runs with the warm cache after the first (default 2)")
    s.set_defaults(func=cli)
