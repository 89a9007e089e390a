"""The gym chain's member system the newcomer's agent talks to: a few members in memory."""

from datetime import date, timedelta

MEMBERS = {
    "GM204518": {"dob": "1990-03-12", "postcode": "75011", "name": "Claire", "notice": 1, "fee": 0.0},
    "GM318802": {"dob": "1985-07-01", "postcode": "10115", "name": "Jonas", "notice": 3, "fee": 49.0},
    "GM550017": {"dob": "1978-11-23", "postcode": "69003", "name": "Sam", "notice": 1, "fee": 0.0},
}
CHARGES = {  # (member, amount) → what the charge was
    ("GM204518", 25.0): "towel service",
    ("GM204518", 59.9): "monthly fee charged twice",
    ("GM318802", 1250.5): "annual fee charged twice",
    ("GM550017", 35.0): "locker rental",
}
_REFUNDED: set[tuple[str, float]] = set()


def reset_state() -> dict:
    _REFUNDED.clear()
    return {}


def verify_member(member_number: str, date_of_birth: str, postcode: str) -> dict:
    member = MEMBERS.get(member_number.upper())
    ok = bool(member) and member["dob"] == str(date_of_birth) and member["postcode"] == str(postcode).strip()
    return {"verified": ok, "name": member["name"] if ok and member else ""}


def freeze_membership(member_number: str, freeze_months: int, freeze_reason: str, freeze_start: str) -> dict:
    start = date.fromisoformat(str(freeze_start))
    end = start + timedelta(days=30 * int(freeze_months))
    return {"reference": f"FR-{member_number.upper()[-4:]}", "until": end.isoformat()}


def quote_cancellation(member_number: str) -> dict:
    member = MEMBERS[member_number.upper()]
    ends = date.today() + timedelta(days=30 * member["notice"])
    return {"notice_months": member["notice"], "fee": member["fee"], "ends": ends.isoformat()}


def cancel_membership(member_number: str) -> dict:
    return {"reference": f"CX-{member_number.upper()[-4:]}"}


def find_charge(member_number: str, charge_amount: float) -> dict:
    what = CHARGES.get((member_number.upper(), round(float(charge_amount), 2)))
    return {"found": what is not None, "what": what or ""}


def refund_charge(member_number: str, charge_amount: float) -> dict:
    _REFUNDED.add((member_number.upper(), round(float(charge_amount), 2)))
    return {"refunded": float(charge_amount), "reference": f"RF-{member_number.upper()[-4:]}"}


def check_session(club: str, pt_date: str, pt_time: str) -> dict:
    day = date.fromisoformat(str(pt_date))
    return {"available": day.weekday() != 6, "weekday": day.strftime("%A")}


def book_session(member_number: str, club: str, pt_date: str, pt_time: str) -> dict:
    return {"reference": f"PT-{member_number.upper()[-4:]}"}


def change_home_club(member_number: str, new_club: str) -> dict:
    return {"reference": f"HC-{member_number.upper()[-4:]}"}


def transfer(summary: str) -> dict:
    return {"ref": "DESK-1"}
