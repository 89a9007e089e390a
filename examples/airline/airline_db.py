"""The airline's data for the example tools: loaded once from data/*.json, changed only in memory.

The JSON files are never written. Every change (a booking, a cancellation, a new cabin, bags,
passengers, a certificate) goes to a working copy held by this module; `reset()` goes back to the
files. Both tool modules (tools.py and write_tools.py) load this one module, so they see the same
working copy.

Whose data a tool may touch is decided here too, once for both tool modules: `customer_user`,
`own_user` and `own_reservation` answer only for the authenticated customer Focal passes the tools
(`customer_id`, from a customer token or a trusted backend, never from the conversation). A user id the
customer types that is not their own, and a reservation of someone else, are answered exactly like
unknown ones; without a customer (or "anonymous") nothing is found.

The facts computed here (how long ago a reservation was booked, whether a segment has flown, the
free bag allowance, what an itinerary costs) are what the agent's action guards read; the policy
itself lives in agent.yaml, not here.
"""

from __future__ import annotations

import copy
import json
import threading
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")
NOW = datetime(2024, 5, 15, 15, 0, 0)  # the benchmark's fixed "current time" (EST)
CABINS = ("basic_economy", "economy", "business")
FLOWN = ("landed", "flying")
ANONYMOUS = "anonymous"  # the customer id of a caller nobody authenticated
LATE_AFTER = timedelta(minutes=15)  # arrived more than 15 minutes late: delayed
# Free checked bags per passenger, by the booking user's membership and the cabin (the airline's fare rules).
FREE_BAGS = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 3},
}

lock = threading.RLock()
_files: dict[str, Any] = {}
db: dict[str, Any] = {}
results: dict[tuple[str, str], dict[str, Any]] = {}  # (tool, idempotency key) -> first result
counters = {"reservation": 0, "certificate": 0, "transfer": 0}


def _load_files() -> None:
    if not _files:
        for name in ("users", "reservations", "flights"):
            with (DATA / f"{name}.json").open(encoding="utf-8") as fh:
                _files[name] = json.load(fh)


def reset() -> None:
    with lock:
        _load_files()
        db.clear()
        db.update(copy.deepcopy(_files))
        results.clear()
        for key in counters:
            counters[key] = 0


def user(user_id: Any) -> dict[str, Any] | None:
    return db["users"].get(str(user_id or "").strip().lower())


def reservation(reservation_id: Any) -> dict[str, Any] | None:
    return db["reservations"].get(str(reservation_id or "").strip().upper())


def customer_user(customer_id: Any) -> dict[str, Any] | None:
    """The authenticated customer's own user record; None without a customer, for "anonymous", or for a
    customer id the airline does not know (matched exactly: a session id is never rewritten)."""
    cid = customer_id.strip() if isinstance(customer_id, str) else ""
    if not cid or cid == ANONYMOUS:
        return None
    return db["users"].get(cid)


def own_user(user_id: Any, customer_id: Any) -> dict[str, Any] | None:
    """The user record when the typed `user_id` names the authenticated customer; None when it names
    someone else, no one, or when there is no authenticated customer (all answered alike)."""
    found = customer_user(customer_id)
    if found is None or str(user_id or "").strip().lower() != customer_id.strip():
        return None
    return found


def own_reservation(reservation_id: Any, customer_id: Any) -> dict[str, Any] | None:
    """The reservation when it belongs to the authenticated customer; None when it is unknown or someone else's."""
    res = reservation(reservation_id)
    if res is None or customer_user(customer_id) is None or res["user_id"] != customer_id.strip():
        return None
    return res


def flight_day(flight_number: str, date: str) -> dict[str, Any] | None:
    flight = db["flights"].get(str(flight_number).strip().upper())
    return None if flight is None else flight["dates"].get(str(date).strip())


def _at(date: str, clock: str) -> datetime:
    """'2024-05-15' + '03:00:00+1' → the datetime (a '+1' arrives the next day)."""
    days = 1 if clock.endswith("+1") else 0
    return datetime.fromisoformat(f"{date}T{clock.split('+')[0]}") + timedelta(days=days)


def segment_status(segment: dict[str, Any]) -> str:
    day = flight_day(segment["flight_number"], segment["date"])
    return day["status"] if day else "unknown"


def segment_delayed(segment: dict[str, Any]) -> bool:
    day = flight_day(segment["flight_number"], segment["date"])
    if not day:
        return False
    if day["status"] == "delayed":
        return True
    if day["status"] == "landed" and day.get("actual_arrival_time_est"):
        scheduled = _at(segment["date"], db["flights"][segment["flight_number"]]["scheduled_arrival_time_est"])
        return datetime.fromisoformat(day["actual_arrival_time_est"]) - scheduled > LATE_AFTER
    return False


def names(people: list[dict[str, Any]]) -> list[str]:
    return [f"{p['first_name']} {p['last_name']}" for p in people]


def payment_label(method: dict[str, Any]) -> str:
    if method["source"] == "credit_card":
        return f"{method['id']} ({method.get('brand', 'card')} ending {method.get('last_four')})"
    return f"{method['id']} (balance ${method.get('amount', 0):g})"


def free_bags(membership: str, cabin: str, passengers: int) -> int:
    return FREE_BAGS.get(membership, FREE_BAGS["regular"]).get(cabin, 0) * passengers


def itinerary(flight_numbers: list[Any], flight_dates: list[Any]) -> dict[str, Any]:
    """Where a list of segments starts, ends and stops, and whether each leaves where the last arrived."""
    stops: list[str] = []
    connected = bool(flight_numbers) and len(flight_numbers) == len(flight_dates)
    for number in flight_numbers:
        flight = db["flights"].get(str(number).strip().upper())
        if flight is None:
            return {"origin": "", "end": "", "stops": [], "connected": False}
        if stops and stops[-1] != flight["origin"]:
            connected = False
        if not stops:
            stops.append(flight["origin"])
        stops.append(flight["destination"])
    return {"origin": stops[0] if stops else "", "end": stops[-1] if stops else "", "stops": stops,
            "connected": connected}


def price(flight_number: Any, date: Any, cabin: str, seats: int) -> float | None:
    """Today's price of one seat, or None when the flight cannot be booked for `seats` passengers."""
    day = flight_day(str(flight_number), str(date))
    if not day or day.get("status") != "available":
        return None
    if day.get("available_seats", {}).get(cabin, 0) < seats:
        return None
    return float(day["prices"][cabin])


def segments_text(flight_numbers: list[Any], flight_dates: list[Any]) -> str:
    parts = []
    for number, date in zip(flight_numbers, flight_dates, strict=False):
        flight = db["flights"].get(str(number).strip().upper())
        route = f"{flight['origin']}-{flight['destination']}" if flight else "unknown flight"
        parts.append(f"{str(number).upper()} {route} on {date}")
    return ", ".join(parts) or "no flights"


def payment_facts(owner: dict[str, Any] | None, payment_ids: list[Any], amounts: list[Any]) -> dict[str, Any]:
    """Counts by kind, whether every method is the user's own, and whether balances cover the amounts."""
    methods = owner["payment_methods"] if owner else {}
    ids = [str(p).strip() for p in payment_ids]
    values = [float(a) for a in amounts] if len(amounts) == len(ids) else []
    covered = bool(values) and all(
        methods.get(pid, {}).get("source") == "credit_card" or methods.get(pid, {}).get("amount", 0) >= value
        for pid, value in zip(ids, values, strict=True)
    )
    return {
        "payment_owner_ok": bool(ids) and all(pid in methods for pid in ids),
        "certificate_count": sum(pid.startswith("certificate_") for pid in ids),
        "credit_card_count": sum(pid.startswith("credit_card_") for pid in ids),
        "gift_card_count": sum(pid.startswith("gift_card_") for pid in ids),
        "payment_sum": round(sum(values), 2),
        "payment_balance_ok": covered and all(v > 0 for v in values),
    }


def charge(owner: dict[str, Any], payment_id: str, amount: float) -> None:
    """Take `amount` from a stored method (a certificate is used up whole), or refund a negative one."""
    method = owner["payment_methods"].get(payment_id)
    if method is None:
        raise ValueError(f"{payment_id} is not a payment method of {owner['name']['first_name']}")
    if method["source"] == "gift_card":
        if amount > method["amount"] + 1e-9:
            raise ValueError(f"gift card {payment_id} holds ${method['amount']:g}, less than ${amount:g}")
        method["amount"] = round(method["amount"] - amount, 2)
    elif method["source"] == "certificate":
        if amount > method["amount"] + 1e-9:
            raise ValueError(f"certificate {payment_id} is worth ${method['amount']:g}, less than ${amount:g}")
        del owner["payment_methods"][payment_id]


def take_seats(flight_number: str, date: str, cabin: str, seats: int) -> None:
    day = flight_day(flight_number, date)
    if day and "available_seats" in day:
        day["available_seats"][cabin] = day["available_seats"].get(cabin, 0) - seats


def replay(tool: str, key: str | None) -> dict[str, Any] | None:
    first = results.get((tool, key)) if key else None
    return dict(first) if first is not None else None


def remember(tool: str, key: str | None, result: dict[str, Any]) -> dict[str, Any]:
    if key:
        results[(tool, key)] = dict(result)
    return dict(result)


reset()
