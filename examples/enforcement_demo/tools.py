"""Tool of the enforcement bench agent (standard library only)."""

from __future__ import annotations

from typing import Any


def check_slots() -> dict[str, Any]:
    """The latest delivery date the warehouse can meet (fixed, for a reproducible example)."""
    return {"latest": "2026-03-20"}
