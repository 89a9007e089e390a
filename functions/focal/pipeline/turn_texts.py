"""A turn in the customer's language: every stage after the sensor sees the agent localized to the conversation's
language (focal.models.localized); persist says the engine's notices in it (focal.dialogue.notices)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from focal.dialogue.notices import turn_language
from focal.models.agent import AgentConfig
from focal.models.localized import localized
from focal.models.turn import TurnState
from focal.turn.deps import Deps


class LocalizedConfigs:
    """A config store whose agents speak `lang`: it reads agents through the store's own `get_agent` (the only
    method a stage calls on it), so the functions' roles stay derived from the code (infra port_access)."""

    def __init__(self, get_agent: Callable[[str, str], AgentConfig], lang: str):
        self._get_agent, self.lang = get_agent, lang

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        return localized(self._get_agent(tenant_id, agent_id), self.lang)


def for_turn(deps: Deps, state: TurnState) -> Deps:
    """The ports a stage of this turn runs with: the config store localized once the turn's language is known."""
    lang = turn_language(state)
    if not lang:  # each stage call wraps the handler's own store once (stage_io passes it unwrapped)
        return deps
    return replace(deps, configs=LocalizedConfigs(deps.configs.get_agent, lang))
