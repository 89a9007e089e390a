"""Building what an agent's first turn would build: its rule index, its intent index, the dialogue-act index, the
request for a person in the multilingual space (and the agent's own words for its people), the pre-validation exemplars
(with the agent's own), the injection classifier's data and the refusal texts the answer checks compare with.

`focal test` calls it before the first conversation, so the start-up is paid (and measured) once and not
inside the first conversation's first turn. With an embedder that keeps vectors on disk
(focal.adapters.vector_cache), a second run reads them instead of embedding.
"""

from __future__ import annotations

from focal.enforcement.relevance_refusal import warm_refusals
from focal.models.agent import AgentConfig
from focal.retrieval.rules import ensure_indexed
from focal.sensing.acts import act_index
from focal.sensing.injection_classifier import shipped_classifier
from focal.sensing.injection_exemplars import exemplar_index
from focal.sensing.intents import intent_index
from focal.sensing.person_request import person_index
from focal.sensing.spaces import LOAD_ERRORS
from focal.sensing.staff_words import agents_staff_words
from focal.turn.deps import Deps


def warm_agent(deps: Deps, tenant_id: str, agent: AgentConfig) -> None:
    ensure_indexed(deps, tenant_id, agent)
    intent_index(tenant_id, agent, deps.embedder)
    act_index(deps.embedder)
    if deps.multilingual_embedder is not None:
        try:  # the request for a person, in every language (a missing model is said by the turn that needs it)
            person_index(deps.multilingual_embedder)
            agents_staff_words(deps.multilingual_embedder, agent)
        except LOAD_ERRORS:
            pass
    pre = agent.pre_validation
    if agent.feature_on("pre_validation") and pre.check_injection:
        exemplar_index(deps.embedder, pre.extra_attack_exemplars, pre.extra_ordinary_exemplars)
        shipped_classifier().check_embedder(deps.embedder)  # unreadable data or another model: fail at start
    warm_refusals(agent, deps.embedder)
