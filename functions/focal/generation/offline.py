"""The offline composer: deterministic answers from the agent's own texts, no model.

It says what the route decided (the slot prompt, the confirmation prompt, the finished step's
template) after the templates of the soft rules that matched, with `{variables}` filled in. On a
regeneration it says the violated rules' own compliant texts instead (after a relevance or grounding
violation only: the ordinary offline answer).
"""

from __future__ import annotations

import re
from typing import Any

from focal.dialogue.clarify import clarify_question, confirmation_question, likely_scenarios, step_clarification
from focal.dialogue.resolution import ask_prompt
from focal.models.agent import AgentConfig, Step
from focal.models.turn import OUTPUT_CHECKS, TurnState
from focal.sensing import language, tone
from focal.variables import render, unknown

MAX_RULE_PARTS = 2
ANYTHING_ELSE = "Is there anything else I can help with?"
ESCALATE = "I'll connect you with a member of our team who can help you further."
# The request id travels in the result's `approval` object, not in the text (an id is no claim to check).
AWAITING_APPROVAL = ("Before I go ahead, this needs a quick approval from our team. I've sent the request "
                     "and will continue as soon as it's approved. Nothing has been done yet.")
CLARIFY_ACTION = "Before I do anything, I want to be sure I understood you correctly."
ACTION_REJECTED = "I'm sorry, I can't do that here, and nothing has been done. I can connect you with a member of our team."
NOT_FOUND = "I'm sorry, I couldn't find that. Could you check the details and try again?"
ALREADY_DONE = ("That was already done with the details you gave before, so I can't change it here and nothing new has "
                "been done. A member of our team can help you change it.")
# "It looks like B-123" in a prompt reads as a guess at the customer's value: said as an example instead.
_GUESS = re.compile(r"\b(it|this|that) (looks|seems|appears)( to be)? like\s+", re.IGNORECASE)
TOOL_ERROR = "I'm sorry, I couldn't complete that step just now. Please try again in a moment, or ask for a member of our team."


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
    return [f"Shall we continue where we left off ({scenario.name})?"] if scenario else []


def _stopped(agent: AgentConfig, scenario_id: str | None) -> str:
    scenario = agent.scenario(scenario_id)
    return f"Okay, I've stopped that ({scenario.name})." if scenario else "Okay, I've stopped that."


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


def blocked_text(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    """What the guards that stopped an action say (their template, else their fallback), and that nothing was done."""
    texts: list[str] = []
    for rule_id in state.route.decision.blocked_by:
        rule = agent.rule(rule_id)
        text = render((rule.response_template or rule.fallback_text or rule.action_text) if rule else ACTION_REJECTED, variables)
        if text not in texts:
            texts.append(text)
    return " ".join(texts or [ACTION_REJECTED])


# Decisions whose answer is fully given by the agent's own texts (or the engine's fixed notices).
# Not out_of_scope or clarify: a question outside the flows, or one the route could not place, is the
# model's to answer (within the rules, checked by enforce).
FIXED_TEXT_ACTIONS = ("ask_slot", "clarify_step", "clarify_action", "escalate", "tool_error",
                      "awaiting_approval", "action_rejected", "cancelled", "declined", "already_done")


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
    return _step_text(state, f"confirmation of {step.id}", confirmation_question(agent, step), variables)


def _step_text(state: TurnState, what: str, text: str, variables: dict[str, Any]) -> list[str]:
    said = _said(state, what, text, variables)
    return [said] if said is not None else [NOT_FOUND]


def _compose(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    d = state.route.decision
    if state.enforce.feedback and state.generate.drafts and (compliant := _compliant_texts(agent, state, variables)):
        return " ".join(compliant)
    step = agent.step(d.scenario_id, d.step_id)
    rules = _rule_parts(agent, state, variables)
    if d.action == "escalate":
        parts = [ESCALATE]
    elif d.action == "tool_error":
        parts = [TOOL_ERROR]
    elif d.action == "awaiting_approval":
        parts = [AWAITING_APPROVAL]
    elif d.action == "clarify_action":
        parts = [CLARIFY_ACTION] + state.suggested_questions[:2]
    elif d.action == "action_rejected":
        parts = [ACTION_REJECTED]
    elif d.action == "already_done":  # then what the flow still waits for, so a "yes" answers that question
        waiting = step is not None and step.requires_confirmation and state.session is not None \
            and state.session.flow_state == "confirming"
        parts = [ALREADY_DONE] + (_ask_confirmation(agent, state, step, variables) if waiting and step else [])
    elif d.action == "action_blocked":
        parts = [blocked_text(agent, state, variables)]
    elif d.action == "cancelled":
        parts = [_stopped(agent, d.cancelled_scenario_id)]
        parts += _resume(agent, d.resume_offered_id) or [ANYTHING_ELSE]
    elif d.action == "ask_slot" and not step:  # a variable the resolution loop could not find (dialogue/resolution.py)
        parts = [ask_prompt(agent, d.asked_slot, variables)]
    elif d.action == "ask_slot" and step:
        slot = next((s for s in step.slots if s.name == d.asked_slot), None)
        retry = ["That doesn't look right."] if d.invalid_slot else []
        parts = rules + retry + ([as_example(render(slot.prompt, variables))] if slot else [])
    elif d.action == "confirm" and step:
        parts = rules + _ask_confirmation(agent, state, step, variables)
    elif d.action == "complete" and step:
        # a step's `instructions` are for the model, never said; a finished step with no template of its own says
        # nothing it did not do, and never nothing at all
        said = _step_text(state, f"template of {step.id}", step.response_template, variables) if step.response_template else []
        parts = rules + said
        parts += _resume(agent, d.resume_offered_id) or ([] if parts else [ANYTHING_ELSE])
    elif d.action == "clarify":
        parts = [clarify_question(likely_scenarios(agent, state.sensor.context))]
    elif d.action == "clarify_step" and step:
        parts = ["I didn't quite understand.", as_example(render(step_clarification(step, state), variables))]
    elif d.action == "declined":
        parts = ["Okay, no problem. Is there anything else I can help with?"]
    elif d.action == "chitchat" and not rules:
        parts = [agent.greeting]
    elif d.action in ("respond", "chitchat") and not rules and any(" not said: " in n for n in d.notes):
        parts = [NOT_FOUND]  # the rule that fits needed a value no tool found
    else:
        parts = rules or [agent.out_of_scope_message]
    if "CancelFlow" in d.executed and d.action != "cancelled":
        parts.insert(0, _stopped(agent, d.cancelled_scenario_id))  # cancelled, and something else started
    return " ".join(p.strip() for p in parts if p.strip())
