"""Why a turn's scripted sensor outputs were not used: a warning under the turn, never a silent drop.

The suite runs the path a deployed agent runs. A message the offline reading is sure of (the fast path, or a
decent reading inside the active flow: focal.stages.sensor) is not sent to a model, so a reading scripted for
it is not read; a message refused by pre-validation never reaches the sensor; a reading the sensor asked for
may be set aside, wholly or in part, by the merge rule (the offline intent stands unless the model's reading
is confident and consistent: focal.sensing.sensor_merge). Each case is reported as
"scripted sensor output not used: <why>", from the turn's own record.
"""

from __future__ import annotations

from typing import Any

from focal.models.turn import TurnResult

PREFIX = "scripted sensor output not used: "
_OFFLINE = {
    "time budget spent": "the turn's model time budget was spent before the sensor call",
    "no model configured": "no model was available to the sensor",
}


def _not_asked(context: dict[str, Any], result: TurnResult) -> str:
    refused = [c.get("name") for c in result.prevalidation if c.get("blocking")]
    if result.execution_path == "rejected" and refused:
        return f"pre-validation refused the message ({', '.join(map(str, refused))}) before the sensor read it"
    skipped = str(context.get("model_skipped") or "")
    if skipped in _OFFLINE:
        return _OFFLINE[skipped]
    if skipped:
        return (f"the offline reading was sure enough that the model is not asked ({skipped}); a deployed agent does "
                "not ask its model here either")
    if result.error:
        return f"the turn failed in stage {result.error.get('stage')!r} before the sensor asked the model"
    return f"the turn ended before the sensor asked the model (execution path {result.execution_path})"


def sensor_warnings(scripted: int, left: int, state: dict[str, Any], result: TurnResult) -> list[str]:
    """The warnings of a turn that scripted `scripted` sensor outputs, `left` of them unread; `state` is the turn's
    record (its sensor context's `model_skipped` and `set_aside`)."""
    if not scripted:
        return []
    context = (state.get("sensor") or {}).get("context") or {}
    if left == scripted:
        return [PREFIX + _not_asked(context, result)]
    out = [PREFIX + str(note) for note in context.get("set_aside") or []]
    if left:
        out.append(PREFIX + "the model's first reading was valid; a second scripted reading is read only to repair an "
                            f"invalid first answer ({left} left)")
    return out
