"""The library system the tutorial's agent talks to: a few loans in memory (a real desk would call
the library's catalogue here)."""

from datetime import date, timedelta

LOANS = {  # (card number, barcode) → the loan
    ("LC204518", "B30117"): {"title": "The Left Hand of Darkness", "due": date(2025, 3, 14), "on_hold": False},
    ("LC204518", "B30254"): {"title": "Middlemarch", "due": date(2025, 3, 10), "on_hold": True},
}


def find_loan(card_number: str, barcode: str) -> dict:
    loan = LOANS.get((card_number.upper(), barcode.upper()))
    if loan is None:
        return {"found": False}
    return {"found": True, "title": loan["title"], "due": loan["due"].isoformat(), "on_hold": loan["on_hold"]}


def renew_loan(card_number: str, barcode: str, weeks: int) -> dict:
    loan = LOANS[(card_number.upper(), barcode.upper())]
    return {"due": (loan["due"] + timedelta(weeks=weeks)).isoformat()}
