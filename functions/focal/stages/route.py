"""Stage 3 — route: apply the rule filter, execute the commands on the flow stack, decide the move.

State (focal.models.turn): reads `sensor` (context, commands), `retrieve.candidates`, `session`, `profile`;
owns `route` (built anew each turn); moves the `session`'s flows and sets `confidence`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from focal.dialogue import rule_answers
from focal.dialogue.clarify import likely_scenarios
from focal.dialogue.commands import CommandRun, execute
from focal.dialogue.decision import apply_progress
from focal.dialogue.flow import progress
from focal.dialogue.notices import turn_language as conversation_language
from focal.dialogue.rule_filter import record_fires
from focal.models.agent import AgentConfig
from focal.models.context import Command
from focal.models.session import Offer
from focal.models.turn import RouteDecision, TurnState
from focal.retrieval.applicability import PURPOSE as APPLICABILITY
from focal.retrieval.applicability import model_applies
from focal.sensing import language, lexicon
from focal.sensing.handoff_reports import hands_off_at_once
from focal.sensing.inquiry import asks_anything, asks_for_its_own_sake, asks_to_act
from focal.sensing.offers import hold_values
from focal.sensing.person_request import asks_for_a_person
from focal.sensing.reading_language import reading_in
from focal.turn.deps import Deps
from focal.variables import known_variables


def _prefer_rule_answers(agent: AgentConfig, state: TurnState, notes: list[str]) -> list[Command]:
    """Outside a flow, a question a rule answers better than any flow fits is answered, not started.

    "How long does a rebooking take?" resembles the rebooking flow, but the rebooking-timing rule fits it
    better; an unmistakable request (score ≥ exit_intent_threshold) still starts its flow, and so does a statement
    that gives a value the flow collects ("Huele a gas en mi cocina" fills the problem the report flow asks about):
    it is that flow's request, whatever a rule on its topic says. A question stays the rule's, values or not ("How
    much did I pay for my booking PNR-41?"). A flow that hands off at once is a report's answer, never a rule's to
    replace (focal.sensing.handoff_reports): "I hurt my ankle at the club, what should I put on it?" gets the
    emergency text and a person, whatever the health rule says.
    """
    assert state.session is not None
    soft = [m for m in state.route.matched_rules if (r := agent.rule(m.rule_id)) and not r.is_hard_constraint]
    if state.session.active_scenario_id or not soft:
        return list(state.sensor.commands)
    best = max(soft, key=lambda m: m.score)
    asked = rule_answers.asks_about_rules(agent, state.sensor.context.message if state.sensor.context else "", state.sensor.commands)
    kept = []
    filled = _flows_given_values(state, asked)
    requested = _request_put_as_question(state)
    for cmd in state.sensor.commands:
        score = float(cmd.value) if isinstance(cmd.value, int | float) else 0.0
        if cmd.name == "StartFlow" and score < agent.navigation.exit_intent_threshold and cmd.flow not in filled \
                and (best.score > score or asked) and not requested and not hands_off_at_once(agent.scenario(cmd.flow)):
            notes.append(f"answered by rule {best.rule_id} ({best.score:.2f}) rather than starting {cmd.flow} ({score:.2f})")
            continue
        kept.append(cmd)
    return kept


def _request_put_as_question(state: TurnState) -> bool:
    """A question that asks to have something done and nothing for its own sake ("can I pause my membership?",
    "could you move my booking?"): the flow it fits does it, even when a rule on that topic resembles it more (the
    rule's own question "how long can I pause my membership?" asks to know). Read from the message's form
    (focal.sensing.inquiry), never from its topic."""
    message = state.sensor.context.message if state.sensor.context else ""
    return asks_anything(message) and asks_to_act(message) and not asks_for_its_own_sake(message)


def _flows_given_values(state: TurnState, asked: bool) -> set[str | None]:
    """The flows a statement gives a slot value of (none for a question: that stays a rule's to answer)."""
    message = state.sensor.context.message if state.sensor.context else ""
    if asked or lexicon.is_question(message):
        return set()
    return {c.flow for c in state.sensor.commands if c.name in ("SetSlot", "CorrectSlot") and c.value not in (None, "")}


def _left_to_rules(state: TurnState, commands: list[Command]) -> list[Command]:
    """A near tie between flows the sensor left for a rule to answer (focal.stages.sensor): a rule answered, and the
    choice it would have offered was never said; or none did, and the customer is asked which flow is meant."""
    session, context, decision = state.session, state.sensor.context, state.route.decision
    if session is None or context is None or not context.is_ambiguous or session.active_scenario_id:
        return commands
    if not any(c.name == "StartFlow" for c in commands):
        if session.offer is not None and session.offer.kind == "choose":
            session.offer = None
        return commands
    decision.action = "clarify"
    decision.notes.append(f"no rule answers it: ask which is meant ({context.ambiguity_reason})")
    return [c for c in commands if c.name != "StartFlow"]


def _stuck(state: TurnState, agent: AgentConfig, run_: CommandRun) -> bool:
    """Nothing in the message moves the flow and no rule answers it ("maybe" at a yes/no step).

    A reply to the confirmation that asks nothing ("yes, but with the upgrade") answers the agent's question,
    not a rule's, even when a rule shares its topic: it is asked again."""
    assert state.session is not None
    message = state.sensor.context.message if state.sensor.context else ""
    replied = (state.session.flow_state == "confirming" and lexicon.is_reply_word(message)
               and not lexicon.is_question(message))
    answered = not replied and any((r := agent.rule(m.rule_id)) and not r.is_hard_constraint for m in state.route.matched_rules)
    return (
        not run_.executed
        and not answered
        and state.route.decision.invalid_slot is None
        and state.session.flow_state in ("confirming", "waiting_for_slot")
    )


def _clarify_or_fall_back(state: TurnState, agent: AgentConfig) -> None:
    """Clarify with the step's hint up to `max_clarifications_per_step`, then `fallback_behavior`."""
    session, d, nav = state.session, state.route.decision, agent.navigation
    assert session is not None
    key = f"{session.active_scenario_id}.{session.active_step_id}"
    count = session.clarification_counts.get(key, 0)
    if count < nav.max_clarifications_per_step:
        session.clarification_counts[key] = count + 1
        d.action, d.scenario_id, d.step_id = "clarify_step", session.active_scenario_id, session.active_step_id
        d.notes.append(f"no way forward from {key}: clarification {count + 1} of {nav.max_clarifications_per_step}")
    elif nav.fallback_behavior == "escalate":
        d.action, d.scenario_id, d.step_id = "escalate", session.active_scenario_id, session.active_step_id
        d.notes.append(f"still stuck at {key} after {count} clarifications: escalated")
    else:
        d.notes.append(f"still stuck at {key} after {count} clarifications: staying at the step")
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))


def _count_invalid(state: TurnState, agent: AgentConfig) -> None:
    """An invalid value for the slot the step asks for is an attempt like any other: after
    `max_clarifications_per_step` of them `fallback_behavior: escalate` hands over (the retry is asked otherwise)."""
    session, d, nav = state.session, state.route.decision, agent.navigation
    assert session is not None
    key = f"{session.active_scenario_id}.{session.active_step_id}"
    count = session.clarification_counts.get(key, 0)
    if count >= nav.max_clarifications_per_step and nav.fallback_behavior == "escalate":
        d.action, d.scenario_id, d.step_id = "escalate", session.active_scenario_id, session.active_step_id
        d.notes.append(f"invalid {d.invalid_slot} again at {key} after {count} attempts: escalated")
        return
    session.clarification_counts[key] = count + 1
    d.notes.append(f"invalid {d.invalid_slot} at {key}: attempt {count + 1} of {nav.max_clarifications_per_step}")
    apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))


def _match_rules(state: TurnState, agent: AgentConfig, deps: Deps) -> str | None:
    """The rules that apply to the message (the applicability model has its say when it is on); a message in a
    language the agent does not speak keeps only the hard constraints. Returns that language, if any."""
    session, context, decision = state.session, state.sensor.context, state.route.decision
    assert session is not None and context is not None
    llm = deps.llm(agent, state)
    applies = (model_applies(llm, agent, context.message, state.model_calls, decision.notes)
               if agent.retrieval.model_filter and llm.available(APPLICABILITY) else None)
    state.route.matched_rules = rule_answers.matched_rules(agent, session, context.message, state.sensor.commands,
                                                           state.retrieve.candidates, decision.notes, applies)
    if (lang := language.noted(context.notes)) is not None:
        # a language the agent does not speak: no soft rule or flow is guessed from it (the composer says so)
        state.route.matched_rules = [m for m in state.route.matched_rules if (rule := agent.rule(m.rule_id)) and rule.is_hard_constraint]
        decision.action = "out_of_scope"
        decision.notes.append(f"message in {lang}, not in {', '.join(agent.languages)}: language notice")
    record_fires(session, state.route.matched_rules)
    return lang


def _report_alone(state: TurnState, agent: AgentConfig, commands: list[Command]) -> None:
    """A flow that hands off at once started: its text and the person answer the turn, so the soft rules' answers
    to the rest of the message are not said beside it ("I can freeze your membership" to an injured member); the
    hard constraints still check what is said."""
    if "StartFlow" not in state.route.decision.executed:
        return
    started = next((c.flow for c in commands if c.name == "StartFlow"), None)
    if not hands_off_at_once(agent.scenario(started)):
        return
    kept = [m for m in state.route.matched_rules if (r := agent.rule(m.rule_id)) is not None and r.is_hard_constraint]
    if len(kept) < len(state.route.matched_rules):
        state.route.decision.notes.append(f"{started} hands off at once: the soft rules' answers are left to the person")
        state.route.matched_rules = kept


def _clarify_or_out_of_scope(state: TurnState, agent: AgentConfig) -> None:
    """Outside a flow with no rule matched: ask when a scenario fits weakly (the question offers the likely
    scenarios), else out of scope."""
    session, context, decision = state.session, state.sensor.context, state.route.decision
    assert session is not None and context is not None
    weak = context.intent_scores[0] if context.intent_scores else None
    clarify = weak is not None and weak.score >= agent.navigation.clarify_floor and agent.feature_on("clarification")
    decision.action = "clarify" if clarify else "out_of_scope"
    if clarify and weak is not None:  # clarify implies weak is not None
        decision.notes.append(f"'{weak.label}' fits only weakly ({weak.score:.2f}): ask")
        options = [s.id for s in likely_scenarios(agent, context)]
        if options:  # the question is an offer: "yes", "the second one" or an option's name answers it
            session.offer = Offer(kind="choose", scenario_id=options[0], options=options)


def _takes_leave(state: TurnState, run_: CommandRun) -> bool:
    context = state.sensor.context
    return run_.executed == ["ChitChat"] and context is not None and "farewell" in context.courtesy_topics()


def _decide(state: TurnState, agent: AgentConfig, run_: CommandRun, lang: str | None) -> None:
    """The move once the commands ran: a final action stays, a flow moves on (or counts an invalid value, or
    clarifies when stuck), small talk is answered, and a message nothing answers is clarified or out of scope."""
    session, decision = state.session, state.route.decision
    assert session is not None
    if decision.action in ("escalate", "cancelled", "clarify", "declined", "already_done"):
        decision.scenario_id, decision.step_id = session.active_scenario_id, session.active_step_id
    elif session.active_scenario_id and _takes_leave(state, run_):
        # "thanks, bye" in the middle of a flow: said goodbye to, the flow kept where it is for their return
        decision.action = "chitchat"
        decision.scenario_id, decision.step_id = session.active_scenario_id, session.active_step_id
    elif session.active_scenario_id and decision.invalid_slot and not run_.executed:
        _count_invalid(state, agent)
    elif session.active_scenario_id and _stuck(state, agent, run_):
        _clarify_or_fall_back(state, agent)
    elif session.active_scenario_id:
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    elif "ChitChat" in run_.executed:
        decision.action = "chitchat"
    elif not state.route.matched_rules and lang is None:
        _clarify_or_out_of_scope(state, agent)


def _turn_confidence(state: TurnState) -> float:
    """In a flow (or one just completed) the intent's score, else the best matched rule's."""
    session, context, decision = state.session, state.sensor.context, state.route.decision
    assert session is not None and context is not None
    return round(
        context.intent_confidence if session.active_scenario_id or decision.completed_scenario_id
        else max((m.score for m in state.route.matched_rules), default=context.intent_confidence),
        4,
    )


def _own_handoff_rule(state: TurnState, agent: AgentConfig, deps: Deps) -> str | None:
    """A matched soft rule with a text of its own whose examples are heard asking for a person
    (focal.sensing.person_request): the agent's own words for a hand-off ("I'll pass this conversation to our team,
    who reply during opening hours"), as a flow whose entry examples ask for a person is its own way of handing over."""
    if deps.multilingual_embedder is None:
        return None
    for match in state.route.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule and not rule.is_hard_constraint and rule.response_template and rule.examples \
                and asks_for_a_person(deps.multilingual_embedder, tuple(rule.examples)):
            return rule.id
    return None


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    session, context = state.session, state.sensor.context
    assert session is not None and context is not None
    state.route.decision = decision = RouteDecision(intent_label=context.detected_intent, started_scenario_id=session.active_scenario_id,
                                              started_step_id=session.active_step_id)
    lang = _match_rules(state, agent, deps)
    commands = _left_to_rules(state, _prefer_rule_answers(agent, state, decision.notes))
    asked = session.offer if decision.action == "clarify" else None  # this turn's choice: not one left unanswered
    run_ = CommandRun(agent, session, context, decision)
    execute(run_, commands)
    session.offer = asked or session.offer
    decision.executed = list(run_.executed)
    _report_alone(state, agent, commands)
    _decide(state, agent, run_, lang)
    if decision.action == "escalate":
        decision.handoff_rule_id = _own_handoff_rule(state, agent, deps)
    if decision.action == "clarify" and session.offer is not None and not session.offer.values:
        with reading_in(conversation_language(state)):  # the offer this turn opened keeps the message's values
            hold_values(agent, session, context, datetime.fromtimestamp(deps.clock(), UTC).date())
    state.confidence = _turn_confidence(state)
    return state
