"""One agent's hung python tools cannot starve another's, and a call that overruns its timeout frees what it held.

Before: every python tool of the process ran in one shared pool of 4 threads. Four calls that never return
(here: blocked on a gate the test holds shut) took all four, and every other python tool of the process —
other agents, other tenants — waited in the queue until it timed out; the hung threads were never freed.
Now each tenant's agent has its own worker process with its own slots, and a call that overruns its timeout
retires its process, which is killed once no call on it is still waited for; a fresh one takes new calls.

Time is the test's own clock: the calls' timeouts pass when the test moves it, never by waiting.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.python_tools import PythonToolRunner, worker_key
from focal.adapters.tool_workers import ToolWorkers
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext

TOOLS = """
import os


def hang():
    open(os.path.join({started!r}, str(os.getpid()) + "-" + os.urandom(4).hex()), "w").close()
    with open({gate!r}) as gate:  # blocks until the test opens the gate
        gate.read()
    return {{"released": True}}


def ping():
    return {{"pid": os.getpid()}}
"""
HANG = Tool(id="hang", entrypoint="tools.py:hang", timeout_s=5)
PING = Tool(id="ping", entrypoint="tools.py:ping", timeout_s=5)
GUARD_S = 60.0  # a failure guard for what happens in other processes, never the thing asserted


class Clock:
    """Monotonic seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + GUARD_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting: {what}"
        time.sleep(0.01)


def running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def context(tenant: str) -> ToolCallContext:
    return ToolCallContext(tenant_id=tenant, session_id="s", turn_id="1")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    gate, started = tmp_path / "gate", tmp_path / "started"
    os.mkfifo(gate)
    started.mkdir()
    agents = {}
    for name in ("stuck", "other"):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "tools.py").write_text(TOOLS.format(gate=str(gate), started=str(started)), encoding="utf-8")
        agents[name] = AgentConfig(id=name, name=name, base_dir=str(folder))
    clock = Clock()
    workers = ToolWorkers(calls_per_agent=4, clock=clock, poll_s=0.01)
    yield {"agents": agents, "clock": clock, "workers": workers, "started": started,
           "runner": PythonToolRunner(workers)}
    workers.close()


def hang_every_slot(world: dict[str, Any], pool: ThreadPoolExecutor) -> list[Any]:
    """Four calls of the stuck agent (tenant acme), each inside its tool, blocked on the gate."""
    runner, stuck = world["runner"], world["agents"]["stuck"]
    calls = [pool.submit(runner.run, stuck, HANG, {}, context("acme")) for _ in range(4)]
    until(lambda: len(list(world["started"].iterdir())) == 4, "four calls inside the hung tool")
    return calls


def test_another_agents_tools_answer_while_one_agents_tools_all_hang(world):
    runner, agents = world["runner"], world["agents"]
    with ThreadPoolExecutor(4) as pool:
        hung = hang_every_slot(world, pool)
        assert "pid" in runner.run(agents["other"], PING, {}, context("acme"))  # another agent of the tenant
        assert "pid" in runner.run(agents["stuck"], PING, {}, context("globex"))  # the same agent, another tenant
        world["clock"].now += HANG.timeout_s + 1
        for call in hung:
            with pytest.raises(ToolError, match="timed out after 5"):
                call.result(timeout=GUARD_S)


def test_after_the_hung_calls_time_out_the_agent_runs_tools_again_in_a_fresh_process(world):
    runner, stuck, workers = world["runner"], world["agents"]["stuck"], world["workers"]
    with ThreadPoolExecutor(4) as pool:
        hung = hang_every_slot(world, pool)
        [hung_pid] = {int(p.name.split("-")[0]) for p in world["started"].iterdir()}
        world["clock"].now += HANG.timeout_s + 1
        for call in hung:
            with pytest.raises(ToolError, match="timed out"):
                call.result(timeout=GUARD_S)
    answer = runner.run(stuck, PING, {}, context("acme"))
    assert answer["pid"] != hung_pid
    until(lambda: not running(hung_pid), "the overrun worker process killed")  # the hung threads are gone with it
    assert workers.pids(worker_key(stuck, "acme")) == [answer["pid"]]



def test_what_a_tool_prints_or_writes_to_stdout_never_reaches_the_answers(tmp_path):
    (tmp_path / "tools.py").write_text(
        "import os\n\n\ndef noisy():\n    print('\\x00\\x00\\x00\\x05{}')\n"
        "    os.write(1, b'\\xff\\xff\\xff\\xff garbage')\n    return {'ok': True}\n", encoding="utf-8")
    agent = AgentConfig(id="noisy", name="noisy", base_dir=str(tmp_path))
    workers = ToolWorkers()
    try:
        runner = PythonToolRunner(workers)
        for _ in range(2):
            assert runner.run(agent, Tool(id="noisy", entrypoint="tools.py:noisy"), {}, context("acme")) == {"ok": True}
        assert len(workers.pids(worker_key(agent, "acme"))) == 1  # the same worker answered both: its stream is intact
    finally:
        workers.close()
