"""A turn in the customer's language: every stage after the sensor sees the agent localized to the conversation's
language (focal.models.localized); persist says the engine's notices in it (focal.dialogue.notices)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from focal.dialogue.notices import turn_language
from focal.models.agent import AgentConfig
from focal.models.localized import localized
from focal.models.turn import TurnState
from focal.turn.deps import Deps


class LocalizedConfigs:
    """A config store whose agents speak `lang`; everything else is the store's own."""

    def __init__(self, inner: Any, lang: str):
        self.inner, self.lang = inner, lang

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        return localized(self.inner.get_agent(tenant_id, agent_id), self.lang)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def for_turn(deps: Deps, state: TurnState) -> Deps:
    """The ports a stage of this turn runs with: the config store localized once the turn's language is known."""
    lang = turn_language(state)
    if not lang or isinstance(deps.configs, LocalizedConfigs):
        return deps
    return replace(deps, configs=LocalizedConfigs(deps.configs, lang))
