"""The turn pipeline, defined once.

The local runner walks this list; the CDK state machine is synthesised from it (one task per
stage, a Choice after every stage that may jump). A stage jumps by setting `control.next` in the
turn state to one of its declared `jumps`; anything else falls through to the next stage.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StageSpec:
    name: str
    handler: str  # "module.function" of the thin Lambda entry point
    jumps: tuple[str, ...] = field(default=())
    doc: str = ""


CONTROL_FIELD = "control.next"  # where a stage names its jump target in the turn state
FALLBACK_HANDLER = "handlers.fallback.handler"  # every stage's error path (Catch in AWS)

STAGES: tuple[StageSpec, ...] = (
    StageSpec("sensor", "handlers.sensor.handler", jumps=("persist",),
              doc="pre-validation and understanding; invalid or ambiguous → answer and persist"),
    StageSpec("retrieve", "handlers.retrieve.handler", doc="scoped rule candidates"),
    StageSpec("route", "handlers.route.handler", doc="rule filter, commands, scenario navigation"),
    StageSpec("tools", "handlers.tools.handler", jumps=("persist",),
              doc="guarded tools and step actions; a session claimed by a concurrent turn → answer and persist"),
    StageSpec("generate", "handlers.generate.handler", doc="draft the answer"),
    StageSpec("enforce", "handlers.enforce.handler", jumps=("generate",),
              doc="check the draft; on violation regenerate (loop) or fall back"),
    StageSpec("persist", "handlers.persist.handler", doc="session, profile, turn record"),
)

STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
RESUME_STAGE = "tools"  # where an approved action re-enters the pipeline (tools → generate → enforce → persist)


def stage(name: str) -> StageSpec:
    for spec in STAGES:
        if spec.name == name:
            return spec
    raise KeyError(name)


def next_stage(current: str, requested: str | None) -> str | None:
    """The stage after `current`, honouring a requested jump only if the definition allows it."""
    spec = stage(current)
    if requested and requested in spec.jumps:
        return requested
    index = STAGE_NAMES.index(current)
    return STAGE_NAMES[index + 1] if index + 1 < len(STAGE_NAMES) else None


def _check() -> None:
    for spec in STAGES:
        for target in spec.jumps:
            if target not in STAGE_NAMES:
                raise ValueError(f"stage {spec.name!r} jumps to unknown stage {target!r}")


_check()
