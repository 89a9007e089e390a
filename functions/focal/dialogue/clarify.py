"""Asking which scenario the customer means: the same question wherever the turn decides to ask."""

from __future__ import annotations

import re

from focal.models.agent import AgentConfig, Scenario, Step, Tool
from focal.models.context import Context
from focal.models.engine_texts import english
from focal.models.turn import TurnState
from focal.sensing.confirmation_reply import asked_detail, detail_question
from focal.sensing.offers import MAX_OPTIONS


def likely_scenarios(agent: AgentConfig, context: Context | None) -> list[Scenario]:
    """The scenarios the message resembles at least `clarify_floor`, best first."""
    scores = context.intent_scores if context else []
    found = [agent.scenario(s.scenario_id) for s in scores if s.score >= agent.navigation.clarify_floor]
    return [s for s in found if s is not None][:MAX_OPTIONS]


def clarify_question(options: list[Scenario]) -> str:
    names = english("or").join(s.name for s in options) or english("something_else")
    return english("clarify_scenario").replace("{names}", names)


def suggestions(options: list[Scenario], agent: AgentConfig | None = None, lang: str | None = None) -> list[str]:
    """One example message per option, for the chat channel to offer as buttons: in the customer's language `lang`
    when the agent's `translations` give the scenario examples in it, else as the agent wrote them."""
    texts = agent.translations.get(lang or "") if agent is not None else None
    out = []
    for scenario in options:
        given = texts.scenarios.get(scenario.id) if texts is not None else None
        examples = given.entry_examples if given is not None and given.entry_examples else scenario.entry_examples
        if examples:
            out.append(examples[0])
    return out


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def hypothetical_question(scenario: Scenario) -> str:
    """A "what if …?" is answered with a question, never with an action."""
    return english("hypothetical_question").replace("{what}", _lower_first(scenario.name))


def hypothetical_suggestions(scenario: Scenario) -> list[str]:
    return [english("button_start"), english("button_how_it_works").replace("{what}", _lower_first(scenario.name))]


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
_ASKS = re.compile(r"[?？؟]")


def from_question(prompt: str) -> str:
    """A prompt asked again, from its question on: what led up to the question the first time ("Of course.",
    "I found the booking …") reads oddly after "I didn't quite understand." (the whole prompt when none asks)."""
    sentences = _SENTENCE_END.split(prompt.strip())
    first = next((i for i, sentence in enumerate(sentences) if _ASKS.search(sentence)), 0)
    return " ".join(sentences[first:])


def step_clarification(step: Step, state: TurnState) -> str:
    """What a stuck customer is told at `step`: its clarification hint, else what the step needs."""
    if step.clarification_hint:
        return step.clarification_hint
    if step.requires_confirmation and state.session and state.session.flow_state == "confirming":
        return english("confirm_yes_or_no") + " " + (step.confirmation_prompt or "")
    filled = state.session.slots if state.session else {}
    slot = next((s for s in step.slots if s.name == state.route.decision.asked_slot), None) or next(
        (s for s in step.slots if filled.get(s.name) in (None, "")), None)  # never ask again for what is filled
    if slot is not None:
        return from_question(slot.prompt)
    # `instructions` are written for the model ("Say the policy was not found…"), never shown to the customer
    return step.response_template or english("rephrase")


def step_suggestions(state: TurnState) -> list[str]:
    return [english("button_yes"), english("button_no")] if state.session and state.session.flow_state == "confirming" else []


def confirmation_tool(agent: AgentConfig, step: Step) -> Tool | None:
    """The tool whose description words a confirmation step's question when the step has no prompt."""
    return next((t for t in (agent.tool(a) for a in step.action) if t is not None and t.description), None)


def confirmation_question(agent: AgentConfig, step: Step) -> str:
    """What the customer is asked at a confirmation step: its prompt, else what its action does in the tool's
    words ("Do you want me to change the cover tier of a policy?"), never the step id."""
    if step.confirmation_prompt.strip():
        return step.confirmation_prompt
    tool = confirmation_tool(agent, step)
    if tool is None:
        return english("confirm_default")
    what = tool.description.strip().rstrip(".")
    return english("confirm_tool").replace("{what}", what[:1].lower() + what[1:])


def question_to_ask(agent: AgentConfig, step: Step, context: Context | None) -> str:
    """What a confirmation step asks this turn: the question about a detail the customer's yes referred to (a
    command of the turn's `context`, focal.sensing.confirmation_reply), else the step's own confirmation question."""
    detail = asked_detail(context.commands) if context is not None else None
    return detail_question(detail) if detail is not None else confirmation_question(agent, step)
