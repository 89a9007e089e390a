"""Read-only tools of the example airline agent (plain Python, standard library only).

Each function takes keyword arguments named like the tool's `input` keys in agent.yaml and returns a
dict whose keys the tool's `output` maps to session variables. Every key is always returned (None
when unknown), so a fact from an earlier lookup never lingers into the next one.

Every tool that reads a user's account or a reservation also takes `customer_id`, the authenticated
customer Focal passes (from a customer token or a trusted backend, never from the conversation; any
argument of that name is replaced), and answers only for that customer: a user id the customer types
that is not their own is answered exactly like an unknown one, another customer's reservation exactly
like a reservation that does not exist, and without a customer (or "anonymous") nothing is found.

The writing tools live in write_tools.py; both share the data module airline_db.py.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any


def _sibling(name: str) -> Any:
    """Load a module next to this file once per process, under one name, whoever asks first."""
    key = f"focal_example_airline_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


air = _sibling("airline_db")

USER_KEYS = ("checked_user_id", "user_found", "membership", "user_name", "user_dob", "user_payment_ids", "user_payment_summary",
             "user_reservations", "gift_card_total", "certificate_total")


def get_user_details(user_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """The customer's membership, payment methods (with balances) and reservation ids, when the typed
    `user_id` is the authenticated customer's own; any other id (or no customer) gives user_found False."""
    checked = str(user_id or "").strip()
    with air.lock:
        found = air.own_user(user_id, customer_id)
        if found is None:
            return {**dict.fromkeys(USER_KEYS), "checked_user_id": checked, "user_found": False}
        methods = list(found["payment_methods"].values())
        return {
            "checked_user_id": checked,
            "user_found": True,
            "membership": found["membership"],
            "user_name": f"{found['name']['first_name']} {found['name']['last_name']}",
            "user_dob": found["dob"],
            "user_payment_ids": ", ".join(m["id"] for m in methods),
            "user_payment_summary": "; ".join(air.payment_label(m) for m in methods),
            "user_reservations": ", ".join(found["reservations"]),
            "gift_card_total": round(sum(m.get("amount", 0) for m in methods if m["source"] == "gift_card"), 2),
            "certificate_total": round(sum(m.get("amount", 0) for m in methods if m["source"] == "certificate"), 2),
        }


RESERVATION_KEYS = (
    "checked_reservation_id", "reservation_found", "reservation_owner_ok", "membership", "reservation_cabin",
    "reservation_flight_type", "reservation_origin", "reservation_destination", "passenger_count", "passenger_list",
    "booked_hours_ago", "has_insurance", "any_flight_flown", "airline_cancelled", "any_flight_delayed",
    "reservation_status", "current_baggages", "free_bag_allowance", "reserved_flight_numbers", "reservation_summary",
)


def get_reservation_details(reservation_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """The facts of one of the customer's reservations; an unknown one (or another customer's) is not found."""
    with air.lock:
        res = air.own_reservation(reservation_id, customer_id)
        if res is None:
            rid = str(reservation_id).strip().upper()
            return {**dict.fromkeys(RESERVATION_KEYS), "checked_reservation_id": rid, "reservation_found": False,
                    "reservation_owner_ok": False, "reservation_summary": f"there is no reservation {rid}"}
        owner = air.customer_user(customer_id) or {"membership": "regular"}
        segments = res["flights"]
        statuses = [air.segment_status(s) for s in segments]
        pax = len(res["passengers"])
        hours = (air.NOW - air.datetime.fromisoformat(res["created_at"])).total_seconds() / 3600
        status = res.get("status") or "active"
        flights = ", ".join(f"{s['flight_number']} {s['origin']}-{s['destination']} on {s['date']} ({st})"
                            for s, st in zip(segments, statuses, strict=True))
        passengers = ", ".join(f"{n} ({p['dob']})" for n, p in zip(air.names(res["passengers"]), res["passengers"],
                                                                    strict=True))
        allowance = air.free_bags(owner["membership"], res["cabin"], pax)
        summary = (f"{res['reservation_id']} is a {res['flight_type'].replace('_', ' ')} {res['cabin']} reservation "
                   f"{res['origin']}-{res['destination']} ({status}), {pax} passenger(s): {passengers}; flights: "
                   f"{flights}; insurance: {res['insurance']}; checked bags: {res['total_baggages']} "
                   f"(free allowance {allowance}); booked {res['created_at']}.")
        return {
            "checked_reservation_id": res["reservation_id"],
            "reservation_found": True,
            "reservation_owner_ok": True,  # own_reservation found it on the authenticated customer's account
            "membership": owner["membership"],
            "reservation_cabin": res["cabin"],
            "reservation_flight_type": res["flight_type"],
            "reservation_origin": res["origin"],
            "reservation_destination": res["destination"],
            "passenger_count": pax,
            "passenger_list": ", ".join(air.names(res["passengers"])),
            "booked_hours_ago": round(hours, 1),
            "has_insurance": res["insurance"] == "yes",
            "any_flight_flown": any(st in air.FLOWN for st in statuses),
            "airline_cancelled": any(st == "cancelled" for st in statuses),
            "any_flight_delayed": any(air.segment_delayed(s) for s in segments),
            "reservation_status": status,
            "current_baggages": res["total_baggages"],
            "free_bag_allowance": allowance,
            "reserved_flight_numbers": ", ".join(s["flight_number"] for s in segments),
            "reservation_summary": summary,
        }


def _itinerary_facts(flight_numbers: list[Any], flight_dates: list[Any]) -> dict[str, Any]:
    route = air.itinerary(flight_numbers, flight_dates)
    return {"itinerary_origin": route["origin"], "itinerary_end": route["end"], "itinerary_stops": " ".join(route["stops"]),
            "itinerary_connected": route["connected"]}


def quote_change(reservation_id: str, flight_numbers: list[Any], flight_dates: list[Any], cabin: str,
                 payment_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """What a new itinerary and cabin would cost against the customer's reservation: kept segments in the
    same cabin keep the price paid, every other segment is priced today; positive is a charge, negative a
    refund. Another customer's reservation cannot be priced, like an unknown one."""
    with air.lock:
        res = air.own_reservation(reservation_id, customer_id)
        if res is None or cabin not in air.CABINS or len(flight_numbers) != len(flight_dates):
            return {"flights_bookable": False, "flights_unchanged": False, "fare_difference": None,
                    "payment_covers": False, "change_summary": "the change could not be priced",
                    **_itinerary_facts(flight_numbers, flight_dates)}
        pax = len(res["passengers"])
        paid = {(s["flight_number"], s["date"]): s["price"] for s in res["flights"]}
        new_total, bookable = 0.0, True
        for number, date in zip(flight_numbers, flight_dates, strict=True):
            key = (str(number).upper(), str(date))
            if key in paid and cabin == res["cabin"]:
                new_total += paid[key]
                continue
            today = air.price(key[0], key[1], cabin, pax)
            bookable = bookable and today is not None
            new_total += today or 0.0
        difference = round((new_total - sum(paid.values())) * pax, 2)
        owner = air.customer_user(customer_id)
        method = (owner or {}).get("payment_methods", {}).get(str(payment_id))
        covers = method is not None and (method["source"] == "credit_card" or (
            method["source"] == "gift_card" and method.get("amount", 0) >= max(0.0, difference)))
        kept = sorted((str(n).upper(), str(d)) for n, d in zip(flight_numbers, flight_dates, strict=True))
        verb = "costs" if difference >= 0 else "refunds"
        return {
            "flights_bookable": bookable,
            "flights_unchanged": kept == sorted(paid),
            "fare_difference": difference,
            "payment_covers": covers,
            "change_summary": (f"{air.segments_text(flight_numbers, flight_dates)} in {cabin} for {pax} passenger(s); "
                               f"the change {verb} ${abs(difference):,.2f}"),
            **_itinerary_facts(flight_numbers, flight_dates),
        }


def quote_booking(user_id: str, flight_numbers: list[Any], flight_dates: list[Any], cabin: str,
                  passenger_names: list[Any], total_baggages: int, nonfree_baggages: int, insurance: str,
                  payment_ids: list[Any], payment_amounts: list[Any], customer_id: str | None = None) -> dict[str, Any]:
    """Price a new booking (fares today, $30 insurance per passenger, $50 per paid bag) and describe the payment
    with the customer's own stored methods (a typed user id that is not the customer's has none)."""
    with air.lock:
        owner = air.own_user(user_id, customer_id)
        pax = len(passenger_names)
        fares = [air.price(n, d, cabin, pax) if cabin in air.CABINS else None
                 for n, d in zip(flight_numbers, flight_dates, strict=False)]
        bookable = bool(fares) and len(flight_numbers) == len(flight_dates) and all(f is not None for f in fares)
        fare = sum(f or 0.0 for f in fares) * pax
        total = round(fare + (30 * pax if insurance == "yes" else 0) + 50 * int(nonfree_baggages or 0), 2)
        membership = owner["membership"] if owner else "regular"
        return {
            "flights_bookable": bookable,
            "fare_total": round(fare, 2),
            "booking_total": total,
            "booking_free_bags": air.free_bags(membership, cabin, pax),
            "booking_summary": (f"{air.segments_text(flight_numbers, flight_dates)} in {cabin} for {pax} passenger(s) "
                                f"({', '.join(str(n) for n in passenger_names)}); {total_baggages} checked bag(s), "
                                f"{nonfree_baggages} paid; insurance: {insurance}; total ${total:,.2f}"),
            **air.payment_facts(owner, payment_ids, payment_amounts),
            **_itinerary_facts(flight_numbers, flight_dates),
        }


def search_flights(origin: str, destination: str, flight_date: str) -> dict[str, Any]:
    """Direct and one-stop flights on a date that can still be booked, with seats and prices per cabin."""
    origin, destination = str(origin).strip().upper(), str(destination).strip().upper()
    with air.lock:
        flights = air.db["flights"]
        bookable = {n: f for n, f in flights.items()
                    if f["dates"].get(flight_date, {}).get("status") == "available"}

        def fares(number: str) -> str:
            day = bookable[number]["dates"][flight_date]
            return ", ".join(f"{c} ${day['prices'][c]}" for c in air.CABINS if day["available_seats"].get(c, 0) > 0)

        options = [f"{n} {f['scheduled_departure_time_est'][:5]}-{f['scheduled_arrival_time_est'][:5]} ({fares(n)})"
                   for n, f in sorted(bookable.items()) if f["origin"] == origin and f["destination"] == destination]
        for n1, f1 in sorted(bookable.items()):
            if f1["origin"] != origin:
                continue
            for n2, f2 in sorted(bookable.items()):
                if f2["origin"] == f1["destination"] and f2["destination"] == destination:
                    options.append(f"{n1}+{n2} via {f1['destination']} ({fares(n1)} / {fares(n2)})")
    text = "; ".join(options) if options else f"no bookable flights from {origin} to {destination} on {flight_date}"
    return {"flight_options": text, "flight_option_count": len(options)}


def reset_state() -> dict[str, Any]:
    """Forget every booking, change and certificate made by this process (for tests and demos)."""
    air.reset()
    return {"reset": True}
