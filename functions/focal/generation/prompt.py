"""The generation prompt: the agent's own texts as instructions; the turn's data beside them, never in them.

The system message holds the persona, the rules' action texts, definitions, the step's instructions
and what to do. The task's details, the known facts (slot values, tool outputs), earlier episodes and
the enforcement feedback travel in a user-role `<data>` block (`focal.prompt_data`); the history and
the customer's message in their own roles.
"""

from __future__ import annotations

import time
from typing import Any

from focal.dialogue.clarify import clarify_question, confirmation_question, likely_scenarios
from focal.dialogue.resolution import ask_prompt
from focal.generation.structured import instructions
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import TurnState
from focal.prompt_data import DATA_RULE, data_message
from focal.variables import render

HISTORY_TURNS = 6


def _task(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    d = state.route.decision
    step = agent.step(d.scenario_id, d.step_id)
    if d.action == "ask_slot" and not step:  # a variable the resolution loop could not find
        return f"Ask the customer for {d.asked_slot}: {ask_prompt(agent, d.asked_slot, variables)}"
    if d.action == "ask_slot" and step:
        slot = next((s for s in step.slots if s.name == d.asked_slot), None)
        return f"Ask the customer for {d.asked_slot}: {render(slot.prompt, variables) if slot else ''}"
    if d.action == "confirm" and step:
        return f"Ask the customer to confirm: {render(confirmation_question(agent, step), variables)}"
    if d.action == "complete" and step:
        return f"Report the outcome: {render(step.response_template or step.instructions, variables)}"
    if d.action == "escalate":
        return "Tell the customer a member of the team will take over."
    if d.action == "tool_error":
        return "Apologise: the action could not be completed right now. Promise nothing."
    if d.action == "awaiting_approval":
        return "Say the request needs a quick approval by the team before you go ahead; nothing has been done yet."
    if d.action == "clarify_action":
        return "Say nothing has been done yet and ask: " + " ".join(state.suggested_questions)
    if d.action == "action_blocked":
        return "Say you cannot do that: a policy stops it; nothing has been done."
    if d.action == "action_rejected":
        return "Say you cannot do that here; nothing has been done. Offer a member of the team."
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


def generation_messages(agent: AgentConfig, state: TurnState, variables: dict[str, Any],
                        commitments: list[str] | None = None) -> list[dict[str, str]]:
    """The messages of the generation call; `commitments`: the response fields the answer may commit to (the
    structured answer's form is then asked for)."""
    rules = [agent.rule(m.rule_id) for m in state.route.matched_rules]
    step = agent.step(state.route.decision.scenario_id, state.route.decision.step_id)
    lines = [agent.persona, "Always follow these rules:"]
    hard = [r for r in rules if r is not None and r.is_hard_constraint]
    hard += [r for r in agent.global_hard_constraints() if r not in hard]
    lines += [f"- {r.action_text}" for r in hard]
    soft = [r for r in rules if r is not None and not r.is_hard_constraint]
    if soft:
        # The rule filter's applicability check, folded into this call: no call of its own.
        lines.append("These rules matched the message by similarity; apply each only if its condition truly holds:")
        lines += [f"- When {r.condition_text.rstrip('.?!')}: {r.action_text}" for r in soft]
    definitions = _definitions(agent, [r for r in rules if r is not None])
    if definitions:
        lines.append("Definitions the rules rely on:")
        lines += definitions
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
    if commitments is not None:
        lines.append(instructions(agent, commitments))
    turn: dict[str, Any] = {"task": _task(agent, state, variables), "known_facts": variables}
    if state.retrieve.episodes:
        turn["earlier_conversations"] = [
            {"date": time.strftime("%Y-%m-%d", time.gmtime(e.created_at)), "asked": e.asked, "decided": e.decided}
            for e in state.retrieve.episodes]
    if state.enforce.feedback:
        turn["draft_feedback"] = list(state.enforce.feedback)
    assert state.session is not None
    return [
        {"role": "system", "content": "\n".join(lines)},
        data_message("turn", turn),
        *({"role": h.role, "content": h.text} for h in state.session.history[-HISTORY_TURNS:]),
        {"role": "user", "content": state.request.message},
    ]
