"""`focal bench load --kill-once`: the load of `focal bench load`, with the server killed (SIGKILL) once mid-run.

`focal serve` runs as a child process on a loopback port with its own SQLite file. When a share of the
turns (`kill_at`) has been answered, the server is killed with SIGKILL while turns are in flight, and
started again on the same port and file. Every client retries a turn that failed with the same turn
id until it is answered: after a connection error (the server is down) with a short backoff, after a
409 `turn_in_progress` (a claim of a turn the dead server was running, until its lease ends) or a 503
after the Retry-After it was given.

Afterwards the store is read: a sent turn id without a turn record is *lost*, one recorded twice is
*duplicated*, a session whose turn count differs from its recorded turns counted a turn twice, and an
answer the client got that is not the recorded one is *mismatched*. Recovery is the time from the kill
to the answer of the last turn the kill interrupted.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TENANT = "bench"
KEY = "fk_bench_kill_once"
READY_TIMEOUT_S = 300.0  # failure guards only: a loaded machine may start the server slowly
TURN_GIVE_UP_S = 900.0
BACKOFF_S = (0.1, 2.0)  # after a connection error: first wait, longest wait


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _send(url: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any], float | None]:
    """(status, JSON answer, Retry-After seconds); status 0 when the connection failed."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET",
                                     headers={"content-type": "application/json", "x-api-key": KEY})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read() or b"{}"), None
    except urllib.error.HTTPError as exc:
        retry = exc.headers.get("Retry-After")
        try:
            payload = json.loads(exc.read() or b"{}")
        except ValueError:
            payload = {}
        return exc.code, payload, float(retry) if retry and retry.isdigit() else None
    except (OSError, ValueError, http.client.HTTPException):  # refused, reset, timed out, cut short mid-answer
        return 0, {}, None


class Server:
    """`focal serve` as a child process: started, killed with SIGKILL, started again."""

    def __init__(self, agent: str, db: Path, port: int, threads: int | None, log: Path, budget_s: float | None):
        self.command = [sys.executable, "-m", "focal.main", "serve", "--agent", agent, "--db", str(db),
                        "--port", str(port), "--api-key", f"{KEY}={TENANT}:chat", "--rate-per-key", "0", "--quiet",
                        *(["--threads", str(threads)] if threads else [])]
        self.env = {**os.environ, **({"FOCAL_TURN_BUDGET_S": str(budget_s)} if budget_s else {})}
        self.base, self.log = f"http://127.0.0.1:{port}", log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> float:
        """Start and wait until it answers; the seconds that took."""
        started = time.monotonic()
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=out, env=self.env)
        while _send(f"{self.base}/openapi.json")[0] != 200:
            if self.process.poll() is not None or time.monotonic() - started > READY_TIMEOUT_S:
                raise RuntimeError(f"focal serve did not start (see {self.log})")
            time.sleep(0.1)
        return time.monotonic() - started

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@dataclass
class Tally:
    lock: threading.Lock = field(default_factory=threading.Lock)
    answered: int = 0
    in_flight: int = 0
    retries: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    answers: dict[str, str] = field(default_factory=dict)  # turn id → the response the client got
    interrupted: dict[str, float] = field(default_factory=dict)  # turn id → when it was answered (monotonic)
    killed_at: float | None = None

    def add(self, **counts: int) -> None:
        with self.lock:
            for name, n in counts.items():
                setattr(self, name, getattr(self, name) + n)


def _turn(base: str, path: str, body: dict[str, Any], tally: Tally) -> None:
    """Send one turn until it is answered, with the same turn id every time."""
    give_up, backoff, cut = time.monotonic() + TURN_GIVE_UP_S, BACKOFF_S[0], False
    while True:
        tally.add(in_flight=1)
        status, payload, retry_after = _send(base + path, body)
        tally.add(in_flight=-1)
        code = (payload.get("error") or {}).get("code")
        if status == 0 or (status == 409 and code == "turn_in_progress") or status in (429, 503):
            cut = cut or status == 0 and tally.killed_at is not None
            if time.monotonic() > give_up:
                tally.failures.append(f"gave up:{status}")
                return
            with tally.lock:
                tally.retries["connection" if status == 0 else code or str(status)] += 1
            wait = backoff if status == 0 else (retry_after or 1.0)
            backoff = min(backoff * 2, BACKOFF_S[1]) if status == 0 else BACKOFF_S[0]
            time.sleep(wait)
            continue
        with tally.lock:
            tally.answered += 1
            tally.answers[body["turn_id"]] = payload.get("response", "")
            if cut:
                tally.interrupted[body["turn_id"]] = time.monotonic()
            if status != 200 or not payload.get("success"):
                tally.failures.append(f"{status}:{code}")
        return


def running_claims(db: Path) -> int:
    """Turns the server has claimed and not yet completed (read beside it: SQLite WAL lets a reader in)."""
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as conn:
            return int(conn.execute("SELECT count(*) FROM turn_claims WHERE status = 'in_progress'").fetchone()[0])
    except sqlite3.Error:
        return 0


def _killer(server: Server, db: Path, tally: Tally, at: int, done: threading.Event, timing: dict[str, float]) -> None:
    """Once `at` turns are answered, kill while a turn is running (claimed, not completed), else while a request
    is in flight."""
    while not done.is_set() and tally.answered < at:
        time.sleep(0.005)
    waited = time.monotonic()
    while not done.is_set() and not running_claims(db) and not (time.monotonic() - waited > 5 and tally.in_flight):
        time.sleep(0.002)
    if done.is_set():
        return
    timing["in_flight"] = tally.in_flight
    tally.killed_at = time.monotonic()
    server.kill()
    timing["stale"] = running_claims(db)
    timing["restart_s"] = server.start()


def _from_store(db: Path, agent_id: str, sent: dict[str, list[str]], answers: dict[str, str]) -> dict[str, int]:
    from focal.adapters.sqlite_store import SqliteDatabase, SqliteSessionStore, SqliteTurnStore

    database = SqliteDatabase(db)
    turns, sessions = SqliteTurnStore(database), SqliteSessionStore(database)
    out = Counter[str]()
    for session_id, turn_ids in sent.items():
        records = turns.list_for_session(TENANT, agent_id, session_id)
        recorded = Counter(r.turn_id for r in records)
        out["lost"] += sum(1 for t in turn_ids if recorded[t] == 0)
        out["duplicated"] += sum(n - 1 for n in recorded.values() if n > 1)
        out["mismatched"] += sum(1 for r in records if r.turn_id in answers and answers[r.turn_id] != r.result.response)
        stored = sessions.get(TENANT, agent_id, session_id)
        out["counts_off"] += int(stored is None or stored.turn_count != len(records))
    database.close()
    return dict(out)


def load_with_kill(agent_path: str, conversations: int, turns: int, threads: int | None = None,
                   kill_at: float = 0.4, turn_budget_s: float | None = None) -> str:
    from focal.bench.load_script import conversation_script
    from focal.config.loader import load_agent
    from focal.turn.idempotency import CLAIM_GRACE_S

    if not 0 < kill_at < 1:
        raise ValueError("kill_at: the share of turns answered before the kill, between 0 and 1")
    agent = load_agent(agent_path)
    budget = turn_budget_s or float(os.environ.get("FOCAL_TURN_BUDGET_S") or agent.models.turn_budget_s)
    total = conversations * turns
    script = conversation_script(turns)
    tally, done = Tally(), threading.Event()
    timing: dict[str, float] = {}
    sent: dict[str, list[str]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "load.db", Path(tmp) / "serve.log"
        server = Server(str(Path(agent_path).resolve()), db, _free_port(), threads, log, turn_budget_s)
        try:
            server.start()
            _send(f"{server.base}/v1/agents/{agent.id}/sessions/warm/turns", {"message": "hello", "turn_id": "warm"})

            def conversation(n: int) -> None:
                session = f"load-{n}-{uuid.uuid4().hex[:6]}"
                sent[session] = []
                for i, message in enumerate(script):
                    turn_id = f"{session}-t{i}"
                    sent[session].append(turn_id)
                    _turn(server.base, f"/v1/agents/{agent.id}/sessions/{session}/turns",
                          {"message": message, "turn_id": turn_id}, tally)

            killer = threading.Thread(target=_killer, args=(server, db, tally, max(1, int(total * kill_at)), done, timing))
            killer.start()
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=conversations) as pool:
                list(pool.map(conversation, range(conversations)))
            wall = time.monotonic() - started
            done.set()
            killer.join()
        finally:
            server.stop()
        store = _from_store(db, agent.id, sent, tally.answers)
    recovery = max(tally.interrupted.values()) - tally.killed_at if tally.interrupted and tally.killed_at else 0.0
    killed = (f"once, after {int(total * kill_at)} answers, {int(timing.get('in_flight', 0))} requests in flight, "
              f"{int(timing.get('stale', 0))} turns running (their claims left behind)") \
        if tally.killed_at else "never (the run ended first)"
    return "\n".join([
        f"focal bench load --kill-once: {conversations} concurrent conversations × {turns} turns = {total} turns against "
        f"focal serve (child process, SQLite) on loopback ({agent.id}, offline); claim lease "
        f"{budget:g} s turn budget + {CLAIM_GRACE_S:g} s",
        f"SIGKILL         {killed}",
        f"turns answered  {tally.answered:8d} of {total}  (wall {wall:.1f} s)",
        f"failed answers  {len(tally.failures):8d}  {sorted(set(tally.failures))[:5] if tally.failures else ''}",
        f"lost turns      {store.get('lost', 0):8d}",
        f"duplicated      {store.get('duplicated', 0):8d}  (turn ids recorded more than once)",
        f"counted twice   {store.get('counts_off', 0):8d}  (sessions whose turn count differs from their records)",
        f"mismatched      {store.get('mismatched', 0):8d}  (answers that differ from the recorded turn)",
        f"retries         {sum(tally.retries.values()):8d}  {dict(sorted(tally.retries.items()))}",
        f"in-progress     {tally.retries['turn_in_progress']:8d}  (409 turn_in_progress answers, each waited out per its Retry-After)",
        f"interrupted     {len(tally.interrupted):8d}  (turns cut by the kill, answered after retries)",
        f"restart         {timing.get('restart_s', 0.0):8.1f} s  (kill → the new server answering)",
        f"recovery        {recovery:8.1f} s  (kill → the last interrupted turn answered)",
    ])
