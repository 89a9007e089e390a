"""Abusive or angry wording, recognised offline so the answer acknowledges it before acting.

The insults and swear words say nothing about what the customer wants, but they pull the message's
vector away from every scenario's examples; an abusive message is therefore read with a lower bar
for its request (`clarify_floor` instead of `entry_threshold`), and answered with an acknowledgement
first. Generic English words only; an agent in another language brings its own model."""

from __future__ import annotations

import re

from focal.models.engine_texts import english

ABUSE = re.compile(
    r"\b(stupid|idiot(ic|s)?|useless|dumb|moron(ic|s)?|pathetic|incompetent|worthless|garbage|trash|rubbish|"
    r"crap(py)?|shit(ty)?|damn(ed)?|f+u+c+k\w*|bloody|wtf|sucks?|hate (you|this)|ridiculous|joke of a)\b",
    re.IGNORECASE,
)
NOTE = "tone: abusive or angry wording (acknowledged before acting)"
ACKNOWLEDGE = english("frustration")


def abusive(text: str) -> bool:
    return bool(ABUSE.search(text))
