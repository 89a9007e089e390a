"""Tools of the example card-support agent (standard library only).

Cards and transactions are fixed data below; replacements and disputes are kept in module-level state
(`reset_state` clears it), so a side effect can be observed by the read-only tools that follow it.
Writing tools accept `idempotency_key`: a repeated key returns the first result without acting again.
"""

from __future__ import annotations

import threading
from typing import Any

CARDS = {
    "1234": {"holder": "c-verified", "status": "active"},
    "5678": {"holder": "c-unverified", "status": "active"},
    "9012": {"holder": "c-other", "status": "blocked"},
}
TRANSACTIONS = {
    "TX-1001": {"merchant": "Coffee Corner", "amount": 4.5},
    "TX-1002": {"merchant": "Electro World", "amount": 899.0},
}

_lock = threading.Lock()
_state: dict[str, dict[str, Any]] = {"replacements": {}, "disputes": {}, "keys": {}}


def reset_state() -> dict[str, Any]:
    with _lock:
        for table in _state.values():
            table.clear()
    return {"reset": True}


def replacements() -> dict[str, Any]:
    """What was ordered so far (for tests): card → reference."""
    with _lock:
        return dict(_state["replacements"])


def _last4(card_last4: Any) -> str:
    text = str(card_last4).strip()
    if not (len(text) == 4 and text.isdigit()):
        raise ValueError("card_last4 must be the last four digits of the card")
    return text


def card_status(card_last4: str) -> dict[str, Any]:
    card = CARDS.get(_last4(card_last4))
    if card is None:
        return {"found": False, "status": "unknown", "replacement": None}
    with _lock:
        replacement = _state["replacements"].get(_last4(card_last4))
    return {"found": True, "status": card["status"], "replacement": replacement}


def _once(key: str | None, act: Any) -> dict[str, Any]:
    with _lock:
        if key and key in _state["keys"]:
            return dict(_state["keys"][key])
        result = act()
        if key:
            _state["keys"][key] = dict(result)
        return result


def order_replacement_card(card_last4: str, idempotency_key: str | None = None) -> dict[str, Any]:
    last4 = _last4(card_last4)

    def act() -> dict[str, Any]:
        reference = f"RC-{len(_state['replacements']) + 1:04d}"
        _state["replacements"][last4] = reference
        return {"reference": reference}

    return _once(idempotency_key, act)


def lookup_transaction(transaction_id: str) -> dict[str, Any]:
    tx = TRANSACTIONS.get(str(transaction_id).strip().upper())
    if tx is None:
        return {"found": False, "merchant": None, "amount": None}
    return {"found": True, "merchant": tx["merchant"], "amount": tx["amount"]}


def open_dispute(transaction_id: str, idempotency_key: str | None = None) -> dict[str, Any]:
    tx_id = str(transaction_id).strip().upper()

    def act() -> dict[str, Any]:
        reference = f"DS-{len(_state['disputes']) + 1:04d}"
        _state["disputes"][tx_id] = reference
        return {"reference": reference}

    return _once(idempotency_key, act)
