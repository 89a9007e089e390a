"""The offline composer: deterministic answers from the agent's own texts, no model.

It says what the route decided (the slot prompt, the confirmation prompt, the finished step's
template) after the templates of the soft rules that matched, with `{variables}` filled in. On a
regeneration it says the violated rules' own compliant texts instead (after a relevance or grounding
violation only: the ordinary offline answer).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from focal.dialogue.action_outcome import failure_texts
from focal.dialogue.clarify import clarify_question, likely_scenarios, question_to_ask, step_clarification
from focal.dialogue.resolution import ask_prompt
from focal.enforcement.guards import unverified
from focal.models.agent import AgentConfig, Step
from focal.models.engine_texts import english
from focal.models.turn import OUTPUT_CHECKS, GuardVerdict, TurnState
from focal.sensing import language, lexicon, tone
from focal.sensing.acts import only_asks
from focal.variables import render, unknown

MAX_RULE_PARTS = 2
ANYTHING_ELSE = english("anything_else")
FAREWELL = english("farewell")
WELCOME = english("welcome")
ESCALATE = english("handoff")
# The request id travels in the result's `approval` object, not in the text (an id is no claim to check).
AWAITING_APPROVAL = english("awaiting_approval")
CLARIFY_ACTION = english("clarify_action")
ACTION_REJECTED = english("action_rejected")
NOT_FOUND = english("not_found")
NOT_FOUND_NAMED = english("not_found_named")
ALREADY_DONE = english("already_done")
# "It looks like B-123" in a prompt reads as a guess at the customer's value: said as an example instead.
_GUESS = re.compile(r"\b(it|this|that) (looks|seems|appears)( to be)? like\s+", re.IGNORECASE)
NOT_UNDERSTOOD = english("not_understood")
UNPLACED_REPLY = english("unplaced_reply")
TOOL_ERROR = english("tool_error")


def _said(state: TurnState, what: str, text: str, variables: dict[str, Any]) -> str | None:
    """`text` filled in, or None (and a trace note) when one of its values is unknown."""
    missing = unknown(text, variables)
    if missing:
        state.route.decision.notes.append(f"{what} not said: {', '.join(missing)} unknown")
        return None
    return render(text, variables)


def as_example(prompt: str) -> str:
    """A prompt's example value is said as an example, never as if it were the customer's own."""
    return _GUESS.sub(lambda m: "For example: " if m.group(0)[0].isupper() else "for example ", prompt)


def _rule_parts(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> list[str]:
    parts = []
    for match in state.route.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule and not rule.is_hard_constraint and rule.response_template:
            if (text := _said(state, f"rule {rule.id}", rule.response_template, variables)) is not None:
                parts.append(text)
    return parts[:MAX_RULE_PARTS if state.route.decision.action in ("respond", "out_of_scope", "chitchat") else 1]


def _resume(agent: AgentConfig, scenario_id: str | None) -> list[str]:
    scenario = agent.scenario(scenario_id)
    return [english("resume_offer").replace("{name}", scenario.name)] if scenario else []


def _stopped(agent: AgentConfig, scenario_id: str | None) -> str:
    scenario = agent.scenario(scenario_id)
    return english("stopped_named").replace("{name}", scenario.name) if scenario else english("stopped")


def _compliant_texts(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> list[str]:
    """What the violated rules say instead (their template, else their fallback, else the agent's).

    Output-check violations (relevance, grounding, internals) name no rule: they add nothing here, and a draft
    that failed only those is replaced by the ordinary offline answer below — the route's own
    templates, relevant and grounded by construction."""
    texts: list[str] = []
    for violation in state.generate.drafts[-1].violations:
        rule = agent.rule(violation.rule_id)
        if violation.lane in OUTPUT_CHECKS or rule is None:
            continue  # an output check or a default check: the ordinary offline answer below
        text = (rule.response_template or rule.fallback_text) if rule else None
        text = render(text or agent.enforcement.fallback_message, variables)
        if text not in texts:
            texts.append(text)
    return texts


def speaking_rank(agent: AgentConfig, verdict: GuardVerdict) -> tuple[bool, int, int]:
    """A guard that failed on known values before one that could not be decided; then the higher `priority`;
    then the sequence the agent declares its rules in (a verdict of no rule of the agent's, deny-by-default, last)."""
    rule = agent.rule(verdict.rule_id)
    index = next((i for i, r in enumerate(agent.rules) if r.id == verdict.rule_id), len(agent.rules))
    return unverified(verdict), -(rule.priority if rule else 0), index


def speaking_guard(agent: AgentConfig, state: TurnState) -> str | None:
    """The one guard whose text the customer hears when several stopped the turn's actions (all of them stay in
    `blocked_by`, the trace and the turn record)."""
    stopped_by = state.route.decision.blocked_by  # the guards that stopped an action (not a look-up of the resolution)
    failed = [v for c in state.tools.tool_calls if c.status == "blocked" for v in c.guards
              if not v.passed and v.rule_id in stopped_by]
    if failed:
        return min(failed, key=lambda v: speaking_rank(agent, v)).rule_id
    return stopped_by[0] if stopped_by else None


def blocked_text(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    """One message: the speaking guard's own text (its template, else its fallback) — never several guards' texts
    run together; the engine's notice when no rule of the agent's stopped it."""
    rule = agent.rule(speaking_guard(agent, state) or "")
    text = (rule.response_template or rule.fallback_text or rule.action_text) if rule else ACTION_REJECTED
    return render(text, variables)


# Decisions whose answer is fully given by the agent's own texts (or the engine's fixed notices).
# Not out_of_scope or clarify: a question outside the flows, or one the route could not place, is the
# model's to answer (within the rules, checked by enforce).
FIXED_TEXT_ACTIONS = ("ask_slot", "clarify_step", "clarify_action", "escalate", "tool_error",
                      "awaiting_approval", "action_rejected", "cancelled", "declined", "already_done", "not_found")


def fixed_text(agent: AgentConfig, state: TurnState) -> str | None:
    """Why this turn's answer is the composer's, word for word, with no model wording it (None: it is not).

    The route's decision must be one the agent's texts answer completely, and every soft rule that
    matched must have a template of its own (a rule without one needs the model to apply its action)."""
    d = state.route.decision
    if agent.models.rephrase_fixed_texts or state.enforce.feedback or d.action not in FIXED_TEXT_ACTIONS:
        return None
    for match in state.route.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule is not None and not rule.is_hard_constraint and not rule.response_template:
            return None
    return f"{d.action}: the agent's own text"


def compose(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    notes = state.sensor.context.notes if state.sensor.context else []
    if (lang := language.noted(notes)) is not None:
        return language.notice(lang, agent.languages)
    text = _compose(agent, state, variables)
    if tone.NOTE in notes and state.route.decision.action not in ("escalate",):
        text = f"{tone.ACKNOWLEDGE} {text}"  # acknowledged, then the request is acted on
    return text


def _ask_confirmation(agent: AgentConfig, state: TurnState, step: Step, variables: dict[str, Any]) -> list[str]:
    return _step_text(state, f"confirmation of {step.id}", question_to_ask(agent, step, state.sensor.context), variables)


def _step_text(state: TurnState, what: str, text: str, variables: dict[str, Any]) -> list[str]:
    said = _said(state, what, text, variables)
    return [said] if said is not None else [NOT_FOUND]


@dataclass
class _Turn:
    """What every part of the offline answer may read."""

    agent: AgentConfig
    state: TurnState
    step: Step | None
    rules: list[str]  # the matched soft rules' templates, said first
    variables: dict[str, Any]


# One composer per route decision: the parts of the answer, or None when the decision has no answer of its own
# here (a confirmation with no step, say): then the rules' texts, else the agent's out-of-scope message.
_Parts = Callable[[_Turn], "list[str] | None"]


def _fixed(*texts: str) -> _Parts:
    return lambda t: list(texts)


def _clarify_action(t: _Turn) -> list[str]:
    return [CLARIFY_ACTION] + t.state.suggested_questions[:2]


def _already_done(t: _Turn) -> list[str]:
    """Already done, then what the flow still waits for, so a "yes" answers that question."""
    session = t.state.session
    waiting = t.step is not None and t.step.requires_confirmation and session is not None \
        and session.flow_state == "confirming"
    return [ALREADY_DONE] + (_ask_confirmation(t.agent, t.state, t.step, t.variables) if waiting and t.step else [])


def _not_found(t: _Turn) -> list[str]:
    """What the look-up did not find, then any interrupted flow offered back."""
    d = t.state.route.decision
    said = NOT_FOUND_NAMED.replace("{what}", d.not_found or english("what_you_asked_about"))
    return [said] + (_resume(t.agent, d.resume_offered_id) or [ANYTHING_ELSE])


def _blocked(t: _Turn) -> list[str]:
    return [blocked_text(t.agent, t.state, t.variables)]


def _cancelled(t: _Turn) -> list[str]:
    d = t.state.route.decision
    return [_stopped(t.agent, d.cancelled_scenario_id)] + (_resume(t.agent, d.resume_offered_id) or [ANYTHING_ELSE])


def _ask_slot(t: _Turn) -> list[str]:
    d = t.state.route.decision
    if t.step is None:  # a variable the resolution loop could not find (dialogue/resolution.py)
        return [ask_prompt(t.agent, d.asked_slot, t.variables)]
    slot = next((s for s in t.step.slots if s.name == d.asked_slot), None)
    retry = [english("invalid_value")] if d.invalid_slot else []
    return t.rules + retry + ([as_example(render(slot.prompt, t.variables))] if slot else [])


def _confirm(t: _Turn) -> list[str] | None:
    return t.rules + _ask_confirmation(t.agent, t.state, t.step, t.variables) if t.step else None


def _complete(t: _Turn) -> list[str] | None:
    """A step's `instructions` are for the model, never said; a finished step with no template of its own says
    nothing it did not do, and never nothing at all."""
    step = t.step
    if step is None:
        return None
    said = _step_text(t.state, f"template of {step.id}", step.response_template, t.variables) if step.response_template else []
    parts = t.rules + said
    return parts + (_resume(t.agent, t.state.route.decision.resume_offered_id) or ([] if parts else [ANYTHING_ELSE]))


def _escalate(t: _Turn) -> list[str]:
    """The hand-off notice after what the agent's own texts say on this turn: the matched rules' templates, and the
    template of the step a flow handed over from ("If you smell gas, leave the building…") — a step's last words are
    said like any finished step's, never dropped for the notice."""
    parts = list(t.rules)
    scenario_id, _, step_id = (t.state.route.decision.escalated_at or "").partition(".")
    step = t.agent.step(scenario_id, step_id) if step_id else None
    if step is not None and step.response_template:
        said = _said(t.state, f"template of {step.id}", step.response_template, t.variables)
        if said is not None and said not in parts:
            parts.append(said)
    return parts if _announced(t) else [*parts, ESCALATE]


def _announced(t: _Turn) -> bool:
    """Whether the agent's own hand-off text (focal.stages.route: a matched rule whose examples ask for a person) is
    said on this turn: it announces the hand-off, and the engine's notice after it would say it twice."""
    rule_id = t.state.route.decision.handoff_rule_id
    rule = t.agent.rule(rule_id) if rule_id else None
    if rule is None or not rule.response_template or unknown(rule.response_template, t.variables):
        return False
    return render(rule.response_template, t.variables) in t.rules


def _clarify(t: _Turn) -> list[str]:
    return [clarify_question(likely_scenarios(t.agent, t.state.sensor.context))]


def _clarify_step(t: _Turn) -> list[str] | None:
    if t.step is None:
        return None
    return [_not_placed(t.agent, t.state, t.step), as_example(render(step_clarification(t.step, t.state), t.variables))]


def _not_placed(agent: AgentConfig, state: TurnState, step: Step) -> str:
    """How a step's clarification opens: a yes or a no with more words at a confirmation was understood as an
    answer whose details could not be placed, so it is asked again plainly, never as not understood; a question
    no rule answers ("what is the fee if I cancel later?") gets the agent's out-of-scope answer."""
    message = state.sensor.context.message if state.sensor.context else ""
    if step.requires_confirmation and lexicon.is_reply_word(message):
        return UNPLACED_REPLY
    if only_asks(message):
        return agent.out_of_scope_message
    return NOT_UNDERSTOOD


def _respond(t: _Turn) -> list[str] | None:
    if not t.rules and any(" not said: " in n for n in t.state.route.decision.notes):
        return [NOT_FOUND]  # the rule that fits needed a value no tool found
    return None


def _chitchat(t: _Turn) -> list[str] | None:
    """A goodbye is answered with one, thanks with "you're welcome"; any other courtesy with the agent's greeting
    (what it can do)."""
    if t.rules:
        return None
    context = t.state.sensor.context
    topics = context.courtesy_topics() if context is not None else set()
    return [FAREWELL] if "farewell" in topics else [WELCOME] if "thanks" in topics else [t.agent.greeting]


_COMPOSERS: dict[str, _Parts] = {
    "escalate": _escalate,
    "tool_error": lambda t: failure_texts(t.agent, t.state) or [TOOL_ERROR],
    "awaiting_approval": _fixed(AWAITING_APPROVAL),
    "clarify_action": _clarify_action,
    "action_rejected": _fixed(ACTION_REJECTED),
    "already_done": _already_done,
    "not_found": _not_found,
    "action_blocked": _blocked,
    "cancelled": _cancelled,
    "ask_slot": _ask_slot,
    "confirm": _confirm,
    "complete": _complete,
    "clarify": _clarify,
    "clarify_step": _clarify_step,
    "declined": _fixed(english("declined")),
    "chitchat": _chitchat,
    "respond": _respond,
}


def _compose(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    d = state.route.decision
    if state.enforce.feedback and state.generate.drafts and (compliant := _compliant_texts(agent, state, variables)):
        return " ".join(compliant)
    # the rules' texts first, always: saying them notes any value they lack, which `_respond` reads
    turn = _Turn(agent, state, agent.step(d.scenario_id, d.step_id), _rule_parts(agent, state, variables), variables)
    composer = _COMPOSERS.get(d.action)
    parts = composer(turn) if composer else None
    if parts is None:
        parts = turn.rules or [agent.out_of_scope_message]
    if "CancelFlow" in d.executed and d.action != "cancelled":
        parts.insert(0, _stopped(agent, d.cancelled_scenario_id))  # cancelled, and something else started
    return " ".join(p.strip() for p in parts if p.strip())
