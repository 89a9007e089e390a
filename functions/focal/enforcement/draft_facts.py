"""What in a turn's draft no source supports (the output check `unbound`, run on every draft by the enforce stage):
placeholders naming nothing known, facts from no known value (focal.enforcement.facts), and the agent's figures said
for another fact than the one its texts state them for (focal.enforcement.figure_context)."""

from __future__ import annotations

from focal.enforcement.facts import DeclaredFigure, agent_declared_texts, build_sources, unbound_facts
from focal.enforcement.figure_context import figure_problems
from focal.models.agent import AgentConfig
from focal.models.turn import Draft, TurnState
from focal.ports import Embedder
from focal.variables import known_variables


def fact_problems(agent: AgentConfig, state: TurnState, draft: Draft, english: Embedder | None = None,
                  multilingual: Embedder | None = None) -> list[str]:
    """Why `draft` cannot be said as it is, one reason per fact; a model's figure from the agent's texts is read in
    context with `english` (MiniLM) or `multilingual` (the draft's language) — none: it cannot be tied, so blocked."""
    history = state.session.history if state.session is not None else []
    # the values the rule lanes settled for this draft (a promise the reader read and the rules allow) are its own
    known = {**known_variables(agent, state.session, state.profile), **draft.variables}
    typed = [state.request.message, *(h.text for h in history if h.role == "user")]
    own = [*(state.session.slots.values() if state.session else []), *(state.profile.fields.values() if state.profile else [])]
    checked = [h.text for h in history if h.role != "user"]  # answers already checked and sent
    texts = agent_declared_texts(agent)
    src = build_sources(texts, known, typed + checked, own)
    declared: list[DeclaredFigure] = []
    found = unbound_facts(draft.text, src, draft.spans, contacts_only=draft.source != "model", languages=agent.languages,
                          declared=declared)
    problems = [f"{{{name}}} names no known value" for name in draft.unbound_placeholders]
    problems += [f"{u.kind} {u.text!r} comes from no known value, the customer or the agent's texts" for u in found]
    lang = state.session.language if state.session is not None else None
    return problems + figure_problems(agent, texts, declared, lang, english, multilingual)
