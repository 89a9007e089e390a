"""The ticketing system the StageDoor desk talks to: a few bookings in memory (a real desk would call the box
office here). Written by a newcomer from the README and the docs only."""

from __future__ import annotations

BOOKINGS = {
    # reference: event, status, price paid, email on file, last 4 of the paying card
    "TK482913": {"event": "Luna Roja live", "status": "cancelled", "price": 89.50,
                 "email": "maria.lopez@example.com", "last4": "4821"},
    "TK551204": {"event": "Hamlet", "status": "postponed", "price": 120.00,
                 "email": "jonas.weber@example.de", "last4": "7730"},
    "TK660318": {"event": "FC Harbour v. Rovers", "status": "scheduled", "price": 65.00,
                 "email": "sam.porter@example.com", "last4": "1204"},
    "TK774002": {"event": "Berlin Philharmonic Gala", "status": "cancelled", "price": 1250.50,
                 "email": "klara.hoffmann@example.de", "last4": "9932"},
    "TK880715": {"event": "The Lion King", "status": "scheduled", "price": 240.00,
                 "email": "ana.garcia@example.es", "last4": "5566"},
}
AREAS_FREE = {"stalls": "Row F, seats 12-13", "balcony": "Row B, seats 3-4"}  # the circle is sold out
STATE: dict[str, list] = {"transfers": [], "refunds": [], "resends": [], "seat_changes": [], "access": []}


def reset_state() -> dict:
    for calls in STATE.values():
        calls.clear()
    return {}


def verify_customer(booking_ref: str, email: str, card_last4: str) -> dict:
    booking = BOOKINGS.get(booking_ref.upper())
    ok = bool(booking) and booking["email"] == email.strip().lower() and booking["last4"] == card_last4.strip()
    return {"verified": ok}


def lookup_booking(booking_ref: str) -> dict:
    booking = BOOKINGS.get(booking_ref.upper())
    if booking is None:
        return {"found": False}
    user, domain = booking["email"].split("@")
    host, tld = domain.rsplit(".", 1)
    return {"found": True, "event": booking["event"], "email_hint": f"{user[0]}***@{host[0]}***.{tld}"}


def check_refund(booking_ref: str) -> dict:
    booking = BOOKINGS[booking_ref.upper()]
    return {"event": booking["event"], "status": booking["status"], "amount": booking["price"]}


def issue_refund(booking_ref: str, amount: float) -> dict:
    STATE["refunds"].append((booking_ref, amount))
    return {"ref": f"RF-{booking_ref[-4:]}"}


def transfer_ticket(booking_ref: str, recipient_name: str, recipient_email: str) -> dict:
    STATE["transfers"].append((booking_ref, recipient_name, recipient_email))
    return {"ref": f"TR-{booking_ref[-4:]}"}


def resend_tickets(booking_ref: str) -> dict:
    STATE["resends"].append(booking_ref)
    return {"sent": True}


def check_seats(booking_ref: str, seat_area: str) -> dict:
    seats = AREAS_FREE.get(seat_area)
    return {"available": seats is not None, "seats": seats or ""}


def change_seats(booking_ref: str, seat_area: str) -> dict:
    STATE["seat_changes"].append((booking_ref, seat_area))
    return {"seats": AREAS_FREE[seat_area]}


def request_access(booking_ref: str, access_need: str, performance_date: str, performance_time: str) -> dict:
    STATE["access"].append((booking_ref, access_need, performance_date, performance_time))
    return {"ref": f"AC-{booking_ref[-4:]}"}


def transfer_to_staff(summary: str) -> dict:
    return {"ref": "HD-1001"}
