"""The rental system the car-rental desk talks to: a few bookings in memory (a real desk would call the booking
system here). Written by a newcomer from the docs only (session 12)."""

from __future__ import annotations

import copy
from datetime import date, timedelta

_BOOKINGS = {
    "RK204518": {"surname": "martin", "last4": "4242", "days_ahead": 40, "branch": "airport", "price": 320.0,
                 "charges": {"fuel": 45.0, "cleaning": 80.0, "damage": 1250.5}},
    "RK309911": {"surname": "dubois", "last4": "1881", "days_ahead": 5, "branch": "city_centre", "price": 210.0,
                 "charges": {"fuel": 60.0, "cleaning": 150.0}},
    "RK415530": {"surname": "garcía", "last4": "0005", "days_ahead": 20, "branch": "central_station",
                 "price": 480.0, "charges": {"fuel": 95.0}},
}
LOG: list[dict] = []


def _fresh() -> dict:
    """Pick-ups lie a fixed number of days after today, so the cancellation fees hold on any day the suite runs."""
    bookings = copy.deepcopy(_BOOKINGS)
    for booking in bookings.values():
        booking["pickup"] = (date.today() + timedelta(days=booking.pop("days_ahead"))).isoformat()
    return bookings


BOOKINGS = _fresh()


def reset_state() -> dict:
    BOOKINGS.clear()
    BOOKINGS.update(_fresh())
    LOG.clear()
    return {}


def _booking(booking_ref: str) -> dict | None:
    return BOOKINGS.get(str(booking_ref).strip().upper())


def find_booking(booking_ref: str) -> dict:
    booking = _booking(booking_ref)
    if booking is None:
        return {"found": False}
    return {"found": True, "pickup": booking["pickup"], "branch": booking["branch"]}


def quote_cancellation(booking_ref: str) -> dict:
    """The fee depends on how far ahead the pick-up is: free 14 days ahead or more, €50 from 2 days, the whole price
    closer than that."""
    booking = _booking(booking_ref)
    if booking is None:
        return {"fee": 0.0, "refund": 0.0}
    days = (date.fromisoformat(booking["pickup"]) - date.today()).days
    fee = 0.0 if days >= 14 else 50.0 if days >= 2 else booking["price"]
    return {"fee": fee, "refund": round(booking["price"] - fee, 2)}


def cancel_booking(booking_ref: str) -> dict:
    quote = quote_cancellation(booking_ref)
    LOG.append({"cancel": booking_ref})
    return {"ref": f"CX-{str(booking_ref).upper()}", "refund": quote["refund"]}


def change_booking(booking_ref: str, new_pickup_date: str, new_pickup_time: str, new_branch: str) -> dict:
    booking = _booking(booking_ref)
    if booking is None:
        return {"ok": False}
    booking.update(pickup=str(new_pickup_date), branch=new_branch, time=new_pickup_time)
    return {"ok": True}


def verify_identity(booking_ref: str, driver_surname: str, card_last4: str) -> dict:
    booking = _booking(booking_ref)
    ok = bool(booking and booking["surname"] == str(driver_surname).strip().lower()
              and booking["last4"] == str(card_last4).strip())
    return {"ok": ok}


def lookup_charge(booking_ref: str, charge_type: str) -> dict:
    booking = _booking(booking_ref)
    amount = (booking or {}).get("charges", {}).get(charge_type)
    if amount is None:
        return {"found": False}
    return {"found": True, "amount": amount}


def refund_charge(booking_ref: str, charge_type: str, amount: float) -> dict:
    LOG.append({"refund": booking_ref, "type": charge_type, "amount": amount})
    return {"ref": f"RF-{str(booking_ref).upper()}-{charge_type[:2].upper()}"}


def check_driver(driver_age: int, licence_number: str) -> dict:
    return {"eligible": int(driver_age) >= 21 and len(str(licence_number)) >= 6}


def add_driver(booking_ref: str, driver_name: str, driver_age: int, licence_number: str) -> dict:
    LOG.append({"driver": driver_name, "booking": booking_ref})
    return {"ref": f"AD-{str(booking_ref).upper()}"}


def report_damage(booking_ref: str, damage_description: str) -> dict:
    LOG.append({"damage": booking_ref, "what": damage_description})
    return {"ref": f"DM-{str(booking_ref).upper()}"}


def transfer(summary: str) -> dict:
    LOG.append({"handoff": summary})
    return {"ref": f"HO-{len(LOG):04d}"}
