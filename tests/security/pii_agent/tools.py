"""Tools of the PII test agent: they echo what they were given, so tool outputs hold the values too."""

from __future__ import annotations

from typing import Any


def check_card(card_number: str) -> dict[str, Any]:
    return {"status": "accepted", "card": card_number}


def track_parcel(tracking_number: str) -> dict[str, Any]:
    return {"status": "out for delivery"}
