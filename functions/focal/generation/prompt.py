"""The generation prompt: the agent's own texts as instructions; the turn's data beside them, never in them.

The system message holds the persona, the rules' action texts, definitions, the step's instructions
and what to do. The task's details, the known facts (slot values, tool outputs), earlier episodes and
the enforcement feedback travel in a user-role `<data>` block (`focal.prompt_data`); the history and
the customer's message in their own roles.
"""

from __future__ import annotations

import time
from typing import Any

from focal.dialogue.clarify import clarify_question, likely_scenarios, question_to_ask
from focal.dialogue.notices import answer_language_lines
from focal.dialogue.resolution import ask_prompt
from focal.generation.structured import instructions
from focal.models.agent import AgentConfig, Rule, Step
from focal.models.turn import TurnState
from focal.prompt_data import DATA_RULE, data_message
from focal.variables import render

HISTORY_TURNS = 6


# What the model is told to do, per route decision, when the text needs no value of the turn.
_FIXED_TASKS = {
    "escalate": "Tell the customer a member of the team will take over.",
    "tool_error": "Apologise: the action did not go through as expected. Never say it was done. Promise nothing.",
    "awaiting_approval": "Say the request needs a quick approval by the team before you go ahead; nothing has been done yet.",
    "action_blocked": "Say you cannot do that: a policy stops it; nothing has been done.",
    "action_rejected": "Say you cannot do that here; nothing has been done. Offer a member of the team.",
    "not_found": "Say what the customer named could not be found, so nothing was done; ask them to check it.",
}


def _step_task(agent: AgentConfig, state: TurnState, step: Step, variables: dict[str, Any]) -> str | None:
    """The task of a decision about the flow's current step."""
    d = state.route.decision
    if d.action == "ask_slot":
        slot = next((s for s in step.slots if s.name == d.asked_slot), None)
        return f"Ask the customer for {d.asked_slot}: {render(slot.prompt, variables) if slot else ''}"
    if d.action == "confirm":
        return f"Ask the customer to confirm: {render(question_to_ask(agent, step, state.sensor.context), variables)}"
    if d.action == "complete":
        return f"Report the outcome: {render(step.response_template or step.instructions, variables)}"
    return None


def _task(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    d = state.route.decision
    step = agent.step(d.scenario_id, d.step_id)
    if step is not None and (task := _step_task(agent, state, step, variables)) is not None:
        return task
    if d.action == "ask_slot":  # a variable the resolution loop could not find
        return f"Ask the customer for {d.asked_slot}: {ask_prompt(agent, d.asked_slot, variables)}"
    if d.action in _FIXED_TASKS:
        return _FIXED_TASKS[d.action]
    if d.action == "clarify_action":
        return "Say nothing has been done yet and ask: " + " ".join(state.suggested_questions)
    if d.action == "clarify":  # the options on offer: a "yes" or "the second one" next turn takes one of them up
        return f"Ask the customer, in one short question: {clarify_question(likely_scenarios(agent, state.sensor.context))}"
    if d.action == "out_of_scope":
        return f"Say what you can help with: {agent.out_of_scope_message}"
    return "Answer the customer following the rules."


def _definitions(agent: AgentConfig, rules: list[Rule]) -> list[str]:
    """The field definitions matched rules declare they depend on, each once."""
    names = list(dict.fromkeys(name for r in rules for name in r.depends_on_definitions))
    out = []
    for name in names:
        f = agent.field(name)
        if f is None:
            continue
        values = f" (one of: {', '.join(f.allowed_values)})" if f.allowed_values else ""
        out.append(f"- {f.display_name or f.field_name} [{f.field_name}, {f.field_type}]: {f.description}{values}")
    return out


def _soft_line(rule: Rule) -> str:
    """A matched soft rule; with its response_template, the facts the offline composer would say (hours, prices,
    limits) as the business wrote them — unfilled: its {placeholders} name values of `known_facts`, never the turn's
    data in the instructions."""
    line = f"- When {rule.condition_text.rstrip('.?!')}: {rule.action_text}"
    if rule.response_template:
        line += f' In the business\'s own words, with the only facts to give: "{rule.response_template}"'
    return line


def _rule_lines(agent: AgentConfig, rules: list[Rule]) -> list[str]:
    """The hard rules in play (every global one too), then the soft rules that matched, then their definitions."""
    hard = [r for r in rules if r.is_hard_constraint]
    hard += [r for r in agent.global_hard_constraints() if r not in hard]
    lines = ["Always follow these rules:", *(f"- {r.action_text}" for r in hard)]
    soft = [r for r in rules if not r.is_hard_constraint]
    if soft:
        # The rule filter's applicability check, folded into this call: no call of its own.
        lines.append("These rules matched the message by similarity; apply each only if its condition truly holds:")
        lines += [_soft_line(r) for r in soft]
    definitions = _definitions(agent, rules)
    if definitions:
        lines.append("Definitions the rules rely on:")
        lines += definitions
    return lines


def _system_lines(agent: AgentConfig, state: TurnState, rules: list[Rule], commitments: list[str] | None) -> list[str]:
    lines = [agent.persona, *_rule_lines(agent, rules)]
    step = agent.step(state.route.decision.scenario_id, state.route.decision.step_id)
    if step and step.instructions:
        lines.append(f"Current step: {step.instructions}")
    lines.append("Your task now: what `task` in the turn's data block says, with the values of `known_facts`.")
    if state.retrieve.episodes:
        lines.append("`earlier_conversations` lists this customer's most similar earlier requests: use them as background.")
    if state.enforce.feedback:
        broken = [r for f in state.enforce.feedback if (r := agent.rule(f.split(":", 1)[0])) is not None]
        lines.append("Your previous draft broke these rules; write a compliant answer: "
                     + " ".join(f"[{r.id}] {r.action_text}" for r in broken) + " (details in `draft_feedback`).")
    lines.append(DATA_RULE)
    lines += answer_language_lines(agent.languages, state.session)
    if commitments is not None:
        lines.append(instructions(agent, commitments))
    return lines


def _turn_data(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> dict[str, Any]:
    turn: dict[str, Any] = {"task": _task(agent, state, variables), "known_facts": variables}
    if state.retrieve.episodes:
        turn["earlier_conversations"] = [
            {"date": time.strftime("%Y-%m-%d", time.gmtime(e.created_at)), "asked": e.asked, "decided": e.decided}
            for e in state.retrieve.episodes]
    if state.enforce.feedback:
        turn["draft_feedback"] = list(state.enforce.feedback)
    return turn


def generation_messages(agent: AgentConfig, state: TurnState, variables: dict[str, Any],
                        commitments: list[str] | None = None) -> list[dict[str, str]]:
    """The messages of the generation call; `commitments`: the response fields the answer may commit to (the
    structured answer's form is then asked for)."""
    rules = [r for m in state.route.matched_rules if (r := agent.rule(m.rule_id)) is not None]
    assert state.session is not None
    return [
        {"role": "system", "content": "\n".join(_system_lines(agent, state, rules, commitments))},
        data_message("turn", _turn_data(agent, state, variables)),
        *({"role": h.role, "content": h.text} for h in state.session.history[-HISTORY_TURNS:]),
        {"role": "user", "content": state.request.message},
    ]
