"""Tools of the example retail agent (plain Python, standard library only).

Each function takes keyword arguments named like the tool's `input` keys in agent.yaml and
returns a dict whose keys the tool's `output` maps to session variables.

Orders are read from orders.json next to this file, which is never written: refunds and
address changes are kept in module-level state, so a demo can be repeated by restarting the
process (or calling `reset_state`).
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

ORDERS_FILE = Path(__file__).with_name("orders.json")
ORDER_ID = re.compile(r"^[A-Z]\d{4}$")
REFUNDABLE_STATUSES = ("delivered", "shipped")
MAX_ADDRESS_LENGTH = 300

_lock = threading.Lock()
# Side effects of this process: order id -> refund record / new address.
_state: dict[str, dict[str, Any]] = {"refunds": {}, "addresses": {}}


def _orders() -> dict[str, dict[str, Any]]:
    with ORDERS_FILE.open(encoding="utf-8") as fh:
        return json.load(fh)


def _order_id(order_id: Any) -> str:
    if not isinstance(order_id, str):
        raise ValueError("order_id must be a string like A1001")
    normalised = order_id.strip().upper()
    if not ORDER_ID.match(normalised):
        raise ValueError(f"invalid order id {order_id!r}: expected a letter and four digits, like A1001")
    return normalised


def _find(order_id: str) -> dict[str, Any] | None:
    return _orders().get(order_id)


def lookup_order(order_id: str) -> dict[str, Any]:
    """Status, total and item of an order; an unknown id gives found False and status 'unknown'."""
    oid = _order_id(order_id)
    order = _find(oid)
    if order is None:
        return {"found": False, "status": "unknown", "total": None, "item": None}
    return {"found": True, "status": order["status"], "total": float(order["total"]), "item": order["item"]}


def _eligibility(oid: str) -> tuple[bool, str]:
    order = _find(oid)
    if order is None:
        return False, "we couldn't find an order with that number"
    if oid in _state["refunds"]:
        return False, f"it was already refunded (reference {_state['refunds'][oid]['refund_reference']})"
    status = order["status"]
    if status == "processing":
        return False, "it hasn't shipped yet, so it can simply be cancelled instead"
    if status == "cancelled":
        return False, "the order was cancelled, so there is nothing to refund"
    if status not in REFUNDABLE_STATUSES:
        return False, f"orders that are {status} can't be refunded"
    return True, f"the order is {status} and has not been refunded yet"


def check_refund_eligibility(order_id: str) -> dict[str, Any]:
    """Eligible when the order was delivered or shipped and has not been refunded already."""
    oid = _order_id(order_id)
    with _lock:
        eligible, reason = _eligibility(oid)
    return {"eligible": eligible, "reason": reason}


def issue_refund(order_id: str) -> dict[str, Any]:
    """Refund the order total; raises ValueError when the order is not eligible (e.g. already refunded)."""
    oid = _order_id(order_id)
    with _lock:
        eligible, reason = _eligibility(oid)
        if not eligible:
            raise ValueError(f"order {oid} can't be refunded: {reason}")
        order = _find(oid)
        assert order is not None  # eligibility implies the order exists
        record = {"refund_reference": f"RF-{oid}", "amount": float(order["total"])}
        _state["refunds"][oid] = record
    return dict(record)


def update_address(order_id: str, new_address: str) -> dict[str, Any]:
    """Change the delivery address, only while the order is still processing."""
    oid = _order_id(order_id)
    if not isinstance(new_address, str) or not new_address.strip():
        raise ValueError("new_address must be a non-empty string")
    address = " ".join(new_address.split())
    if len(address) > MAX_ADDRESS_LENGTH:
        raise ValueError(f"new_address is longer than {MAX_ADDRESS_LENGTH} characters")
    order = _find(oid)
    if order is None:
        return {"updated": False, "reason": "we couldn't find an order with that number"}
    if order["status"] != "processing":
        return {
            "updated": False,
            "reason": f"the order is already {order['status']}, so its delivery address can no longer be changed",
        }
    with _lock:
        _state["addresses"][oid] = address
    return {"updated": True, "reason": f"done, it will now be delivered to {address}"}


def reset_state() -> dict[str, Any]:
    """Forget refunds and address changes made by this process (for tests and demos)."""
    with _lock:
        _state["refunds"].clear()
        _state["addresses"].clear()
    return {"reset": True}
