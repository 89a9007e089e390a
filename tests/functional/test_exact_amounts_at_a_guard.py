"""An amount read exactly is decided by its guard, even just under the limit (focal.dialogue.confidence). Found by the
gym desk a newcomer wrote (session 13, tests/data/newcomer_gym): "Refund at most 40 euros without a manager's approval"
(refund_guard: charge_amount <= 40), and €35 the member typed went to approval after a clear yes — 12 % of the limit
left scaled the risk factor down (confidence 0.81 < 0.85). The amount is in the member's own words, so the guard's
comparison is the decision; an amount no one wrote or returned keeps the doubt near a limit
(tests/unit/test_confidence.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_gym"
AGENT, TOOLS = (DESK / "agent.yaml").read_text(), (DESK / "tools.py").read_text()


@pytest.mark.parametrize(("opening", "amount", "yes"), [
    ("There's a charge I don't recognise", "35 euros", "yes please"),
    ("Da ist eine Abbuchung, die ich nicht kenne", "35 Euro", "ja bitte"),
])
def test_a_typed_amount_under_the_guards_limit_is_refunded_after_a_clear_yes(tmp_path: Path, opening: str, amount: str,
                                                                              yes: str):
    passes(tmp_path, AGENT, TOOLS, [
        {"user": opening},
        {"user": "GM550017"},
        {"user": "69003"},
        {"user": "23 November 1978" if opening.startswith("There") else "23. November 1978",
         "expect": {"step": "ask_charge"}},
        {"user": amount, "expect": {"step": "confirm", "response_contains": "35"}},
        {"user": yes, "expect": {"execution_path": "respond",
                                 "tool_calls": [{"refund_charge": {"member_number": "GM550017", "charge_amount": 35}}]}},
    ])
