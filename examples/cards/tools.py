"""Tools of the example card-support agent (standard library only).

Cards and transactions are fixed data below; replacements and disputes are kept in module-level state
(`reset_state` clears it), so a side effect can be observed by the read-only tools that follow it.
Writing tools accept `idempotency_key`: a repeated key returns the first result without acting again.

Every tool also takes `customer_id`, the authenticated customer Focal passes (from a customer token or a
trusted backend, never from the conversation), and reads or acts only on that customer's own cards and
on transactions made with them: another customer's card or transaction is answered exactly like an
unknown one (no hint that it exists), and the writing tools refuse it with the same words. Without a
customer id (or "anonymous") no card and no transaction is found.
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
    "TX-1001": {"card": "1234", "merchant": "Coffee Corner", "amount": 4.5},
    "TX-1002": {"card": "5678", "merchant": "Electro World", "amount": 899.0},
    "TX-1003": {"card": "1234", "merchant": "Skyline Hotels", "amount": 312.0},
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


def disputes() -> dict[str, Any]:
    """What was disputed so far (for tests): transaction → reference."""
    with _lock:
        return dict(_state["disputes"])


def _last4(card_last4: Any) -> str:
    text = str(card_last4).strip()
    if not (len(text) == 4 and text.isdigit()):
        raise ValueError("card_last4 must be the last four digits of the card")
    return text


def _tx_id(transaction_id: Any) -> str:
    return str(transaction_id).strip().upper()


def _own_card(last4: str, customer_id: str | None) -> dict[str, Any] | None:
    """The card when `customer_id` holds it; None when unknown or someone else's."""
    card = CARDS.get(last4)
    if card is None or not customer_id or card["holder"] != customer_id:
        return None
    return card


def _own_transaction(tx_id: str, customer_id: str | None) -> dict[str, Any] | None:
    """The transaction when it was made with a card `customer_id` holds; None when unknown or someone else's."""
    tx = TRANSACTIONS.get(tx_id)
    if tx is None or _own_card(tx["card"], customer_id) is None:
        return None
    return tx


def card_status(card_last4: str, customer_id: str | None = None) -> dict[str, Any]:
    """The status of the customer's card; an unknown card (or another customer's) gives found False."""
    last4 = _last4(card_last4)
    card = _own_card(last4, customer_id)
    if card is None:
        return {"card_last4": last4, "found": False, "status": "unknown", "replacement": None}
    with _lock:
        replacement = _state["replacements"].get(last4)
    return {"card_last4": last4, "found": True, "status": card["status"], "replacement": replacement}


def _once(key: str | None, act: Any) -> dict[str, Any]:
    with _lock:
        if key and key in _state["keys"]:
            return dict(_state["keys"][key])
        result = act()
        if key:
            _state["keys"][key] = dict(result)
        return result


def order_replacement_card(card_last4: str, idempotency_key: str | None = None,
                           customer_id: str | None = None) -> dict[str, Any]:
    """Block the customer's card and order a replacement; raises ValueError for a card that is not theirs."""
    last4 = _last4(card_last4)
    if _own_card(last4, customer_id) is None:
        raise ValueError(f"no card ending {last4} on this customer's account")

    def act() -> dict[str, Any]:
        reference = f"RC-{len(_state['replacements']) + 1:04d}"
        _state["replacements"][last4] = reference
        return {"reference": reference}

    return _once(idempotency_key, act)


def lookup_transaction(transaction_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """Merchant and amount of the customer's transaction; an unknown one (or another customer's) gives found False."""
    tx_id = _tx_id(transaction_id)
    tx = _own_transaction(tx_id, customer_id)
    if tx is None:
        return {"transaction_id": tx_id, "found": False, "merchant": None, "amount": None}
    return {"transaction_id": tx_id, "found": True, "merchant": tx["merchant"], "amount": tx["amount"]}


def open_dispute(transaction_id: str, idempotency_key: str | None = None,
                 customer_id: str | None = None) -> dict[str, Any]:
    """Open a dispute for the customer's transaction; raises ValueError for a transaction that is not theirs."""
    tx_id = _tx_id(transaction_id)
    if _own_transaction(tx_id, customer_id) is None:
        raise ValueError(f"no transaction {tx_id} on this customer's account")

    def act() -> dict[str, Any]:
        reference = f"DS-{len(_state['disputes']) + 1:04d}"
        _state["disputes"][tx_id] = reference
        return {"reference": reference}

    return _once(idempotency_key, act)
