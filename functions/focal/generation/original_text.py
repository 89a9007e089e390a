"""The agent's own answer in the agent file's language, beside the one said in a translation.

A translated text commits to what its original commits to: "Ich zahle eine Kulanzzahlung von 80,00 €" is the
translation of "I'll pay a goodwill gesture of €80.00". The hard rules read an answer's promises with hints and amount
words of the file's language, which find nothing in the translation; so the same answer is composed again from the
untranslated agent, and enforce reads both (focal.enforcement.assess).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from focal.models.agent import AgentConfig
from focal.models.localized import original_of
from focal.models.turn import TurnState

Compose = Callable[[AgentConfig, TurnState, dict[str, Any]], str]


def in_original(agent: AgentConfig, state: TurnState, variables: dict[str, Any], write: Compose) -> str | None:
    """What `write` says with the agent's untranslated texts (None: the turn already speaks them). The route's
    notes the composer adds ("… not said: … unknown") are the localized answer's, kept once."""
    original = original_of(agent)
    if original is agent:
        return None
    notes = list(state.route.decision.notes)
    try:
        return write(original, state, variables)
    finally:
        state.route.decision.notes[:] = notes
