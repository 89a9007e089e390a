"""`focal bench load`: N concurrent conversations against `focal serve` on loopback.

Each conversation is one session whose turns go one after another (a customer waits for the
answer), the conversations run at the same time. Afterwards every session's turn records are read
back: a turn the client sent but the store does not hold is *lost*, a turn id held twice is
*duplicated*; both must be 0, and so must connection errors (a reset or refused connection, a
timeout). Prints throughput, p50/p95 latency and those counts.

Bounded and loopback only: the server listens on 127.0.0.1 on an ephemeral port, at most
`MAX_CONVERSATIONS` × `MAX_TURNS`; the per-key rate limit is off (one key carries every conversation).
"""

from __future__ import annotations

import json
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from focal.bench.load_script import MAX_CONVERSATIONS, MAX_TURNS, conversation_script
from focal.config.loader import load_agent


def _post(url: str, key: str, body: dict[str, Any]) -> tuple[int, dict[str, Any], float]:
    """(status, JSON answer, ms); status 0 when the connection failed (reset, refused, timed out)."""
    data = json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="POST",
                                     headers={"content-type": "application/json", "x-api-key": key})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            status, payload = response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        status, payload = exc.code, json.loads(exc.read() or b"{}")
    except (OSError, ValueError) as exc:  # URLError, ConnectionResetError, TimeoutError, a truncated answer
        status, payload = 0, {"error": {"code": type(getattr(exc, "reason", exc)).__name__}}
    return status, payload, (time.perf_counter() - started) * 1000


def load(agent_path: str, conversations: int = 20, turns: int = 4, workers: int | None = None,
         threads: int | None = None) -> str:
    from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, serving

    if not (1 <= conversations <= MAX_CONVERSATIONS and 1 <= turns <= MAX_TURNS):
        raise ValueError(f"focal bench load runs 1..{MAX_CONVERSATIONS} conversations of 1..{MAX_TURNS} turns")
    settings = ServeSettings(rate_per_key=0, **({"threads": threads} if threads else {}))

    agent_id = load_agent(agent_path).id
    script = conversation_script(turns)
    keys = LocalApiKeyStore()
    key = keys.issue("bench")
    with tempfile.TemporaryDirectory() as tmp:
        api = build_api([agent_path], str(Path(tmp) / "load.db"), None, keys)
        with serving(api, settings=settings) as base:
            # warm-up: model load and index build are start-up, not load
            _post(f"{base}/v1/agents/{agent_id}/sessions/warm/turns", key, {"message": "hello", "turn_id": "warm"})
            sent: dict[str, list[str]] = {}
            latencies: list[float] = []
            failures: list[str] = []
            resets: list[str] = []

            def conversation(n: int) -> None:
                session = f"load-{n}-{uuid.uuid4().hex[:6]}"
                sent[session] = []
                for i, message in enumerate(script):
                    turn_id = f"{session}-t{i}"
                    status, payload, ms = _post(f"{base}/v1/agents/{agent_id}/sessions/{session}/turns", key,
                                                {"message": message, "turn_id": turn_id, "customer_id": f"c-{n}"})
                    sent[session].append(turn_id)
                    latencies.append(ms)
                    if status == 0:
                        resets.append((payload.get("error") or {}).get("code", "?"))
                    elif status != 200 or not payload.get("success"):
                        failures.append(f"{status}:{(payload.get('error') or {}).get('code')}")

            started = time.perf_counter()
            with ThreadPoolExecutor(max_workers=workers or conversations) as pool:
                list(pool.map(conversation, range(conversations)))
            wall = time.perf_counter() - started

            lost = duplicated = 0
            for session, turn_ids in sent.items():
                stored = [r.turn_id for r in api.deps.turns.list_for_session("bench", agent_id, session)]
                lost += len(set(turn_ids) - set(stored))
                duplicated += len(stored) - len(set(stored))
    total = len(latencies)
    return "\n".join([
        f"focal bench load: {conversations} concurrent conversations × {turns} turns = {total} turns against "
        f"focal serve on loopback ({agent_id}, offline, SQLite; uvicorn, {settings.threads} turn threads)",
        f"throughput      {total / wall:8.1f} turns/s  (wall {wall:.1f} s)",
        f"latency p50     {np.percentile(latencies, 50):8.1f} ms",
        f"latency p95     {np.percentile(latencies, 95):8.1f} ms",
        f"connection errs {len(resets):8d}  {sorted(set(resets))[:5] if resets else ''}",
        f"failed answers  {len(failures):8d}  {sorted(set(failures))[:5] if failures else ''}",
        f"lost turns      {lost:8d}",
        f"duplicated      {duplicated:8d}",
    ])


def add_parser(bsub) -> None:
    s = bsub.add_parser("load", help="N concurrent conversations against focal serve on loopback")
    s.add_argument("agent", nargs="?", default="examples/retail/agent.yaml")
    s.add_argument("--conversations", type=int, default=20)
    s.add_argument("--turns", type=int, default=4)
    s.add_argument("--threads", type=int, default=None, help="the server's turn threads (default: focal serve's)")
    s.add_argument("--kill-once", action="store_true",
                   help="run focal serve as a child process, SIGKILL it once mid-run and start it again; clients retry "
                        "every failed turn with the same turn id (focal.bench.load_kill)")
    s.add_argument("--kill-at", type=float, default=0.4, help="--kill-once: the share of turns answered before the kill")
    s.add_argument("--turn-budget-s", type=float, default=None,
                   help="--kill-once: FOCAL_TURN_BUDGET_S for the server (a claim's lease is the budget + a grace)")
    s.set_defaults(func=_run)


def _run(args) -> int:
    if not (1 <= args.conversations <= MAX_CONVERSATIONS and 1 <= args.turns <= MAX_TURNS):
        raise ValueError(f"focal bench load runs 1..{MAX_CONVERSATIONS} conversations of 1..{MAX_TURNS} turns")
    if args.kill_once:
        from focal.bench.load_kill import load_with_kill

        print(load_with_kill(args.agent, args.conversations, args.turns, threads=args.threads, kill_at=args.kill_at,
                             turn_budget_s=args.turn_budget_s))
    else:
        print(load(args.agent, args.conversations, args.turns, threads=args.threads))
    return 0
