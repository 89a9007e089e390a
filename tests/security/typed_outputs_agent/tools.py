"""The order lookup of the typed-outputs test agent: it answers what the test wrote to answer.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def lookup_order(order_id: str) -> dict[str, Any]:
    return json.loads((Path(__file__).parent / "answer.json").read_text(encoding="utf-8"))
