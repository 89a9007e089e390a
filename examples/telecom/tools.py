"""Tools of the example telecom agent (plain Python, standard library only), over data/telecom.json.

The data file is never written: every change (a payment request, a payment, a resumed line, refuelled
data, roaming) goes to an in-memory copy, and `reset_state()` goes back to the file. The `setup_*`
functions put that copy in the state a benchmark task starts from (a line out of data, a line suspended
for an unpaid bill...), for the conversation tests.

Whose account: every tool takes `customer_id`, the authenticated customer Focal passes (from a customer
token or a trusted backend, never from the conversation), and answers only for that customer. A phone
number that is not one of theirs is answered exactly like an unknown one; without a customer (or
"anonymous") nothing is found and nothing changes.

Like the operator's own systems, the writing tools check integrity (the bill or the line exists and is
the customer's, a request is pending before it is paid) but not policy: whether a suspension may be lifted,
how much data may be added, whether a bill may be sent for payment is decided by the agent's action guards
(agent.yaml) before any of these runs. Each writing tool takes the optional `idempotency_key` Focal passes
with a side-effecting call: a key seen before returns the first result and changes nothing again.
"""

from __future__ import annotations

import copy
import json
import threading
from datetime import date
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data") / "telecom.json"
ANONYMOUS = "anonymous"

_lock = threading.RLock()
_file: dict[str, Any] = {}
_db: dict[str, Any] = {}
_results: dict[tuple[str, str], dict[str, Any]] = {}  # (tool, idempotency key) -> first result
_counter = {"transfer": 0}


def reset_state() -> dict[str, Any]:
    """Forget every change made by this process: the data is the file's again (tests and demos)."""
    with _lock:
        if not _file:
            _file.update(json.loads(DATA.read_text(encoding="utf-8")))
        _db.clear()
        _db.update(copy.deepcopy(_file))
        _results.clear()
        _counter["transfer"] = 0
    return {"reset": True}


def _data() -> dict[str, Any]:
    if not _db:
        reset_state()
    return _db


def _today() -> date:
    return date.fromisoformat(_data()["today"])  # the benchmark's fixed "current time"


def _digits(phone: Any) -> str:
    return "".join(ch for ch in str(phone or "") if ch.isdigit())


def _customer(customer_id: Any) -> dict[str, Any] | None:
    cid = customer_id.strip() if isinstance(customer_id, str) else ""
    if not cid or cid == ANONYMOUS:
        return None
    return next((c for c in _data()["customers"] if c["customer_id"] == cid), None)


def _lines(customer: dict[str, Any]) -> list[dict[str, Any]]:
    return [line for line in _data()["lines"] if line["line_id"] in customer["line_ids"]]


def _line_by_phone(customer: dict[str, Any], phone: Any) -> dict[str, Any] | None:
    wanted = _digits(phone)
    return next((line for line in _lines(customer) if wanted and _digits(line["phone_number"]) == wanted), None)


def _line_by_id(customer: dict[str, Any], line_id: Any) -> dict[str, Any]:
    line = next((line for line in _lines(customer) if line["line_id"] == str(line_id or "").strip()), None)
    if line is None:
        raise ValueError(f"there is no line {line_id!r} on this account")
    return line


def _plan(plan_id: str) -> dict[str, Any]:
    return next(p for p in _data()["plans"] if p["plan_id"] == plan_id)


def _bills(customer: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in _data()["bills"] if b["bill_id"] in customer["bill_ids"]]


def _bill(customer: dict[str, Any], bill_id: Any) -> dict[str, Any]:
    bill = next((b for b in _bills(customer) if b["bill_id"] == str(bill_id or "").strip().upper()), None)
    if bill is None:
        raise ValueError(f"there is no bill {bill_id!r} on this account")
    return bill


def _owner(customer_id: Any) -> dict[str, Any]:
    customer = _customer(customer_id)
    if customer is None:
        raise ValueError("no account is signed in")
    return customer


def _once(tool: str, key: Any, work: Any) -> dict[str, Any]:
    """Run `work()` once per idempotency key: a repeated key returns the first result."""
    with _lock:
        if isinstance(key, str) and key and (tool, key) in _results:
            return _results[(tool, key)]
        result = work()
        if isinstance(key, str) and key:
            _results[(tool, key)] = result
        return result


# --- lookups ---

def find_customer(phone_number: str, customer_id: str | None = None) -> dict[str, Any]:
    """Identify the caller by a phone number: the account's contact number or one of its lines."""
    with _lock:
        customer = _customer(customer_id)
        found = customer is not None and (
            _digits(customer["phone_number"]) == _digits(phone_number) or _line_by_phone(customer, phone_number) is not None)
        if not found or customer is None:
            return {"customer_identified": False, "account_holder": None, "account_status": None}
        return {"customer_identified": True, "account_holder": customer["full_name"],
                "account_status": customer["account_status"]}


LINE_KEYS = ("line_found", "line_id", "line_status", "plan_name", "data_used_gb", "data_limit_gb", "data_left_gb",
             "data_exhausted", "refuel_price_per_gb", "roaming_enabled", "contract_end_date", "contract_ended")


def line_details(phone_number: str, customer_id: str | None = None) -> dict[str, Any]:
    """The line with this phone number on the caller's account: status, plan, data and contract."""
    with _lock:
        customer = _customer(customer_id)
        line = _line_by_phone(customer, phone_number) if customer else None
        if line is None:
            return {**dict.fromkeys(LINE_KEYS), "line_found": False}
        plan = _plan(line["plan_id"])
        allowance = plan["data_limit_gb"] + line["refueled_gb"]
        end = line["contract_end_date"]
        return {
            "line_found": True, "line_id": line["line_id"], "line_status": line["status"], "plan_name": plan["name"],
            "data_used_gb": line["data_used_gb"], "data_limit_gb": plan["data_limit_gb"],
            "data_left_gb": round(max(allowance - line["data_used_gb"], 0.0), 2),
            "data_exhausted": line["data_used_gb"] >= allowance, "refuel_price_per_gb": plan["refuel_price_per_gb"],
            "roaming_enabled": line["roaming_enabled"], "contract_end_date": end,
            "contract_ended": bool(end) and date.fromisoformat(end) < _today(),
        }


def billing_summary(customer_id: str | None = None) -> dict[str, Any]:
    """The caller's overdue bills (oldest first) and how many bills wait for a payment."""
    with _lock:
        customer = _customer(customer_id)
        bills = _bills(customer) if customer else []
        overdue = sorted((b for b in bills if b["status"] == "Overdue"), key=lambda b: b["due_date"])
        first = overdue[0] if overdue else None
        return {
            "overdue_count": len(overdue),
            "overdue_bill_ids": ", ".join(b["bill_id"] for b in overdue),
            "overdue_bill_id": first["bill_id"] if first else None,
            "overdue_amount": first["total_due"] if first else None,
            "overdue_due_date": first["due_date"] if first else None,
            "awaiting_count": sum(b["status"] == "Awaiting Payment" for b in bills),
            "payment_method": _method_label(customer) if customer else None,
        }


def _method_label(customer: dict[str, Any]) -> str | None:
    methods = customer["payment_methods"]
    return f"{methods[0]['type']} ending {methods[0]['last_4']}" if methods else None


def bill_status(bill_id: str, customer_id: str | None = None) -> dict[str, Any]:
    """The status of one of the caller's bills, as the billing system has it now."""
    with _lock:
        customer = _customer(customer_id)
        try:
            bill = _bill(customer, bill_id) if customer else None
        except ValueError:
            bill = None
        return {"checked_bill_id": str(bill_id or "").strip().upper(),
                "bill_status": bill["status"] if bill else "Unknown"}


def quote_refuel(line_id: str, gb_amount: float, customer_id: str | None = None) -> dict[str, Any]:
    """What adding `gb_amount` GB to the line would cost at its plan's price per GB."""
    with _lock:
        line = _line_by_id(_owner(customer_id), line_id)
        return {"refuel_cost": round(float(gb_amount) * _plan(line["plan_id"])["refuel_price_per_gb"], 2)}


# --- changes ---

def send_payment_request(bill_id: str, customer_id: str | None = None,
                         idempotency_key: str | None = None) -> dict[str, Any]:
    """Send the caller a payment request for a bill: the bill then awaits payment."""
    def work() -> dict[str, Any]:
        customer = _owner(customer_id)
        if any(b["status"] == "Awaiting Payment" for b in _bills(customer)):
            raise ValueError("another bill already awaits payment")
        bill = _bill(customer, bill_id)
        bill["status"] = "Awaiting Payment"
        return {"requested_bill_id": bill["bill_id"], "request_result": f"A payment request for bill {bill['bill_id']} was sent."}
    return _once("send_payment_request", idempotency_key, work)


def make_payment(bill_id: str, customer_id: str | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
    """Pay a bill that awaits payment with the account's first payment method."""
    def work() -> dict[str, Any]:
        customer = _owner(customer_id)
        bill = _bill(customer, bill_id)
        if bill["status"] != "Awaiting Payment" or not customer["payment_methods"]:
            raise ValueError(f"bill {bill['bill_id']} has no payment request to pay")
        bill["status"] = "Paid"
        return {"payment_result": f"${bill['total_due']:.2f} was paid with the {_method_label(customer)}."}
    return _once("make_payment", idempotency_key, work)


def resume_line(line_id: str, customer_id: str | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
    """Lift a line's suspension."""
    def work() -> dict[str, Any]:
        line = _line_by_id(_owner(customer_id), line_id)
        if line["status"] not in ("Suspended", "Pending Activation"):
            raise ValueError(f"line {line['line_id']} is not suspended")
        line["status"], line["suspension_start_date"] = "Active", None
        return {"resume_result": f"Line {line['phone_number']} is active again."}
    return _once("resume_line", idempotency_key, work)


def refuel_data(line_id: str, gb_amount: float, customer_id: str | None = None,
                idempotency_key: str | None = None) -> dict[str, Any]:
    """Add data to a line for this month; the charge goes on the next bill."""
    def work() -> dict[str, Any]:
        line = _line_by_id(_owner(customer_id), line_id)
        amount = float(gb_amount)
        if amount <= 0:
            raise ValueError("the amount of data must be positive")
        cost = round(amount * _plan(line["plan_id"])["refuel_price_per_gb"], 2)
        line["refueled_gb"] = round(line["refueled_gb"] + amount, 2)
        return {"refuel_result": f"{amount:g} GB was added to line {line['phone_number']}; ${cost:.2f} will be on your next bill."}
    return _once("refuel_data", idempotency_key, work)


def enable_roaming(line_id: str, customer_id: str | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
    """Turn roaming on for a line (no charge)."""
    def work() -> dict[str, Any]:
        line = _line_by_id(_owner(customer_id), line_id)
        line["roaming_enabled"] = True
        return {"roaming_result": f"Roaming is now enabled on line {line['phone_number']}."}
    return _once("enable_roaming", idempotency_key, work)


def transfer_to_human_agents(summary: str | None = None, phone_number: str | None = None,
                             customer_id: str | None = None, idempotency_key: str | None = None) -> dict[str, Any]:
    """Queue the conversation for a human agent with a note of where it stands."""
    def work() -> dict[str, Any]:
        _counter["transfer"] += 1
        note = summary or f"Caller needs help with line {phone_number or 'unknown'}."
        return {"transfer_ticket": f"HT-{_counter['transfer']:04d}", "transfer_note": note[:500]}
    return _once("transfer_to_human_agents", idempotency_key, work)


# --- the states benchmark tasks start from (conversation tests' `setup`) ---

def _main_line() -> dict[str, Any]:
    return next(line for line in _data()["lines"] if line["line_id"] == "L1002")


def setup_roaming_disabled() -> dict[str, Any]:
    """John Smith's line 555-123-2002 without roaming."""
    reset_state()
    with _lock:
        _main_line()["roaming_enabled"] = False
    return {}


def setup_data_exhausted() -> dict[str, Any]:
    """John Smith's line 555-123-2002 past its 15 GB allowance."""
    reset_state()
    with _lock:
        _main_line()["data_used_gb"] = 15.1
    return {}


def _suspend_for_unpaid_bill(contract_ended: bool) -> None:
    reset_state()
    with _lock:
        line, data = _main_line(), _data()
        price = _plan(line["plan_id"])["monthly_price"]
        data["bills"].append({"bill_id": "B1234321", "customer_id": "C1001", "period_start": "2025-01-01",
                              "period_end": "2025-01-31", "due_date": "2025-01-15", "total_due": price,
                              "status": "Overdue", "items": [{"description": "Charge for line L1002", "amount": price}]})
        next(c for c in data["customers"] if c["customer_id"] == "C1001")["bill_ids"].append("B1234321")
        line["status"], line["suspension_start_date"] = "Suspended", data["today"]
        if contract_ended:
            line["contract_end_date"] = "2025-01-31"


def setup_overdue_suspension() -> dict[str, Any]:
    """Line 555-123-2002 suspended for an unpaid $65.00 bill (B1234321)."""
    _suspend_for_unpaid_bill(contract_ended=False)
    return {}


def setup_contract_end_suspension() -> dict[str, Any]:
    """The same, and the line's contract ended on 2025-01-31."""
    _suspend_for_unpaid_bill(contract_ended=True)
    return {}
