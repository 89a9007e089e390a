"""Tool of the contact test agent: it echoes the address it was given, so the answer shows what the tool got."""

from __future__ import annotations

from typing import Any


def change_email(email: str) -> dict[str, Any]:
    return {"status": "updated", "sent_to": email}
