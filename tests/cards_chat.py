"""One conversation with the shipped cards agent (a verified customer), each turn's generation draft scripted at the
provider boundary (or none: offline) — shared by the functional tests of model drafts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from focal.cli.conversation_tests import TENANT_ID, Conversation, _fresh_deps, start_conversation
from focal.config.loader import load_agent
from focal.models.turn import TurnRequest, TurnResult

CARDS = Path(__file__).resolve().parents[1] / "examples" / "cards" / "agent.yaml"


class CardsChat:
    def __init__(self, name: str, customer: str = "c-verified") -> None:
        """`customer`: c-verified (verified, card 1234) or c-unverified (card 5678)."""
        self.agent = load_agent(CARDS)
        self.deps = _fresh_deps(CARDS, None)
        conv = Conversation(name=name, turns=[], customer_id=customer, profile={"is_verified": customer == "c-verified"},
                            setup="tools.py:reset_state")
        self.runner = start_conversation(conv, self.agent, self.deps)
        self.session, self.n, self.customer = name, 0, customer

    def say(self, message: str, *drafts: str, reads: tuple[dict[str, Any], ...] = ()) -> TurnResult:
        """`reads`: the model's readings of the drafts' values (purpose `extract`), for what the offline reader leaves
        to a model — a draft in Spanish, say, whose yes/no the English hints cannot read."""
        self.n += 1
        model = self.deps.model
        model.clear()
        if drafts:
            model.script("generate", list(drafts))
        if reads:
            model.script("extract", [json.dumps(r) for r in reads])
        result = self.runner.turn(TurnRequest(tenant_id=TENANT_ID, agent_id=self.agent.id, session_id=self.session,
                                              customer_id=self.customer, turn_id=f"{self.session}-{self.n}", message=message))
        assert not model.queues.get("generate"), "a scripted draft was not used: the turn did not test what it says"
        return result

    def notes(self) -> list[str]:
        """The route's notes of the last turn, from its stored record."""
        records = self.deps.turns.list_for_session(TENANT_ID, self.agent.id, self.session)
        state: dict[str, Any] = next(r.state for r in records if r.turn_id == f"{self.session}-{self.n}")
        return list(state["route"]["decision"]["notes"])
