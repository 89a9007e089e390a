"""The hotel group's reservation system the newcomer's guest-desk agent talks to: a few reservations in memory.
Arrivals lie a fixed number of days after today, so the cancellation fees hold on any day."""

from __future__ import annotations

import re
from datetime import date, timedelta

RATES = {"standard": 120.0, "superior": 160.0, "suite": 290.0, "family": 210.0}
SOLD_OUT = {"suite"}


def _reservations() -> dict[str, dict]:
    today = date.today()
    return {
        "HR204518": {"surname": "Keller", "email": "anna.keller@example.com", "arrival": today + timedelta(days=30),
                     "nights": 2, "room": "standard"},
        "HR310022": {"surname": "García", "email": "lucia.garcia@example.es", "arrival": today + timedelta(days=5),
                     "nights": 3, "room": "superior"},
        "HR550031": {"surname": "Müller", "email": "jonas.mueller@example.de", "arrival": today + timedelta(days=1),
                     "nights": 1, "room": "standard"},
    }


STATE: dict[str, object] = {"reservations": _reservations(), "cancelled": set(), "reports": 0}


def reset_state() -> dict:
    STATE["reservations"] = _reservations()
    STATE["cancelled"] = set()
    STATE["reports"] = 0
    return {}


def _find(reservation_number: str) -> dict | None:
    number = reservation_number.strip().upper()
    if number in STATE["cancelled"]:  # type: ignore[operator]
        return None
    return STATE["reservations"].get(number)  # type: ignore[union-attr]


def find_reservation(reservation_number: str) -> dict:
    booking = _find(reservation_number)
    if booking is None:
        return {"found": False}
    return {"found": True, "arrival": booking["arrival"].isoformat(), "nights": booking["nights"],
            "room": booking["room"]}


def check_availability(reservation_number: str, check_in_date: str, check_out_date: str, room_type: str) -> dict:
    nights = (date.fromisoformat(str(check_out_date)) - date.fromisoformat(str(check_in_date))).days
    if nights < 1 or room_type not in RATES:
        return {"available": False, "price": 0.0}
    return {"available": room_type not in SOLD_OUT, "price": round(RATES[room_type] * nights, 2)}


def change_reservation(reservation_number: str, check_in_date: str, check_out_date: str, room_type: str) -> dict:
    booking = _find(reservation_number)
    assert booking is not None
    booking["arrival"] = date.fromisoformat(str(check_in_date))
    booking["nights"] = (date.fromisoformat(str(check_out_date)) - booking["arrival"]).days
    booking["room"] = room_type
    return {"ref": f"CH-{reservation_number.upper()}"}


def quote_cancellation(reservation_number: str) -> dict:
    """Free up to 14 days ahead, half the first night from 2 to 14 days, the whole first night within 2 days."""
    booking = _find(reservation_number)
    if booking is None:
        return {"fee": 0.0, "refund": 0.0, "days_ahead": 0}
    days = (booking["arrival"] - date.today()).days
    night = RATES[booking["room"]]
    fee = 0.0 if days > 14 else (night / 2 if days >= 2 else night)
    paid = night * booking["nights"]
    return {"fee": round(fee, 2), "refund": round(paid - fee, 2), "days_ahead": days}


def cancel_reservation(reservation_number: str) -> dict:
    STATE["cancelled"].add(reservation_number.strip().upper())  # type: ignore[union-attr]
    return {"ref": f"CX-{reservation_number.upper()}"}


def verify_guest(reservation_number: str, surname: str, email: str) -> dict:
    booking = _find(reservation_number)
    ok = (booking is not None and booking["surname"].casefold() == str(surname).strip().casefold()
          and booking["email"].casefold() == str(email).strip().casefold())
    return {"verified": ok}


def issue_voucher(reservation_number: str, voucher_amount: float) -> dict:
    return {"code": f"VO-{reservation_number.upper()}-{int(float(voucher_amount))}"}


def _hour(text: str) -> int | None:
    found = re.search(r"(\d{1,2})(?::(\d{2}))?\s*(am|pm)?", str(text).lower())
    if found is None:
        return None
    hour = int(found.group(1))
    if found.group(3) == "pm" and hour < 12:
        hour += 12
    return hour


def check_late_checkout(reservation_number: str, checkout_time: str) -> dict:
    """Until 14:00 for €30, until 16:00 for €60; later is not possible."""
    hour = _hour(checkout_time)
    if _find(reservation_number) is None or hour is None or hour > 16:
        return {"possible": False, "charge": 0.0}
    return {"possible": True, "charge": 30.0 if hour <= 14 else 60.0}


def book_late_checkout(reservation_number: str, checkout_time: str) -> dict:
    return {"ref": f"LC-{reservation_number.upper()}"}


def log_lost_item(item_description: str, room_number: str, lost_date: str) -> dict:
    STATE["reports"] = int(STATE["reports"]) + 1  # type: ignore[call-overload]
    return {"ref": f"LP-{int(STATE['reports']):04d}"}  # type: ignore[call-overload]


def transfer_to_staff(summary: str) -> dict:
    return {"ref": "GR-0001"}
