"""Stage 5 — generate: draft the answer, with the model when one is configured, else offline.

State (focal.models.turn): reads `route`, `sensor.context`, `retrieve.episodes`, `tools.tool_calls`, `enforce`
(the feedback of a regeneration, `report.own_words`), `session`, `profile`; owns `generate` (one draft appended
per run; `model_refused` once the model's answer was no draft: an echo, a loop, a prompt block — then no more
generation calls that turn, the offline composer drafts as with no model); sets `execution_path`,
`suggested_questions` and notes on `route.decision`.
"""

from __future__ import annotations

from typing import Any, Literal

from focal.dialogue.clarify import likely_scenarios, step_suggestions, suggestions
from focal.dialogue.notices import turn_language as conversation_language
from focal.enforcement.bindings import render_draft
from focal.enforcement.reading import expression_names
from focal.enforcement.repair import hopeless, rules_to_enforce, unraised
from focal.generation.offline import blocked_text, compose, fixed_text
from focal.generation.original_text import in_original
from focal.generation.prompt import generation_messages
from focal.generation.structured import commitment_schema, parse_draft
from focal.model_calls import call_model
from focal.models.agent import AgentConfig
from focal.models.turn import OUTPUT_CHECKS, Draft, TurnState
from focal.sensing.offers import MAX_OPTIONS
from focal.turn.budget import budget_spent
from focal.turn.deps import Deps
from focal.variables import known_variables, spoken

EXECUTION_PATHS = {
    "escalate": "escalate", "out_of_scope": "clarify", "tool_error": "fallback", "clarify": "clarify", "clarify_step": "clarify",
    "awaiting_approval": "approval", "clarify_action": "clarify", "action_rejected": "rejected",  # the approval gate
    "action_blocked": "rejected", "already_done": "rejected", "not_found": "rejected",
}


def commitment_names(agent: AgentConfig, state: TurnState) -> list[str]:
    """The response fields the hard rules in scope read: what a structured answer declares it commits to."""
    names = expression_names(rules_to_enforce(agent, state))
    return sorted(n for n in names if (f := agent.field(n)) is not None and "response" in f.sources and not f.privileged)


def _suggest(agent: AgentConfig, state: TurnState) -> None:
    """The questions a chat channel may offer as buttons after a clarification or an out-of-scope answer."""
    action, lang = state.route.decision.action, conversation_language(state)
    if action == "clarify":
        state.suggested_questions = suggestions(likely_scenarios(agent, state.sensor.context), agent, lang)
    elif action == "clarify_step":
        state.suggested_questions = step_suggestions(state)
    elif action == "out_of_scope":
        state.suggested_questions = suggestions(agent.scenarios[:MAX_OPTIONS], agent, lang)


def _said_as_written(agent: AgentConfig, state: TurnState) -> str | None:
    """Why this turn's draft is the agent's own words with no generation call (None: the model may write it)."""
    if (fixed := fixed_text(agent, state)) is not None:
        # Said as written: no model call, checked by enforce like any other draft (models.rephrase_fixed_texts).
        return f"no generation call ({fixed})"
    if state.enforce.report.own_words:
        return "the model's drafts failed: the agent's own words"
    return None


def _hopeless(agent: AgentConfig, state: TurnState, llm: Any, variables: dict[str, Any]) -> str | None:
    if llm.available("generate") and (blocker := hopeless(agent, rules_to_enforce(agent, state), variables)):
        # Whatever the model wrote, enforce would block it and answer with the fallback: no call.
        return f"no generation call: no answer can satisfy {blocker.id}"
    return None


def _composed(agent: AgentConfig, state: TurnState, variables: dict[str, Any], why: str) -> TurnState:
    state.route.decision.notes.append(why)
    state.generate.drafts.append(Draft(text=compose(agent, state, variables), source="offline",
                                       original_text=in_original(agent, state, variables, compose)))
    return state


def _model_draft(agent: AgentConfig, state: TurnState, llm: Any, variables: dict[str, Any]) -> bool:
    """The model's structured draft, placeholders rendered by the engine; False when it gave nothing usable."""
    names = commitment_names(agent, state)
    messages = generation_messages(agent, state, variables, names)
    reply, call = call_model(llm, "generate", messages, state.model_calls, json_schema=commitment_schema(agent, names))
    parsed = parse_draft(reply.text, state.request.message) if reply is not None else None
    if parsed is not None and parsed.problem is None:
        shown = render_draft(parsed.text, variables, parsed.commitments, names)
        committed = shown.commitments if parsed.structured else None
        state.generate.drafts.append(Draft(text=shown.text, source="model", commitments=committed, spans=shown.spans,
                                  bindings=shown.bound, unbound_placeholders=shown.unbound))
        state.route.decision.notes += parsed.notes
        return True
    if parsed is not None:
        call.ok, call.note = False, parsed.problem or "unusable answer"
        # A refused answer (an echo, a loop, a prompt block) is the model's, not the draft's: a regeneration's
        # feedback cannot fix it and a small model answers the same way again, so the turn asks no more drafts.
        state.generate.model_refused = call.note
    state.route.decision.notes.append(f"generation model gave no usable answer ({call.note or 'no reply'}); offline composer used")
    return False


def _offline_draft(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> Draft:
    """The composer's draft. After a rule's violation it says the violated rules' own texts: the agent's words,
    said as written — but after a model's draft nobody could check on rules the message did not raise, the turn's own
    offline answer, checked like any draft, as with no model (`repair.unraised`)."""
    if state.enforce.feedback and state.generate.drafts and unraised(state, state.generate.drafts[-1]):
        state.route.decision.notes.append("the model's draft could not be verified: the turn's offline answer instead")
        state.enforce.report.own_words = True
        state.enforce.feedback = []
    source: Literal["template", "offline"] = "template" if state.enforce.feedback else "offline"
    own = bool(state.enforce.feedback) and any(v.lane not in OUTPUT_CHECKS and agent.rule(v.rule_id) is not None
                                       for v in state.generate.drafts[-1].violations)
    return Draft(text=compose(agent, state, variables), source=source, agent_text=own,
                 original_text=in_original(agent, state, variables, compose))


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    variables = known_variables(agent, state.session, state.profile)
    said = spoken(agent, variables)  # what the customer reads: enum values by their labels
    state.execution_path = EXECUTION_PATHS.get(state.route.decision.action, "respond")  # type: ignore[assignment]
    _suggest(agent, state)
    if state.route.decision.action == "action_blocked":
        # The customer hears the guard's own words, never a model's paraphrase that might say "done".
        state.generate.drafts.append(Draft(text=blocked_text(agent, state, said), source="template", agent_text=True,
                                           original_text=in_original(agent, state, said, blocked_text)))
        return state
    if (why := _said_as_written(agent, state)) is not None:
        return _composed(agent, state, said, why)
    llm = deps.llm(agent, state)
    if (why := _hopeless(agent, state, llm, variables)) is not None:
        return _composed(agent, state, said, why)
    if state.generate.model_refused is not None:
        refused = state.generate.model_refused
        state.route.decision.notes.append(f"no generation call: the model's answer was refused this turn ({refused}); "
                                          "offline composer used")
    elif llm.available("generate"):
        if _model_draft(agent, state, llm, said):
            return state
    elif budget_spent(llm):
        state.route.decision.notes.append("time budget spent: offline composer used")
    state.generate.drafts.append(_offline_draft(agent, state, said))
    return state
