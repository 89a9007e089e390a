"""The offline composer: deterministic answers from the agent's own texts, no model.

It says what the route decided (the slot prompt, the confirmation prompt, the finished step's
template) after the templates of the soft rules that matched, with `{variables}` filled in. On a
regeneration it says the violated rules' own compliant texts instead (after a relevance or grounding
violation only: the ordinary offline answer).
"""

from __future__ import annotations

from typing import Any

from focal.dialogue.clarify import clarify_question, likely_scenarios, step_clarification
from focal.dialogue.resolution import ask_prompt
from focal.dialogue.variables import render
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState

MAX_RULE_PARTS = 2
ESCALATE = "I'll connect you with a member of our team who can help you further."
# The request id travels in the result's `approval` object, not in the text (an id is no claim to check).
AWAITING_APPROVAL = ("Before I go ahead, this needs a quick approval from our team. I've sent the request "
                     "and will continue as soon as it's approved. Nothing has been done yet.")
CLARIFY_ACTION = "Before I do anything, I want to be sure I understood you correctly."
ACTION_REJECTED = "I'm sorry, I can't do that here, and nothing has been done. I can connect you with a member of our team."
TOOL_ERROR = "I'm sorry, I couldn't complete that step just now. Please try again in a moment, or ask for a member of our team."


def _rule_parts(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> list[str]:
    parts = []
    for match in state.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule and not rule.is_hard_constraint and rule.response_template:
            parts.append(render(rule.response_template, variables))
    return parts[:MAX_RULE_PARTS if state.decision.action in ("respond", "out_of_scope", "chitchat") else 1]


def _resume(agent: AgentConfig, scenario_id: str | None) -> list[str]:
    scenario = agent.scenario(scenario_id)
    return [f"Shall we continue where we left off ({scenario.name})?"] if scenario else []


def _stopped(agent: AgentConfig, scenario_id: str | None) -> str:
    scenario = agent.scenario(scenario_id)
    return f"Okay, I've stopped that ({scenario.name})." if scenario else "Okay, I've stopped that."


def _compliant_texts(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> list[str]:
    """What the violated rules say instead (their template, else their fallback, else the agent's).

    Output-check violations (relevance, grounding) name no rule: they add nothing here, and a draft
    that failed only those is replaced by the ordinary offline answer below — the route's own
    templates, relevant and grounded by construction."""
    texts: list[str] = []
    for violation in state.drafts[-1].violations:
        if violation.lane in ("relevance", "grounding"):
            continue
        rule = agent.rule(violation.rule_id)
        text = (rule.response_template or rule.fallback_text) if rule else None
        text = render(text or agent.enforcement.fallback_message, variables)
        if text not in texts:
            texts.append(text)
    return texts


def blocked_text(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    """What the guards that stopped an action say (their template, else their fallback), and that nothing was done."""
    texts: list[str] = []
    for rule_id in state.decision.blocked_by:
        rule = agent.rule(rule_id)
        text = render((rule.response_template or rule.fallback_text or rule.action_text) if rule else ACTION_REJECTED, variables)
        if text not in texts:
            texts.append(text)
    return " ".join(texts or [ACTION_REJECTED])


def compose(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    d = state.decision
    if state.feedback and state.drafts and (compliant := _compliant_texts(agent, state, variables)):
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
    elif d.action == "action_blocked":
        parts = [blocked_text(agent, state, variables)]
    elif d.action == "cancelled":
        parts = [_stopped(agent, d.cancelled_scenario_id)]
        parts += _resume(agent, d.resume_offered_id) or ["Is there anything else I can help with?"]
    elif d.action == "ask_slot" and not step:  # a variable the resolution loop could not find (dialogue/resolution.py)
        parts = [ask_prompt(agent, d.asked_slot, variables)]
    elif d.action == "ask_slot" and step:
        slot = next((s for s in step.slots if s.name == d.asked_slot), None)
        retry = ["That doesn't look right."] if d.invalid_slot else []
        parts = rules + retry + ([render(slot.prompt, variables)] if slot else [])
    elif d.action == "confirm" and step:
        parts = rules + [render(step.confirmation_prompt or f"Shall I go ahead with {step.id}?", variables)]
    elif d.action == "complete" and step:
        parts = rules + [render(step.response_template or step.instructions, variables)] + _resume(agent, d.resume_offered_id)
    elif d.action == "clarify":
        parts = [clarify_question(likely_scenarios(agent, state.context))]
    elif d.action == "clarify_step" and step:
        parts = ["I didn't quite understand.", render(step_clarification(step, state), variables)]
    elif d.action == "declined":
        parts = ["Okay, no problem. Is there anything else I can help with?"]
    elif d.action == "chitchat" and not rules:
        parts = [agent.greeting]
    else:
        parts = rules or [agent.out_of_scope_message]
    if "CancelFlow" in d.executed and d.action != "cancelled":
        parts.insert(0, _stopped(agent, d.cancelled_scenario_id))  # cancelled, and something else started
    return " ".join(p.strip() for p in parts if p.strip())
