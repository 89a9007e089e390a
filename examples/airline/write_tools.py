"""Writing tools of the example airline agent: they change the in-memory copy of the data (airline_db.py).

Like the airline's own booking system, these tools check integrity (the reservation exists, the flights
can be booked, a gift card holds enough) but not policy: whether a reservation may be cancelled, how many
certificates a booking may use, who may be compensated is decided by the agent's action guards before
any of these runs.

Each takes the optional `idempotency_key` Focal passes with a side-effecting call: a key seen before
(for the same customer) returns the first call's result and changes nothing again.

Each tool that touches a user's account or a reservation also takes `customer_id`, the authenticated
customer Focal passes (never the conversation's words), and acts only for that customer: a booking or a
certificate only for their own user id, a change only to their own reservation. Another customer's user
id or reservation is refused in exactly the words of an unknown one (before anything else about it is
checked, so not even its status shows); without a customer (or "anonymous") nothing is changed.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def _sibling(name: str) -> Any:
    key = f"focal_example_airline_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


air = _sibling("airline_db")


def _reservation(reservation_id: Any, customer_id: Any) -> dict[str, Any]:
    """The customer's own active reservation; another customer's is refused like an unknown one."""
    res = air.own_reservation(reservation_id, customer_id)
    if res is None:
        raise ValueError(f"there is no reservation {reservation_id!r}")
    if res.get("status") == "cancelled":
        raise ValueError(f"reservation {res['reservation_id']} is already cancelled")
    return res


def _owner(res: dict[str, Any], customer_id: Any) -> dict[str, Any]:
    owner = air.customer_user(customer_id)
    if owner is None or res["user_id"] != customer_id.strip():
        raise ValueError(f"the owner of {res['reservation_id']} is unknown")
    return owner


def _user(user_id: Any, customer_id: Any) -> dict[str, Any]:
    """The customer's own user record; a typed id that is not theirs is refused like an unknown one."""
    owner = air.own_user(user_id, customer_id)
    if owner is None:
        raise ValueError(f"there is no user {user_id!r}")
    return owner


def _key(idempotency_key: str | None, customer_id: Any) -> str | None:
    """The idempotency key scoped to the customer: a first result is replayed to its own customer only."""
    return f"{customer_id or air.ANONYMOUS}\x1f{idempotency_key}" if idempotency_key else None


def _person(name: Any, dob: Any) -> dict[str, str]:
    first, _, last = str(name).strip().partition(" ")
    if not first or not last or not air.datetime.fromisoformat(str(dob)):
        raise ValueError(f"passenger {name!r} needs a first name, a last name and a date of birth")
    return {"first_name": first, "last_name": last.strip(), "dob": str(dob)}


def book_reservation(user_id: str, origin: str, destination: str, flight_type: str, cabin: str,
                     flight_numbers: list[Any], flight_dates: list[Any], passenger_names: list[Any],
                     passenger_dobs: list[Any], payment_ids: list[Any], payment_amounts: list[Any],
                     total_baggages: int, nonfree_baggages: int, insurance: str,
                     idempotency_key: str | None = None, customer_id: str | None = None) -> dict[str, Any]:
    """Book a new reservation for the customer and take the payments from their stored methods."""
    with air.lock:
        if (first := air.replay("book_reservation", _key(idempotency_key, customer_id))) is not None:
            return first
        owner = _user(user_id, customer_id)
        if not passenger_names or len(passenger_names) != len(passenger_dobs) or len(payment_ids) != len(payment_amounts):
            raise ValueError("passenger names and dates of birth, and payment ids and amounts, must pair up")
        if not 0 <= int(nonfree_baggages) <= int(total_baggages):
            raise ValueError("the paid bags must be between 0 and the total number of bags")
        passengers = [_person(n, d) for n, d in zip(passenger_names, passenger_dobs, strict=True)]
        segments = []
        for number, date in zip(flight_numbers, flight_dates, strict=True):
            fare = air.price(number, date, cabin, len(passengers))
            if fare is None:
                raise ValueError(f"{number} on {date} cannot be booked in {cabin} for {len(passengers)}")
            flight = air.db["flights"][str(number).upper()]
            segments.append({"origin": flight["origin"], "destination": flight["destination"],
                             "flight_number": flight["flight_number"], "date": str(date), "price": fare})
        for pid, amount in zip(payment_ids, payment_amounts, strict=True):
            air.charge(owner, str(pid), float(amount))
        for s in segments:
            air.take_seats(s["flight_number"], s["date"], cabin, len(passengers))
        air.counters["reservation"] += 1
        rid = f"NB{air.counters['reservation']:04d}"
        air.db["reservations"][rid] = {
            "reservation_id": rid, "user_id": str(customer_id).strip(), "origin": origin,
            "destination": destination, "flight_type": flight_type, "cabin": cabin, "flights": segments,
            "passengers": passengers,
            "payment_history": [{"payment_id": str(p), "amount": float(a)} for p, a in zip(payment_ids, payment_amounts,
                                                                                       strict=True)],
            "created_at": air.NOW.isoformat(), "total_baggages": int(total_baggages),
            "nonfree_baggages": int(nonfree_baggages), "insurance": insurance,
        }
        owner["reservations"].append(rid)
        paid = round(sum(float(a) for a in payment_amounts), 2)
        return air.remember("book_reservation", _key(idempotency_key, customer_id), {
            "new_reservation_id": rid, "amount_charged": paid,
            "result": f"Booked: reservation {rid}, {air.segments_text(flight_numbers, flight_dates)} in {cabin} for "
                      f"{', '.join(str(n) for n in passenger_names)}; ${paid:,.2f} charged.",
        })


def cancel_reservation(reservation_id: str, cancel_reason: str, idempotency_key: str | None = None,
                       customer_id: str | None = None) -> dict[str, Any]:
    """Cancel the customer's whole reservation; what was paid goes back to the original payment methods."""
    with air.lock:
        if (first := air.replay("cancel_reservation", _key(idempotency_key, customer_id))) is not None:
            return first
        res = _reservation(reservation_id, customer_id)
        refunds = [{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in res["payment_history"]]
        res["payment_history"].extend(refunds)
        res["status"] = "cancelled"
        res["cancel_reason"] = cancel_reason
        refund = round(-sum(r["amount"] for r in refunds), 2)
        return air.remember("cancel_reservation", _key(idempotency_key, customer_id), {
            "amount_refunded": refund,
            "result": f"Reservation {res['reservation_id']} is cancelled. ${refund:,.2f} goes back to the original "
                      "payment method(s) within 5 to 7 business days.",
        })


def update_reservation_flights(reservation_id: str, cabin: str, flight_numbers: list[Any], flight_dates: list[Any],
                               payment_id: str, cabin_flight_numbers: list[Any] | None = None,
                               idempotency_key: str | None = None, customer_id: str | None = None) -> dict[str, Any]:
    """Replace the flights and cabin of the customer's reservation (one cabin for every segment); charge or
    refund the difference."""
    with air.lock:
        if (first := air.replay("update_reservation_flights", _key(idempotency_key, customer_id))) is not None:
            return first
        res = _reservation(reservation_id, customer_id)
        owner = _owner(res, customer_id)
        pax = len(res["passengers"])
        paid = {(s["flight_number"], s["date"]): s for s in res["flights"]}
        segments = []
        for number, date in zip(flight_numbers, flight_dates, strict=True):
            key = (str(number).upper(), str(date))
            if key in paid and cabin == res["cabin"]:
                segments.append(dict(paid[key]))
                continue
            fare = air.price(key[0], key[1], cabin, pax)
            if fare is None:
                raise ValueError(f"{key[0]} on {key[1]} cannot be booked in {cabin} for {pax}")
            flight = air.db["flights"][key[0]]
            segments.append({"origin": flight["origin"], "destination": flight["destination"],
                             "flight_number": key[0], "date": key[1], "price": fare})
        difference = round((sum(s["price"] for s in segments) - sum(s["price"] for s in res["flights"])) * pax, 2)
        if difference > 0:
            air.charge(owner, str(payment_id), difference)
        elif str(payment_id) not in owner["payment_methods"]:
            raise ValueError(f"{payment_id} is not a payment method of the reservation's owner")
        elif owner["payment_methods"][str(payment_id)]["source"] == "gift_card":
            method = owner["payment_methods"][str(payment_id)]
            method["amount"] = round(method["amount"] - difference, 2)  # a refund tops the gift card up
        res["flights"], res["cabin"] = segments, cabin
        res["payment_history"].append({"payment_id": str(payment_id), "amount": difference})
        verb = "charged to" if difference >= 0 else "refunded to"
        return air.remember("update_reservation_flights", _key(idempotency_key, customer_id), {
            "amount_charged": difference,
            "result": f"Reservation {res['reservation_id']} now flies {air.segments_text(flight_numbers, flight_dates)} "
                      f"in {cabin}; ${abs(difference):,.2f} {verb} {payment_id}.",
        })


def update_reservation_baggages(reservation_id: str, total_baggages: int, nonfree_baggages: int, payment_id: str,
                                add_insurance: bool = False, idempotency_key: str | None = None,
                                customer_id: str | None = None) -> dict[str, Any]:
    """Set the checked bags of the customer's reservation; paid bags beyond those already paid cost $50 each."""
    with air.lock:
        if (first := air.replay("update_reservation_baggages", _key(idempotency_key, customer_id))) is not None:
            return first
        res = _reservation(reservation_id, customer_id)
        owner = _owner(res, customer_id)
        if not 0 <= int(nonfree_baggages) <= int(total_baggages):
            raise ValueError("the paid bags must be between 0 and the total number of bags")
        fee = 50.0 * max(0, int(nonfree_baggages) - int(res["nonfree_baggages"]))
        if fee:
            air.charge(owner, str(payment_id), fee)
            res["payment_history"].append({"payment_id": str(payment_id), "amount": fee})
        res["total_baggages"], res["nonfree_baggages"] = int(total_baggages), int(nonfree_baggages)
        if add_insurance:
            res["insurance"] = "yes"
        return air.remember("update_reservation_baggages", _key(idempotency_key, customer_id), {
            "amount_charged": fee,
            "result": f"Reservation {res['reservation_id']} now has {total_baggages} checked bag(s), "
                      f"{nonfree_baggages} of them paid; ${fee:,.2f} charged to {payment_id}.",
        })


def update_reservation_passengers(reservation_id: str, passenger_names: list[Any], passenger_dobs: list[Any],
                                  idempotency_key: str | None = None, customer_id: str | None = None) -> dict[str, Any]:
    """Replace the names and dates of birth of the passengers of the customer's reservation, in order."""
    with air.lock:
        if (first := air.replay("update_reservation_passengers", _key(idempotency_key, customer_id))) is not None:
            return first
        res = _reservation(reservation_id, customer_id)
        res["passengers"] = [_person(n, d) for n, d in zip(passenger_names, passenger_dobs, strict=True)]
        return air.remember("update_reservation_passengers", _key(idempotency_key, customer_id), {
            "result": f"Reservation {res['reservation_id']} passengers: {', '.join(air.names(res['passengers']))}.",
        })


def send_certificate(user_id: str, reservation_id: str, certificate_amount: float, compensation_reason: str,
                     idempotency_key: str | None = None, customer_id: str | None = None) -> dict[str, Any]:
    """Add a travel certificate to the customer's payment methods, for one of their own reservations."""
    with air.lock:
        if (first := air.replay("send_certificate", _key(idempotency_key, customer_id))) is not None:
            return first
        owner = _user(user_id, customer_id)
        if air.own_reservation(reservation_id, customer_id) is None:
            raise ValueError(f"there is no reservation {reservation_id!r}")
        air.counters["certificate"] += 1
        cid = f"certificate_9{air.counters['certificate']:06d}"
        owner["payment_methods"][cid] = {"source": "certificate", "amount": float(certificate_amount), "id": cid}
        return air.remember("send_certificate", _key(idempotency_key, customer_id), {
            "certificate_id": cid,
            "result": f"A travel certificate of ${float(certificate_amount):,.2f} ({cid}) is now in your profile, "
                      f"for the {str(compensation_reason).replace('_', ' ')} on reservation {reservation_id}.",
        })


def transfer_to_human_agents(transfer_summary: str, user_id: str | None = None,
                             idempotency_key: str | None = None) -> dict[str, Any]:
    """Hand the conversation to a human agent with a summary of the request."""
    with air.lock:
        if (first := air.replay("transfer_to_human_agents", idempotency_key)) is not None:
            return first
        air.counters["transfer"] += 1
        ticket = f"HT-{air.counters['transfer']:04d}"
        return air.remember("transfer_to_human_agents", idempotency_key, {
            "ticket": ticket,
            "result": f"I've passed your request to a colleague (ticket {ticket}); they will continue from here.",
        })
