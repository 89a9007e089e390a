"""Whether a draft still puts the step's offer to the customer: it asks a question and shows every value the
confirmation prompt shows (what the action will run with).

After an earlier draft of the turn was blocked, the confirmation stays open only when the compliant draft
shows the offer itself — a blocked apology or tone (a judge's verdict, a competitor named) is repaired by a
draft that asks the same question with the same values, and the customer's "yes" then answers that question.
A draft that shows another amount ("$50" for a $75 offer), leaves a value out, or asks nothing withdraws the
confirmation as before: no "yes" may run an action the customer was not shown. Values are compared as written:
numbers by value ("$35", "35.00") or as the turn's language writes them ("12 345,50"), text case-insensitively as
whole words; a yes/no is never taken as shown, nor a date worded otherwise than the engine writes it ("2027-03-03",
"3 mars 2027" in French): worded in too many ways, such an offer is withdrawn.
"""

from __future__ import annotations

import re
from typing import Any

from focal.dialogue.confidence import written_in
from focal.models.agent import Step
from focal.variables import placeholders

_NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?")


def shown(value: Any, text: str) -> bool:
    """The value written in `text`: a number by value, a text case-insensitively as whole words; never a yes/no."""
    if isinstance(value, bool) or value in (None, ""):
        return False
    if isinstance(value, int | float) and any(abs(float(n.replace(",", "")) - float(value)) < 0.005
                                              for n in _NUMBER.findall(text)):
        return True
    return written_in(value, [text])  # also as the turn's language writes it: "12 345,50", "3 mars 2027"


def offer_shown(step: Step | None, variables: dict[str, Any], draft: str, said: dict[str, Any] | None = None) -> bool:
    """The draft asks the customer and shows each value of the step's confirmation prompt, as stored or as the
    customer is told it (`said`: an enum value by its label, dialogue.variables.spoken)."""
    if step is None or not step.requires_confirmation or "?" not in draft:
        return False
    names = placeholders(step.confirmation_prompt or "")
    said = said or {}
    return all(shown(variables.get(name), draft) or shown(said.get(name), draft) for name in names)
