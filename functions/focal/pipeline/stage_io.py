"""One stage call as the Lambdas see it: JSON event in, JSON event out.

Both runtimes go through `run_stage`: the Lambda handlers (one per stage) and the local runner.
"""

from __future__ import annotations

import importlib
import json
import time
from typing import Any

from focal.errors import PayloadTooLarge
from focal.models.turn import TurnState
from focal.pipeline.turn_texts import for_turn
from focal.text.shown_values import showing_in
from focal.turn.deps import Deps

# Step Functions rejects state payloads over 256 KiB; keep a margin for the service's own wrapping.
MAX_PAYLOAD_BYTES = 256 * 1024 - 4 * 1024


def stage_module(name: str) -> Any:
    return importlib.import_module(f"focal.stages.{name}")


def check_payload(event: dict[str, Any], where: str) -> None:
    check_size(len(json.dumps(event, separators=(",", ":")).encode("utf-8")), where)


def check_size(size: int, where: str) -> None:
    if size > MAX_PAYLOAD_BYTES:
        raise PayloadTooLarge(f"turn state after {where} is {size} bytes, over the {MAX_PAYLOAD_BYTES}-byte limit")


def run_stage(name: str, event: dict[str, Any], deps: Deps) -> dict[str, Any]:
    state = TurnState.model_validate(event)
    state.control.next = None  # a jump request is read once, by the transition that follows it
    started = time.perf_counter()
    with showing_in(state.session.language if state.session is not None else None):  # its numbers and dates too
        state = stage_module(name).run(state, for_turn(deps, state))  # the agent in the conversation's language
    state.add_timing(name, (time.perf_counter() - started) * 1000)
    state.last_stage = name
    if state.result is not None:  # persist builds the result before its own time is known
        state.result.timings_ms = dict(state.timings_ms)
    raw = state.model_dump_json()  # one serialisation: its size is checked and its JSON is the event
    check_size(len(raw.encode("utf-8")), name)
    return json.loads(raw)
