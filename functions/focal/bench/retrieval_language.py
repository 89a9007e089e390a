"""The turn's space for a labelled case of `focal bench retrieval`: the language the turn would read the message in.

A turn reads its language from the message among the agent's declared languages (focal.sensing.turn_language); a
message in another language than English, or any message to an agent whose texts are not English, is matched in the
multilingual space (focal.retrieval.multilingual), the rest in MiniLM's. The bench does the same, so a Spanish case
is measured where a Spanish turn is matched; without a multilingual embedder such a case fails, as the turn does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from focal.models.agent import AgentConfig
from focal.ports import Embedder, RuleIndex, ScopeFilter
from focal.retrieval.matching import RuleHit
from focal.retrieval.message_parts import search_message, search_with_parts
from focal.retrieval.multilingual import search_multilingual
from focal.sensing.spaces import multilingual_turn
from focal.sensing.turn_language import turn_language

TENANT = "bench"


@dataclass
class Spaces:
    """The English space (embedder and index) and, when given, the multilingual one."""

    embedder: Embedder
    index: RuleIndex
    multilingual_embedder: Embedder | None = None
    multilingual_index: RuleIndex | None = None
    indexed: dict[tuple[str, str], str] = field(default_factory=dict)


def case_language(agent: AgentConfig, message: str) -> str:
    """The language a first turn reads the message in."""
    return turn_language(agent, message, None)


def search_case(agent: AgentConfig, spaces: Spaces, scope: ScopeFilter, message: str, query: np.ndarray) -> list[RuleHit]:
    """The case's rule hits in the space its turn is matched in (the message and its parts, as the retrieve stage)."""
    lang = case_language(agent, message)
    if multilingual_turn(agent, lang):
        (whole,) = search_multilingual(spaces, TENANT, agent, scope, [message], lang)
        return search_with_parts(agent, message, whole,
                                 lambda parts: search_multilingual(spaces, TENANT, agent, scope, parts, lang))
    return search_message(agent, spaces.index, spaces.embedder, scope, message, query)
