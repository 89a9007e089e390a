"""VeloCity back-office stubs."""
ACCOUNTS = {
    "VC123456": {"name": "Anna", "pass": "monthly", "deposit_status": "pending", "deposit_date": "2026-11-20", "credit_used": 0},
    "VC654321": {"name": "Luc", "pass": "yearly", "deposit_status": "refunded", "deposit_date": "2026-11-02", "credit_used": 15},
}

def find_account(customer_number):
    acc = ACCOUNTS.get(str(customer_number).upper())
    if not acc:
        return {"found": False}
    return {"found": True, "pass": acc["pass"], "deposit_status": acc["deposit_status"],
            "deposit_date": acc["deposit_date"], "credit_used": acc["credit_used"]}

def grant_credit(customer_number, credit_amount):
    return {"ref": f"GC-{str(customer_number).upper()}-{int(float(credit_amount))}"}

def reset_state():
    return {}

TICKETS = []
def transfer(summary):
    TICKETS.append(summary)
    return {"ref": f"HO-{len(TICKETS):04d}"}
