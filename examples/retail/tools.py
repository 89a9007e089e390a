"""Tools of the example retail agent (plain Python, standard library only).

Each function takes keyword arguments named like the tool's `input` keys in agent.yaml and
returns a dict whose keys the tool's `output` maps to session variables.

Orders are read from orders.json next to this file, which is never written: refunds and
address changes are kept in module-level state, so a demo can be repeated by restarting the
process (or calling `reset_state`).

The two side-effecting tools take the `idempotency_key` Focal passes with each such call: a key seen
before returns the first call's result and does nothing again (as a real refund or address service
would), so a retried turn never refunds twice.

Every tool also takes `customer_id`, the authenticated customer Focal passes (from a customer token or a
trusted backend, never from the conversation), and acts only on that customer's own orders: an order
of someone else is treated exactly like an unknown one (no hint that it exists). Without a customer id
(or "anonymous") no order is found.
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
# Side effects of this process: order id -> refund record / new address; (tool, idempotency key) -> result.
_state: dict[str, dict[Any, Any]] = {"refunds": {}, "addresses": {}, "results": {}}


def _replayed(tool: str, idempotency_key: str | None) -> dict[str, Any] | None:
    """The first result of this tool for this key, if any (call with `_lock` held)."""
    if not idempotency_key:
        return None
    first = _state["results"].get((tool, idempotency_key))
    return dict(first) if first is not None else None


def _remember(tool: str, idempotency_key: str | None, result: dict[str, Any]) -> dict[str, Any]:
    if idempotency_key:
        _state["results"][(tool, idempotency_key)] = dict(result)
    return dict(result)


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


def _find(order_id: str, customer_id: str | None) -> dict[str, Any] | None:
    """The order when it belongs to `customer_id`; None when unknown or someone else's."""
    order = _orders().get(order_id)
    if order is None or not customer_id or order.get("customer_id") != customer_id:
        return None
    return order


def lookup_order(order_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """Status, total and item of the customer's order; an unknown id (or another customer's order)
    gives found False and status 'unknown'."""
    oid = _order_id(order_id)
    order = _find(oid, customer_id)
    if order is None:
        return {"found": False, "status": "unknown", "total": None, "item": None}
    return {"found": True, "status": order["status"], "total": float(order["total"]), "item": order["item"]}


def _eligibility(oid: str, customer_id: str | None) -> tuple[bool, str]:
    order = _find(oid, customer_id)
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


def check_refund_eligibility(order_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """Eligible when the customer's order was delivered or shipped and has not been refunded already."""
    oid = _order_id(order_id)
    with _lock:
        eligible, reason = _eligibility(oid, customer_id)
    return {"eligible": eligible, "reason": reason}


def issue_refund(order_id: str, order_total: float | None = None, idempotency_key: str | None = None,
                 customer_id: str | None = None) -> dict[str, Any]:
    """Refund the order total; raises ValueError when the order is not eligible (e.g. already refunded),
    or when `order_total` (the amount the agent's guard checked) is not the order's real total.
    A repeated `idempotency_key` returns the first refund's record without refunding again."""
    oid = _order_id(order_id)
    with _lock:
        replay = _replayed("issue_refund", idempotency_key)
        if replay is not None:
            return replay
        eligible, reason = _eligibility(oid, customer_id)
        if not eligible:
            raise ValueError(f"order {oid} can't be refunded: {reason}")
        order = _find(oid, customer_id)
        assert order is not None  # eligibility implies the order exists
        if order_total is not None and abs(float(order_total) - float(order["total"])) > 0.005:
            raise ValueError(f"order {oid} totals {order['total']}, not the {order_total} that was approved")
        record = {"refund_reference": f"RF-{oid}", "amount": float(order["total"])}
        _state["refunds"][oid] = record
        return _remember("issue_refund", idempotency_key, record)


def update_address(order_id: str, new_address: str, idempotency_key: str | None = None,
                   customer_id: str | None = None) -> dict[str, Any]:
    """Change the delivery address, only while the order is still processing. A repeated
    `idempotency_key` returns the first call's outcome without changing anything again."""
    oid = _order_id(order_id)
    if not isinstance(new_address, str) or not new_address.strip():
        raise ValueError("new_address must be a non-empty string")
    address = " ".join(new_address.split())
    if len(address) > MAX_ADDRESS_LENGTH:
        raise ValueError(f"new_address is longer than {MAX_ADDRESS_LENGTH} characters")
    with _lock:
        replay = _replayed("update_address", idempotency_key)
        if replay is not None:
            return replay
        order = _find(oid, customer_id)
        if order is None:
            outcome = {"updated": False, "reason": "we couldn't find an order with that number"}
        elif order["status"] != "processing":
            outcome = {
                "updated": False,
                "reason": f"the order is already {order['status']}, so its delivery address can no longer be changed",
            }
        else:
            _state["addresses"][oid] = address
            outcome = {"updated": True, "reason": f"done, it will now be delivered to {address}"}
        return _remember("update_address", idempotency_key, outcome)


def reset_state() -> dict[str, Any]:
    """Forget refunds and address changes made by this process (for tests and demos)."""
    with _lock:
        _state["refunds"].clear()
        _state["addresses"].clear()
        _state["results"].clear()
    return {"reset": True}
