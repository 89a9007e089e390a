"""Turn state documents written before the state was grouped by stage: their flat keys, lifted.

A turn record stored before the grouping (`TurnRecord.state`), or a Step Functions execution in flight
across a deployment, carries `context`, `decision`, `drafts`, … at the top level. `lift_flat_keys` moves
each into its section (`SECTION_OF`), so `TurnState` reads both shapes. A document that gives a field both
flat and inside its section is refused: which of the two values holds cannot be known.
"""

from __future__ import annotations

from typing import Any

SECTIONS = ("sensor", "retrieve", "route", "tools", "generate", "enforce")

# flat key of the ungrouped state → (section, field in that section)
SECTION_OF: dict[str, tuple[str, str]] = {
    "prevalidation": ("sensor", "prevalidation"),
    "context": ("sensor", "context"),
    "commands": ("sensor", "commands"),
    "profile_migration": ("sensor", "profile_migration"),
    "idempotency": ("sensor", "idempotency"),
    "claim_owner": ("sensor", "claim_owner"),
    "foreign_session": ("sensor", "foreign_session"),
    "candidates": ("retrieve", "candidates"),
    "episodes": ("retrieve", "episodes"),
    "decision": ("route", "decision"),
    "matched_rules": ("route", "matched_rules"),
    "tool_calls": ("tools", "tool_calls"),
    "actions_claimed": ("tools", "actions_claimed"),
    "approval": ("tools", "approval"),
    "request_id": ("tools", "request_id"),
    "confidence_factors": ("tools", "confidence_factors"),
    "confidence_reasons": ("tools", "confidence_reasons"),
    "drafts": ("generate", "drafts"),
    "model_refused": ("generate", "model_refused"),
    "enforcement": ("enforce", "report"),
    "feedback": ("enforce", "feedback"),
}


def lift_flat_keys(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` with every flat key of the ungrouped state moved into its section (`doc` itself when it has none)."""
    flat = [key for key in doc if key in SECTION_OF]
    if not flat:
        return doc
    lifted = {key: value for key, value in doc.items() if key not in SECTION_OF}
    for key in flat:
        section, name = SECTION_OF[key]
        part = lifted.get(section)
        if part is None:
            part = {}
        if not isinstance(part, dict):
            raise ValueError(f"{key}: given flat and in the section {section!r} at once; which holds cannot be known")
        if name in part:
            raise ValueError(f"{key}: given flat and as {section}.{name} at once; which holds cannot be known")
        lifted[section] = {**part, name: doc[key]}
    return lifted
