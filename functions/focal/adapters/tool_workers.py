"""Worker processes for python tools: one per tenant and agent, so one agent's tools never hold another's
capacity, and a call that overruns its timeout really frees what it held.

A worker (focal.adapters.tool_worker) is a child Python process that imports the agent's tool files and
runs each call in a thread of its own; calls and answers are JSON frames on its stdin/stdout. Per key
(tenant, agent id, agent folder) at most `calls_per_agent` calls are in flight; a further call of that key
waits for a slot within its own timeout, and nothing another key does can hold its slots.

A call that overruns its timeout is abandoned and its worker retired: the call's slot is free at once, new
calls of the key go to a fresh worker, and the retired one is killed as soon as no call on it is still
waited for — the hung thread dies with it (a thread cannot be stopped; a process can). A worker that exits
(a tool calling os._exit, a crash) fails its calls with a ToolOutcomeUnknown (what it did before is not known; so
does a call that timed out) and is replaced the same way. Idle
workers past `idle_workers` are closed, least recently used first.

Tool files' module-level state lives in the worker: shared by one tenant's calls of the agent, separate
between tenants, and gone when the worker is replaced (as after a restart).

Time comes from `clock` (monotonic seconds), read again every `poll_s` while a call waits: a test moves a
clock of its own instead of waiting.
"""

from __future__ import annotations

import atexit
import itertools
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from focal.adapters.tool_frames import encode_frame, read_frame, write_frame
from focal.errors import ToolError, ToolOutcomeUnknown

WorkerKey = tuple[str, str, str]  # tenant id, agent id, resolved agent folder ("" for module tools)
MAX_ERROR_CHARS = 2000


def _search_path() -> str:
    """The engine's import path, for the worker: the same focal package and deployment modules."""
    return os.pathsep.join(entry or os.getcwd() for entry in sys.path)


class Worker:
    """One worker process, the calls waiting for its answers, and the frames waiting to be written to it.

    Callers never write to the pipe themselves: a frame is queued for the worker's writer thread, so a
    worker that stops reading (tool code holding the interpreter) cannot keep a caller from its timeout."""

    def __init__(self, key: WorkerKey, threads: int, on_exit: Callable[[Worker], None]):
        self.key = key
        self.calls = 0  # calls on this worker still waited for (kept by ToolWorkers under its lock)
        self.retired = False
        self.used = 0
        self.exited = False
        self._pending: dict[int, Future[dict[str, Any]]] = {}
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._on_exit = on_exit
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "focal.adapters.tool_worker", str(threads)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, close_fds=True,
                env={**os.environ, "PYTHONPATH": _search_path()},
            )
        except (OSError, ValueError) as exc:
            raise ToolError(f"the tool worker process could not be started: {type(exc).__name__}") from None
        threading.Thread(target=self._read, name=f"focal-tool-reader-{self.proc.pid}", daemon=True).start()
        threading.Thread(target=self._write, name=f"focal-tool-writer-{self.proc.pid}", daemon=True).start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, message: dict[str, Any]) -> tuple[int, Future[dict[str, Any]]]:
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            call_id = next(self._ids)
            try:
                frame = encode_frame({"id": call_id, **message})
            except (TypeError, ValueError) as exc:
                raise ToolError(f"tool {message.get('tool')!r}: its arguments cannot be sent as JSON ({exc})") from None
            if self.exited:
                raise ToolError(f"tool {message.get('tool')!r} failed: its worker process stopped")
            self._pending[call_id] = future
        self._outbox.put(frame)
        return call_id, future

    def forget(self, call_id: int) -> None:
        with self._lock:
            self._pending.pop(call_id, None)

    def stop(self) -> None:
        """Kill the process; its reader then fails what is still pending and reports the exit."""
        try:
            self.proc.kill()
        except OSError:
            pass

    def _write(self) -> None:
        while (frame := self._outbox.get()) is not None:
            try:
                write_frame(self.proc.stdin, frame)  # type: ignore[arg-type]
            except (OSError, ValueError):  # ValueError: the pipe was closed
                self.stop()
                return

    def _read(self) -> None:
        try:
            while (frame := read_frame(self.proc.stdout)) is not None:  # type: ignore[arg-type]
                with self._lock:
                    future = self._pending.pop(frame.get("id"), None)  # type: ignore[arg-type]
                if future is not None:
                    future.set_result(frame)
        except Exception:  # noqa: BLE001 - a worker's stream is tool code's to break: the worker is let go
            pass
        self.stop()
        code = self.proc.wait()
        with self._lock:
            self.exited = True
            pending, self._pending = list(self._pending.values()), {}
        self._outbox.put(None)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        for future in pending:
            future.set_result({"stopped": code})
        self._on_exit(self)


class ToolWorkers:
    """The worker processes of one engine process, by key; `call` runs one call in its key's worker."""

    def __init__(self, calls_per_agent: int = 4, idle_workers: int = 16,
                 clock: Callable[[], float] = time.monotonic, poll_s: float = 0.25):
        if calls_per_agent < 1 or idle_workers < 0:
            raise ValueError("calls_per_agent must be at least 1 and idle_workers at least 0")
        self.calls_per_agent, self.idle_workers = calls_per_agent, idle_workers
        self.clock, self.poll_s = clock, poll_s
        self._cond = threading.Condition()
        self._current: dict[WorkerKey, Worker] = {}
        self._slots: dict[WorkerKey, int] = {}
        self._running: set[Worker] = set()  # current and retired, until their process is gone
        self._uses = itertools.count(1)

    def call(self, key: WorkerKey, message: dict[str, Any], timeout_s: float) -> dict[str, Any]:
        """The tool's mapping; ToolError when it failed, timed out, or its worker stopped."""
        tool = message.get("tool")
        deadline = self.clock() + timeout_s
        worker = self._take(key, tool, timeout_s, deadline)
        overran = False
        try:
            call_id, future = worker.send(message)
            try:
                reply = self._wait(future, deadline)
            except FutureTimeout:
                worker.forget(call_id)
                overran = True
                raise ToolOutcomeUnknown(f"tool {tool!r} timed out after {timeout_s}s") from None
        finally:
            self._give_back(worker, overran)
        return _result(tool, reply)

    def pids(self, key: WorkerKey) -> list[int]:
        """The processes serving `key`, current and retired (for `focal bench tools` and tests)."""
        with self._cond:
            return [w.pid for w in self._running if w.key == key]

    def close(self) -> None:
        with self._cond:
            workers, self._current = list(self._running), {}
        for worker in workers:
            worker.retired = True
            worker.stop()

    def _take(self, key: WorkerKey, tool: Any, timeout_s: float, deadline: float) -> Worker:
        with self._cond:
            while self._slots.get(key, 0) >= self.calls_per_agent:
                left = deadline - self.clock()
                if left <= 0:
                    raise ToolError(f"tool {tool!r} timed out after {timeout_s}s waiting: this agent's "
                                    f"{self.calls_per_agent} tool calls in progress hold every slot")
                self._cond.wait(min(left, self.poll_s))
            worker = self._current.get(key)
            if worker is None or worker.exited:
                worker = Worker(key, self.calls_per_agent, self._exited)
                self._current[key] = worker
                self._running.add(worker)
            self._slots[key] = self._slots.get(key, 0) + 1
            worker.calls += 1
            worker.used = next(self._uses)
            return worker

    def _wait(self, future: Future[dict[str, Any]], deadline: float) -> dict[str, Any]:
        while True:
            left = deadline - self.clock()
            if future.done() or left > 0:
                try:
                    return future.result(timeout=max(0.0, min(left, self.poll_s)))
                except FutureTimeout:
                    continue
            raise FutureTimeout

    def _give_back(self, worker: Worker, overran: bool) -> None:
        with self._cond:
            left = self._slots.get(worker.key, 0) - 1
            if left > 0:
                self._slots[worker.key] = left
            else:
                self._slots.pop(worker.key, None)
            worker.calls -= 1
            if overran:
                self._retire(worker)
            if worker.retired and worker.calls == 0:
                worker.stop()
            self._close_idle()
            self._cond.notify_all()

    def _retire(self, worker: Worker) -> None:
        if self._current.get(worker.key) is worker:
            del self._current[worker.key]
        worker.retired = True

    def _close_idle(self) -> None:
        idle = sorted((w for w in self._current.values() if w.calls == 0), key=lambda w: w.used)
        for worker in idle[:max(0, len(idle) - self.idle_workers)]:
            self._retire(worker)
            worker.stop()

    def _exited(self, worker: Worker) -> None:
        with self._cond:
            self._retire(worker)
            self._running.discard(worker)
            self._cond.notify_all()


def _result(tool: Any, reply: dict[str, Any]) -> dict[str, Any]:
    if "result" in reply:
        result = reply["result"]
        if isinstance(result, dict):
            return result
        raise ToolOutcomeUnknown(f"tool {tool!r} returned {type(result).__name__}, expected a mapping")
    if "stopped" in reply:  # midway through the call: what the tool did before is unknown
        raise ToolOutcomeUnknown(f"tool {tool!r} failed: its worker process stopped (exit status {reply['stopped']})")
    raise ToolError(str(reply.get("error") or f"tool {tool!r} failed")[:MAX_ERROR_CHARS])


_shared: ToolWorkers | None = None
_shared_lock = threading.Lock()


def _forget_in_child() -> None:
    global _shared
    _shared = None  # a forked child does not own its parent's workers (nor the threads that talk to them)


os.register_at_fork(after_in_child=_forget_in_child)


def shared_workers() -> ToolWorkers:
    """This process's workers, sized by the settings (FOCAL_TOOL_CALLS_PER_AGENT, FOCAL_TOOL_IDLE_WORKERS)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            from focal.settings import get_settings

            settings = get_settings()
            _shared = ToolWorkers(settings.tool_calls_per_agent, settings.tool_idle_workers)
            atexit.register(_shared.close)
        return _shared
