"""`focal bench tools`: what running python tools in worker processes costs.

A throwaway agent folder with three tools (`echo`, a call that returns its argument; `hang`, a call that
blocks until released; `ping`) and workers of this bench's own:

  start     the first call of a new (tenant, agent): the worker process started, the tool file loaded,
            the call answered (`--starts` fresh tenants; median and worst);
  warm      `--calls` calls of `echo` one after another in a running worker (p50/p95/p99), beside the
            same function called in-process: the difference is the per-call overhead of the process
            boundary (two JSON frames on pipes and a thread hand-off each way);
  parallel  the same calls from 4 threads at once (calls per second through one agent's worker);
  replace   a call of `hang` with a 0.2 s timeout, then `ping`: the overrun worker killed and a fresh
            one answering (ms from the timeout to the answer);
  memory    resident set size of one running worker.

Timings only: nothing is asserted (tests/unit/test_bench_tool_calls.py checks that it runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

TOOLS = """
import os


def echo(order_id):
    return {"order_id": order_id}


def hang():
    with open(os.path.join(os.path.dirname(__file__), "gate")) as gate:
        gate.read()
    return {}


def ping():
    return {"pid": os.getpid()}
"""


def _ms(values: list[float], *qs: int) -> str:
    return "  ".join(f"p{q} {np.percentile(values, q):.3f}" for q in qs)


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def measure(calls: int = 300, starts: int = 5) -> str:
    from focal.adapters.python_tools import PythonToolRunner, worker_key
    from focal.adapters.tool_workers import ToolWorkers
    from focal.errors import ToolError
    from focal.models.agent import AgentConfig, Tool
    from focal.models.turn import ToolCallContext

    echo = Tool.model_validate({"id": "echo", "entrypoint": "tools.py:echo", "input": {"order_id": {"type": "id"}}})
    ping = Tool(id="ping", entrypoint="tools.py:ping")
    lines = [f"focal bench tools: python tools in worker processes ({os.cpu_count()} CPUs)"]
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "tools.py").write_text(TOOLS, encoding="utf-8")
        os.mkfifo(Path(folder) / "gate")
        agent = AgentConfig(id="bench", name="bench", base_dir=folder)
        workers = ToolWorkers()
        runner = PythonToolRunner(workers)
        try:
            first = []
            for n in range(starts):
                t0 = time.perf_counter()
                runner.run(agent, ping, {}, ToolCallContext(tenant_id=f"start-{n}", session_id="s", turn_id="1"))
                first.append((time.perf_counter() - t0) * 1000)
            lines.append(f"  start     first call of a new tenant's agent: median {statistics.median(first):.1f} ms, "
                         f"worst {max(first):.1f} ms ({starts} workers)")

            context = ToolCallContext(tenant_id="warm", session_id="s", turn_id="1")
            runner.run(agent, echo, {"order_id": "A0"}, context)
            warm = []
            for n in range(calls):
                t0 = time.perf_counter()
                runner.run(agent, echo, {"order_id": f"A{n}"}, context)
                warm.append((time.perf_counter() - t0) * 1000)
            namespace: dict[str, object] = {}
            exec(compile(TOOLS, "tools.py", "exec"), namespace)  # noqa: S102 - the bench's own tool text
            direct_echo = namespace["echo"]
            direct = []
            for n in range(calls):
                t0 = time.perf_counter()
                direct_echo(order_id=f"A{n}")  # type: ignore[operator]
                direct.append((time.perf_counter() - t0) * 1000)
            overhead = statistics.median(warm) - statistics.median(direct)
            lines.append(f"  warm      {calls} calls in a running worker (ms): {_ms(warm, 50, 95, 99)}; "
                         f"in-process p50 {statistics.median(direct):.4f}; overhead p50 {overhead:.3f} ms per call")

            with ThreadPoolExecutor(4) as pool:
                t0 = time.perf_counter()
                list(pool.map(lambda n: runner.run(agent, echo, {"order_id": f"B{n}"}, context), range(calls)))
                seconds = time.perf_counter() - t0
            lines.append(f"  parallel  {calls} calls from 4 threads: {calls / seconds:.0f} calls/s through one worker")

            stuck = ToolCallContext(tenant_id="replace", session_id="s", turn_id="1")
            runner.run(agent, ping, {}, stuck)
            t0 = time.perf_counter()
            try:
                runner.run(agent, Tool(id="hang", entrypoint="tools.py:hang", timeout_s=0.2), {}, stuck)
            except ToolError:
                pass
            timed_out = time.perf_counter()
            runner.run(agent, ping, {}, stuck)
            lines.append(f"  replace   a 0.2 s timeout overrun after {(timed_out - t0) * 1000:.0f} ms; "
                         f"a fresh worker answered {(time.perf_counter() - timed_out) * 1000:.1f} ms later")

            [pid] = workers.pids(worker_key(agent, "warm"))
            rss = _rss_mb(pid)
            lines.append(f"  memory    one running worker: {rss:.1f} MB resident" if rss is not None
                         else "  memory    (no /proc on this system)")
        finally:
            workers.close()
    return "\n".join(lines)


def _parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--calls", type=int, default=300, help="warm calls (and parallel calls) to time")
    parser.add_argument("--starts", type=int, default=5, help="fresh workers to time the first call of")
    return parser


def cli(args: argparse.Namespace) -> int:
    print(measure(max(1, args.calls), max(1, args.starts)))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m focal.bench.tool_calls [--calls N] [--starts N]`."""
    return cli(_parser(argparse.ArgumentParser(prog="focal bench tools", description=__doc__.splitlines()[0])).parse_args(argv))


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    """Register `focal bench tools` on the bench subparsers."""
    s = _parser(bsub.add_parser("tools", help="python tools in worker processes: start, per-call overhead, replacement"))
    s.set_defaults(func=cli)


if __name__ == "__main__":
    sys.exit(main())
