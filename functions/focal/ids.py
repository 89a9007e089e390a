"""The identifiers the API, the models and the stores accept: one definition of each, always matched whole.

A pattern written `^…$` and applied with `re.match` also accepts a value followed by a newline ("c-100\\n"),
which a stricter check further on then refuses — a 500 instead of a 400. Every id check goes through
`IdFormat.matches` (a full match; focal.models.ids gives pydantic fields the same check); `pattern` is the
same rule for JSON Schema and API Gateway models, where `^…$` anchors the whole text. Standard library only:
the API Gateway authorizer imports it.
"""

from __future__ import annotations

import re


class IdFormat:
    def __init__(self, chars: str, max_length: int = 128):
        self.chars, self.max_length = chars, max_length
        self.body = f"{chars}{{1,{max_length}}}"
        self.pattern = f"^{self.body}$"  # JSON Schema (ECMA-262) and pydantic's Rust engine: the whole text
        self._regex = re.compile(self.body)
        self.rule = f"a string matching {self.pattern}"

    def matches(self, value: object) -> bool:
        return isinstance(value, str) and self._regex.fullmatch(value) is not None

    def check(self, value: str) -> str:
        """The value, or ValueError naming the rule (a pydantic after-validator)."""
        if not self.matches(value):
            raise ValueError(f"must be {self.rule}")
        return value


ID = IdFormat(r"[A-Za-z0-9_.:-]")  # tenant, agent, session, turn and approval ids
CUSTOMER_ID = IdFormat(r"[A-Za-z0-9_.:@-]")  # a customer id may also be an e-mail address
