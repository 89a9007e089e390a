"""Asking which scenario the customer means: the same question wherever the turn decides to ask."""

from __future__ import annotations

from focal.models.agent import AgentConfig, Scenario
from focal.models.context import Context

MAX_OPTIONS = 3


def likely_scenarios(agent: AgentConfig, context: Context | None) -> list[Scenario]:
    """The scenarios the message resembles at least `clarify_floor`, best first."""
    scores = context.intent_scores if context else []
    found = [agent.scenario(s.scenario_id) for s in scores if s.score >= agent.navigation.clarify_floor]
    return [s for s in found if s is not None][:MAX_OPTIONS]


def clarify_question(options: list[Scenario]) -> str:
    names = " or ".join(s.name for s in options) or "something else"
    return f"Just to be sure I help with the right thing: do you mean {names}?"


def suggestions(options: list[Scenario]) -> list[str]:
    """One example message per option, for the chat channel to offer as buttons."""
    return [s.entry_examples[0] for s in options if s.entry_examples]
