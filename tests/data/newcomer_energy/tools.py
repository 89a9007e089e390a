"""The energy supplier's systems, faked in memory for the newcomer suite (session 11)."""

ACCOUNTS = {
    # account: (date of birth, name, arrears in euros, last meter reading)
    "EA204518": ("1985-04-12", "Ana Weber", 180.0, 12000),
    "EA309911": ("1972-11-03", "Jon Ruiz", 1250.5, 45210),
    "EA777001": ("1990-01-01", "Kai Braun", 0.0, 800),
}
_state: dict = {"next": 1}


def reset_state():
    _state["next"] = 1
    return {}


def _ref(prefix):
    ref = f"{prefix}{_state['next']:04d}"
    _state["next"] += 1
    return ref


def find_account(account_number):
    found = account_number.upper() in ACCOUNTS
    last = ACCOUNTS[account_number.upper()][3] if found else 0
    return {"found": found, "last_reading": last}


def verify_customer(account_number, date_of_birth):
    row = ACCOUNTS.get(account_number.upper())
    ok = bool(row) and row[0] == str(date_of_birth)
    return {"verified": ok, "name": row[1] if ok else "", "arrears": row[2] if ok else 0.0}


def submit_meter_reading(account_number, meter_reading, reading_date):
    return {"ref": _ref("MR")}


def create_payment_plan(account_number, arrears_amount, plan_months):
    return {"ref": _ref("PP")}


def register_move(account_number, old_address, new_address, move_date):
    return {"ref": _ref("MV")}


def log_fault(account_number, problem_type):
    return {"ref": _ref("FT")}


def apply_credit(account_number, amount):
    return {"ref": _ref("CR")}


def transfer(summary):
    return {"ref": _ref("HO")}
