"""The claims system of the Hearth & Home contents-insurance desk, in memory (a real desk would call
its policy administration and claims systems here)."""

POLICIES = {  # policy number → holder
    "HH204518": {"name": "Anna Weber", "date_of_birth": "1985-04-12"},
    "HH309911": {"name": "Louis Martin", "date_of_birth": "1972-11-03"},
}
CLAIMS = {
    "CL100234": {"policy": "HH204518", "status": "in_review"},
    "CL100871": {"policy": "HH309911", "status": "approved"},
    "CL100999": {"policy": "HH309911", "status": "paid"},
}
CALLS: list[tuple[str, dict]] = []


def reset_state() -> dict:
    CALLS.clear()
    return {}


def verify_customer(policy_number: str, date_of_birth: str) -> dict:
    holder = POLICIES.get(policy_number.upper())
    ok = holder is not None and holder["date_of_birth"] == str(date_of_birth)
    return {"verified": ok, "name": holder["name"] if ok else ""}


def file_claim(policy_number: str, incident_type: str, incident_date: str) -> dict:
    CALLS.append(("file_claim", {"policy_number": policy_number, "incident_type": incident_type}))
    return {"claim": "CL" + str(200000 + len(CALLS))}


def claim_status(claim_number: str) -> dict:
    claim = CLAIMS.get(claim_number.upper())
    if claim is None:
        return {"found": False}
    return {"found": True, "status": claim["status"]}


def change_payout_account(policy_number: str, iban: str) -> dict:
    CALLS.append(("change_payout_account", {"policy_number": policy_number, "iban": iban}))
    return {"ok": True}


def pay_goodwill(policy_number: str, amount: float) -> dict:
    CALLS.append(("pay_goodwill", {"policy_number": policy_number, "amount": amount}))
    return {"ref": "GW" + str(500 + len(CALLS))}


def transfer(summary: str) -> dict:
    CALLS.append(("transfer", {"summary": summary}))
    return {"ref": "T-" + str(len(CALLS))}
