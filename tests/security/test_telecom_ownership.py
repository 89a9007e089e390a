"""The telecom example acts only for the signed-in customer: a phone number, a line or a bill of another customer
is answered like an unknown one, an anonymous caller finds and changes nothing, a payment needs a payment
request first, and a repeated idempotency key changes nothing twice. The tools are called as the engine calls
them (in the tool worker, with the authenticated `customer_id`, never a value from the conversation)."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_tools import ExampleTools

AGENT = Path(__file__).resolve().parents[2] / "examples" / "telecom" / "agent.yaml"
JOHN, SARAH = "C1001", "C1002"
JOHN_LINE, SARAH_LINE = ("L1002", "555-123-2002"), ("L1004", "555-123-2004")
ANONYMOUS = ("anonymous", "")

TOOLS = ExampleTools(AGENT)
state, run, refusal = TOOLS.state, TOOLS.run, TOOLS.refusal


@pytest.fixture(autouse=True)
def fresh_tools():
    state("reset_state")
    yield
    state("reset_state")


def test_another_customers_number_identifies_nobody_and_shows_no_line():
    assert run("find_customer", {"phone_number": JOHN_LINE[1]}, JOHN)["customer_identified"] is True
    assert run("find_customer", {"phone_number": SARAH_LINE[1]}, JOHN) == {
        "customer_identified": False, "account_holder": None, "account_status": None}
    line = run("line_details", {"phone_number": SARAH_LINE[1]}, JOHN)
    assert line["line_found"] is False and line["line_id"] is None and line["plan_name"] is None


@pytest.mark.parametrize("nobody", ANONYMOUS)
def test_an_anonymous_caller_finds_nothing(nobody):
    assert run("find_customer", {"phone_number": JOHN_LINE[1]}, nobody)["customer_identified"] is False
    assert run("line_details", {"phone_number": JOHN_LINE[1]}, nobody)["line_found"] is False
    assert run("billing_summary", {}, nobody)["overdue_count"] == 0
    assert refusal("enable_roaming", {"line_id": JOHN_LINE[0]}, nobody, "k-anon").endswith("no account is signed in")


def test_no_change_reaches_another_customers_line_or_bill():
    assert "no line 'L1004'" in refusal("refuel_data", {"line_id": SARAH_LINE[0], "gb_amount": 1}, JOHN, "k1")
    assert "no line 'L1004'" in refusal("enable_roaming", {"line_id": SARAH_LINE[0]}, JOHN, "k2")
    assert "no bill 'B1005'" in refusal("send_payment_request", {"bill_id": "B1005"}, JOHN, "k3")
    assert run("billing_summary", {}, SARAH)["overdue_bill_ids"] == "B1005"  # Sarah's bill is still overdue


def test_a_payment_needs_a_payment_request_and_a_key_pays_once():
    assert "no payment request" in refusal("make_payment", {"bill_id": "B1005"}, SARAH, "k1")
    run("send_payment_request", {"bill_id": "B1005"}, SARAH, "k2")
    first = run("make_payment", {"bill_id": "B1005"}, SARAH, "k3")
    assert run("make_payment", {"bill_id": "B1005"}, SARAH, "k3") == first  # the same key: the first result
    assert run("bill_status", {"bill_id": "B1005"}, SARAH)["bill_status"] == "Paid"


def test_a_repeated_key_adds_data_once():
    run("refuel_data", {"line_id": JOHN_LINE[0], "gb_amount": 2}, JOHN, "k1")
    run("refuel_data", {"line_id": JOHN_LINE[0], "gb_amount": 2}, JOHN, "k1")
    assert run("line_details", {"phone_number": JOHN_LINE[1]}, JOHN)["data_left_gb"] == pytest.approx(15 + 2 - 8.7)
