"""Stage 1 — sensor: load the conversation, pre-validate, understand the message.

Early exits (to persist): a message that fails pre-validation (rejected) and an ambiguous or
hypothetical one (clarify: no action is taken). Everything else goes on to retrieve.

State (focal.models.turn): reads `request`; owns `sensor`; loads `session` and `profile` and starts the
turn's `deadline`. Its early exits set the answer (`response`, `execution_path`, `confidence`,
`suggested_questions`), a clarification also `route.decision`'s action.
"""

from __future__ import annotations

import logging
import os
from datetime import UTC, datetime

import numpy as np

from focal.dialogue.clarify import (
    clarify_question,
    hypothetical_question,
    hypothetical_suggestions,
    likely_scenarios,
    suggestions,
)
from focal.dialogue.notices import turn_language as conversation_language
from focal.dialogue.ownership import FOREIGN_MESSAGE, FOREIGN_SESSION, ownership
from focal.dialogue.profile_migration import migrate_profile
from focal.enforcement.conditions import sensor_rules
from focal.models.agent import AgentConfig
from focal.models.context import Context, IntentScore
from focal.models.localized import localized
from focal.models.session import CustomerProfile, Offer, Session
from focal.models.turn import TurnState
from focal.ports import InjectionClassifier
from focal.retrieval.message_parts import message_parts
from focal.sensing.acts import MODEL_ONLY_YES, act_index, model_yes_doubt, offline_heard_yes
from focal.sensing.fast_path import ACT_COMMANDS, fast_path
from focal.sensing.handoff_reports import handoff_flows, with_reports
from focal.sensing.inquiry import asks_anything
from focal.sensing.model_sensor import model_sensor
from focal.sensing.offers import MAX_OPTIONS, hold_values
from focal.sensing.offline import offline_context
from focal.sensing.person_request import asks_for_a_person, person_request
from focal.sensing.prevalidation import blocking_failures, prevalidate, refusal_text, suggested_questions
from focal.sensing.provenance import from_customer
from focal.sensing.reading_language import reading_in
from focal.sensing.sensor_merge import merge_readings
from focal.sensing.spaces import LOAD_ERRORS, MultilingualSpaceUnavailable, embed_message, read_in_space
from focal.sensing.staff_words import GENERIC, agents_staff_words, said_generically
from focal.sensing.turn_language import ENGLISH, turn_language
from focal.turn.budget import budget_spent, start_budget
from focal.turn.deps import Deps
from focal.turn.idempotency import begin_turn

logger = logging.getLogger("focal.sensor")
PERSON_REQUEST = "person_request"  # degraded: an English turn read without the multilingual reading of a request for a person


def _load(state: TurnState, deps: Deps, agent: AgentConfig) -> tuple[Session, CustomerProfile] | None:
    """The session and its customer's profile; None when the session belongs to another customer."""
    r = state.request
    stored = deps.sessions.get(r.tenant_id, r.agent_id, r.session_id)
    owner = ownership(stored, r.customer_id)
    if owner == "foreign":
        return None
    session = stored or Session(
        tenant_id=r.tenant_id, agent_id=r.agent_id, session_id=r.session_id, customer_id=r.customer_id
    )
    if owner == "signed_in":  # signed in mid-conversation: their own profile from now on
        session.customer_id = r.customer_id
    profile = deps.profiles.get(r.tenant_id, r.agent_id, session.customer_id) or CustomerProfile(
        tenant_id=r.tenant_id, agent_id=r.agent_id, customer_id=session.customer_id,
        schema_version=agent.profile_schema_version,
    )
    migration = migrate_profile(profile, agent)  # an older schema is migrated on read; persist saves it
    state.sensor.profile_migration = migration.model_dump() if migration else None
    return session, profile


def _understand(state: TurnState, deps: Deps, agent: AgentConfig, text: str, vector: np.ndarray) -> Context:
    """The offline reading always; the model's, merged into it, only when the offline one is not sure enough."""
    assert state.session is not None
    lang = state.session.language
    space_notes: list[str] = []
    scores, multilingual = read_in_space(state.request.tenant_id, agent, lang, deps.embedder, vector,
                                         deps.multilingual_embedder, text, space_notes)
    scores = with_reports(agent, scores, _part_scores(state, deps, agent, text), space_notes)
    acts, heard = _act_readings(deps, agent, text, vector, multilingual, space_notes, state.degraded)
    if heard and (own := _own_handoff_flow(deps, agent, scores)) is not None:
        heard = None  # the agent's own flow for it starts by its intent, with its confirmation and transfer tool
        space_notes.append(f"request for a person left to the agent's own flow {own}")
    today = datetime.fromtimestamp(deps.clock(), UTC).date()  # "yesterday", "March 3": the turn's own date
    context = offline_context(agent, state.session, text, vector.tolist(), scores, acts, today=today, heard=heard)
    context.notes[:0] = space_notes
    context.fast_path, context.fast_path_reason = fast_path(agent, context, state.session)
    llm = deps.llm(agent, state)
    if not llm.available("sensor"):
        context.model_skipped = "time budget spent" if budget_spent(llm) else "no model configured"
        context.notes.append(f"{context.model_skipped}: offline sensor")
        return context
    in_flow = None if context.fast_path else decent_in_flow(agent, context, state.session)
    if context.fast_path or in_flow:
        where = f"fast path: {context.fast_path_reason}" if context.fast_path else \
            f"in {state.session.active_scenario_id}: {in_flow}"
        context.model_skipped = where
        context.notes.append(f"model call skipped ({where})")
        return context
    context.notes.append(f"model called: {context.fast_path_reason}")
    output, note = model_sensor(llm, agent, state.session, text, state.model_calls, sensor_rules(agent, state.session),
                                context)
    context.notes.append(note)
    if output is None:
        context.set_aside.append(note)  # asked, but no reading came of it
        return context
    merged = merge_readings(agent, state.session, text, context, output, today)
    merged.conditions = {c.rule_id: c.reading for c in output.conditions}
    if any(c.name == "AffirmConfirmation" for c in merged.commands):
        doubt = model_yes_doubt(text, context.notes)
        if doubt:  # "yes please, don't do it yet", "what is your policy on …?": whatever the model read, no yes
            merged.commands = [c for c in merged.commands if c.name != "AffirmConfirmation"]
            merged.notes.append(f"the model's yes set aside: {doubt}")
            merged.set_aside.append(f"the model's yes set aside: {doubt}")
        elif not offline_heard_yes(context.notes):
            merged.notes.append(MODEL_ONLY_YES)  # the gate weighs it as less certain (focal.dialogue.confidence)
    return merged


def _part_scores(state: TurnState, deps: Deps, agent: AgentConfig, text: str) -> list[list[IntentScore]]:
    """Each part's own intent scores, in the space the whole message is matched in, for an agent with a flow that
    hands off at once (focal.sensing.handoff_reports); none otherwise."""
    parts = message_parts(text) if handoff_flows(agent) else []
    if not parts:
        return []
    assert state.session is not None
    vectors = deps.embedder.embed(parts)
    return [read_in_space(state.request.tenant_id, agent, state.session.language, deps.embedder, v,
                          deps.multilingual_embedder, part, [])[0] for v, part in zip(vectors, parts, strict=True)]


def _act_readings(deps: Deps, agent: AgentConfig, text: str, vector: np.ndarray, multilingual: np.ndarray | None,
                  notes: list[str], degraded: list[str]) -> tuple[dict[str, float] | None, dict[str, str] | None]:
    """The English act exemplars' similarities (an English turn), and the acts heard by their meaning.

    The request for a person is read by its meaning in the multilingual space in every language, English included
    (focal.sensing.person_request): from the vector the intent match computed, or, for a turn matched in MiniLM's
    space, from its own multilingual vector; in the agent's own words for its people as well
    (focal.sensing.staff_words). The other acts: the English exemplars at `sensor.act_similarity`, or in
    the multilingual space the lexicon's word tables (focal.sensing.reply_words). An English turn whose multilingual
    reading cannot be made goes on without it (`degraded: ["person_request"]`, and a note): its intents, values and
    other acts are MiniLM's; a turn matched in the multilingual space has failed closed before (read_in_space)."""
    if not text:
        return None, None
    if multilingual is not None:
        assert deps.multilingual_embedder is not None  # read_in_space refused a turn without it
        how = person_request(deps.multilingual_embedder, multilingual) or _in_own_words(deps, agent, text)
        return None, ({"handoff": how} if how else None)
    similarities = act_index(deps.embedder).similarities(vector)
    try:
        vector_there = embed_message(deps.multilingual_embedder, [text], ENGLISH)[0]
        assert deps.multilingual_embedder is not None  # embed_message refused None
        how = person_request(deps.multilingual_embedder, vector_there) or _in_own_words(deps, agent, text)
    except (MultilingualSpaceUnavailable, *LOAD_ERRORS) as exc:
        logger.error("request for a person not read: multilingual model unavailable (%s)", type(exc).__name__)
        notes.append("request for a person not read: the multilingual model is unavailable")
        if PERSON_REQUEST not in degraded:
            degraded.append(PERSON_REQUEST)
        return similarities, None
    return similarities, ({"handoff": how} if how else None)


def _in_own_words(deps: Deps, agent: AgentConfig, text: str) -> str | None:
    """How the message was heard asking for a person once the agent's own words for its people are said as "staff"
    ("Could I speak to one of the mechanics?"), or None."""
    embedder = deps.multilingual_embedder
    assert embedder is not None
    said = said_generically(text, agents_staff_words(embedder, agent))
    how = person_request(embedder, embed_message(embedder, [said], None)[0]) if said else None
    return f"{how}, its word for the agent's people said as {GENERIC!r}" if how else None


def _own_handoff_flow(deps: Deps, agent: AgentConfig, scores: list[IntentScore]) -> str | None:
    """The scenario the message starts (its best intent, at or above the entry threshold) when that scenario is the
    agent's own hand-off: one of its entry examples is heard asking for a person (focal.sensing.person_request)."""
    top = scores[0] if scores else None
    scenario = agent.scenario(top.scenario_id) if top and top.score >= agent.navigation.entry_threshold else None
    if scenario is None or deps.multilingual_embedder is None:
        return None
    return scenario.id if asks_for_a_person(deps.multilingual_embedder, tuple(scenario.entry_examples)) else None


def decent_in_flow(agent: AgentConfig, context: Context, session: Session) -> str | None:
    """Why a model call would add nothing in the active flow (None: it may): the offline reading filled a
    slot, heard a dialogue act, or placed an intent at or above the fast path."""
    if not session.active_scenario_id or context.is_ambiguous:
        return None
    names = {c.name for c in context.commands}
    acts = sorted(names & set(ACT_COMMANDS))
    if acts:
        return f"dialogue act {acts[0]}"
    filled = sorted({c.slot or "" for c in context.commands if c.name in ("SetSlot", "CorrectSlot")})
    if filled:
        return f"slot {', '.join(filled)} filled"
    if context.intent_confidence >= agent.sensor.fast_path_confidence:
        return f"intent scored {context.intent_confidence:.2f}"
    return None


def _clarify(state: TurnState, agent: AgentConfig, context: Context) -> None:
    """Early exit: ask before anything happens. A hypothetical gets a targeted yes/no question."""
    assert state.session is not None
    hypothetical = next((c for c in context.commands if c.name == "Clarify" and c.topic == "hypothetical"), None)
    scenario = agent.scenario(hypothetical.flow) if hypothetical else None
    if scenario is not None:
        state.response = hypothetical_question(scenario)
        state.suggested_questions = hypothetical_suggestions(scenario)
        state.session.offer = Offer(kind="start", scenario_id=scenario.id)
    else:
        options = likely_scenarios(agent, context)
        state.suggested_questions = suggestions(options, agent, conversation_language(state))
        state.response = clarify_question(options)
    state.route.decision.action = "clarify"
    state.route.decision.intent_label = context.detected_intent
    state.execution_path = "clarify"
    state.confidence = round(context.intent_confidence, 4)
    state.control.next = "persist"


def _rules_may_answer(agent: AgentConfig, session: Session, context: Context) -> bool:
    """A near tie between flows on a question, outside a flow: a rule may answer it ("do I need receipts for my
    claim?" is near both the filing and the status flows), so retrieve and route run; route answers with a rule
    that fits better than the flows, else asks which flow is meant (stages.route `_left_to_rules`)."""
    hypothetical = any(c.name == "Clarify" and c.topic == "hypothetical" for c in context.commands)
    return (not session.active_scenario_id and not hypothetical and any(not r.is_hard_constraint for r in agent.rules)
            and asks_anything(context.message))


def _refuse_foreign(state: TurnState) -> None:
    """Early exit: another customer's session. Nothing of it is loaded, run or written."""
    state.sensor.foreign_session = True
    state.refuse_early(FOREIGN_SESSION, FOREIGN_MESSAGE)


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)  # its turn budget sets the claim's lease
    if begin_turn(state, deps.idempotency, agent, deps.clock()):
        return state  # a repeated turn id: answered from the idempotency store, nothing runs
    start_budget(state, agent, deps.clock)  # the turn's model budget runs from here (focal.turn.budget)
    loaded = _load(state, deps, agent)
    if loaded is None:
        _refuse_foreign(state)
        return state
    state.session, state.profile = loaded
    text = r.message.strip()
    state.session.language = turn_language(agent, text, conversation_language(state))
    agent = localized(agent, conversation_language(state))  # the agent's texts in the customer's language
    vector = deps.embedder.embed([text])[0] if text else np.zeros(deps.embedder.dimension, dtype=np.float32)

    if agent.feature_on("pre_validation"):
        state.sensor.prevalidation = prevalidate(
            agent, r.message, vector if text else None, deps.embedder, state.session, _classifier(deps, agent),
            multilingual=deps.multilingual_embedder, lang=conversation_language(state),
        )
        failed = blocking_failures(state.sensor.prevalidation)
        if failed:
            # Refused and audited: the turn record keeps every check and its reason, not the text.
            state.sensor.context = Context(message=text[:200], notes=[f"pre-validation failed: {c.name}" for c in failed])
            state.response = refusal_text(agent, failed)  # what was wrong and what to do, never the text
            state.execution_path = "rejected"
            state.confidence = 0.0
            state.control.next = "persist"
            return state

    with reading_in(conversation_language(state)):  # dates and figures as the customer's language writes them
        state.sensor.context = context = from_customer(agent, _understand(state, deps, agent, text, vector))
    state.sensor.commands = list(context.commands)
    if context.is_ambiguous and agent.feature_on("clarification") and not _rules_may_answer(agent, state.session, context):
        _clarify(state, agent, context)
        with reading_in(conversation_language(state)):
            hold_values(agent, state.session, context, datetime.fromtimestamp(deps.clock(), UTC).date())
    elif not context.commands and (questions := suggested_questions(agent, state.sensor.prevalidation)):
        # "do the same as before" in a new conversation: nothing to act on, ask what is meant
        state.response = questions[0]
        state.suggested_questions = suggestions(agent.scenarios[:MAX_OPTIONS], agent, conversation_language(state))
        state.route.decision.action = "clarify"
        state.execution_path = "clarify"
        state.confidence = round(context.intent_confidence, 4)
        state.control.next = "persist"
    return state


def _classifier(deps: Deps, agent: AgentConfig) -> InjectionClassifier | None:
    folder = agent.pre_validation.injection_classifier_dir
    if not folder or deps.injection_classifier is None:
        return None
    if agent.base_dir and not os.path.isabs(folder):
        folder = os.path.join(agent.base_dir, folder)
    return deps.injection_classifier(folder)
