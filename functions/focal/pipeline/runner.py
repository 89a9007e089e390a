"""The local runner: the stage handlers in-process, in the order and with the jumps of `STAGES`.

Every stage receives and returns the JSON event its Lambda would, so a turn that works here takes
the same path through the deployed state machine. A stage that raises goes to the fallback stage,
as the state machine's Catch (States.ALL) does: whatever it raised, BaseException included, so the turn
is recorded with a structured answer and its idempotency claim completed. Ctrl-C or sys.exit() in the
process's main thread (`focal.errors.stops_process`) still ends the process, after the fallback.
"""

from __future__ import annotations

import json
from typing import Any

from focal.errors import stops_process
from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.stage_io import run_stage
from focal.stages import fallback
from focal.turn.definition import STAGE_NAMES, next_stage
from focal.turn.deps import Deps

MAX_STAGE_RUNS = 3 * len(STAGE_NAMES)  # the enforce → generate loop is bounded by max_retries; this is a backstop


def run_pipeline(event: dict[str, Any], deps: Deps, start: str = STAGE_NAMES[0],
                 visited: list[str] | None = None) -> TurnResult:
    """Walk the stage list from `start` (a new turn: the first stage; an approved action: RESUME_STAGE)."""
    visited = visited if visited is not None else []
    stage: str | None = start
    while stage is not None:
        visited.append(stage)
        try:
            if len(visited) > MAX_STAGE_RUNS:
                raise RuntimeError("the pipeline did not finish within its stage budget")
            # run_stage returns the JSON document a Lambda would (and has serialised it to check its size).
            event = run_stage(stage, event, deps)
        except BaseException as exc:  # noqa: BLE001 - the Catch of every state-machine task
            visited.append("fallback")
            caught = {"Error": type(exc).__name__, "Cause": json.dumps({"stage": stage})}
            event = fallback.handle({**event, "caught": caught}, deps)
            if stops_process(exc):
                raise
            break
        stage = next_stage(stage, (event.get("control") or {}).get("next"))
    return TurnResult.model_validate(event["result"])


class LocalRunner:
    def __init__(self, deps: Deps):
        self.deps = deps
        self.visited: list[str] = []  # stages of the last turn, in order (for traces and tests)

    def turn(self, request: TurnRequest) -> TurnResult:
        self.visited = []
        return run_pipeline({"request": request.model_dump(mode="json")}, self.deps, visited=self.visited)
