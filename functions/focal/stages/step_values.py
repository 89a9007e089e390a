"""Whether a model's passed draft at a confirmation or a finished step still says what the step's own text says.

A model may reword a step's confirmation question or outcome text, but it must keep the facts that text shows:
the values it fills in (an id, an amount, a name a tool found, a reference the action returned). A draft that
leaves one out ("which transaction?" after the look-up found it, a question asked again after the action ran)
is weaker than the agent's own words, so the customer hears the step's own text instead (in the turn's language:
the agent is already localized). This runs only after enforcement let the model's draft through, so the verdicts
on hostile drafts are unchanged; the step's own text is then checked on its values and facts before it is said.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from focal.dialogue.clarify import question_to_ask
from focal.dialogue.confidence import value_written
from focal.dialogue.offer_shown import shown
from focal.generation.offline import compose
from focal.models.agent import AgentConfig
from focal.models.localized import original_of
from focal.models.turn import Draft, TurnState
from focal.text.sentences import sentences
from focal.variables import known_variables, placeholders, render, spoken, unknown


def own_template(agent: AgentConfig, state: TurnState) -> tuple[str, str] | None:
    """(what, template) of the step's own text for this turn's confirm or complete decision; None when the
    decision is another, or the step has no text of its own."""
    d = state.route.decision
    if d.action not in ("confirm", "complete"):
        return None
    step = agent.step(d.scenario_id, d.step_id)
    if step is None:
        return None
    if d.action == "confirm":
        return (f"confirmation of {step.id}", question_to_ask(agent, step, state.sensor.context)) \
            if step.requires_confirmation else None
    return (f"template of {step.id}", step.response_template) if step.response_template else None


# A category word (an enum's label), a yes/no or a date is worded in too many ways ("processing", "being
# processed") to tell a left-out value from a reworded one: the facts kept are ids, figures and names.
WORDED_FREELY = ("enum", "boolean", "date")


def _kept(agent: AgentConfig, name: str, known: dict[str, Any], said: dict[str, Any], draft: str) -> bool:
    f = agent.field(name)
    if f is not None and f.field_type in WORDED_FREELY:
        return True
    value = known.get(name)
    if isinstance(value, str) and f is not None:
        return value_written(agent, name, value, [draft])  # as stored, as told, or a synonym the agent gives
    return shown(value, draft) or shown(said.get(name), draft)


def values_left_out(agent: AgentConfig, template: str, known: dict[str, Any], said: dict[str, Any],
                    draft: str) -> list[str] | None:
    """The placeholders of `template` whose value the draft does not show; None when the template cannot be said
    (one of its values is unknown), so nothing would replace the draft."""
    if unknown(template, said):
        return None
    return sorted(n for n in placeholders(template) if not _kept(agent, n, known, said, draft))


def step_text_instead(agent: AgentConfig, state: TurnState, draft: Draft,
                      problems_of: Callable[[Draft], list[str]]) -> Draft | None:
    """The step's own text, when the model's passed draft leaves out a value that text shows and no draft of the
    turn was blocked (after a block the compliant draft is worded around the rule on purpose, and the step's text
    may be what was blocked). Said only when enforcement finds nothing against it with no model call
    (`problems_of`: the turn's calls are spent); the trace notes why either way. None: the model's draft is said."""
    own = own_template(agent, state) if draft.source == "model" and not state.enforce.report.violations else None
    if own is None:
        return None
    what, template = own
    known = known_variables(agent, state.session, state.profile)
    said = spoken(agent, known)
    left_out = values_left_out(agent, template, known, said, draft.text)
    if not left_out:
        return None
    why = f"the model's draft left out {', '.join(left_out)}, which the {what} shows"
    replacement = Draft(text=compose(agent, state, said), source="offline")
    problems = problems_of(replacement)
    if problems:
        state.route.decision.notes.append(f"{why}; the step's own text is not said instead: {'; '.join(problems)}")
        return None
    state.route.decision.notes.append(f"{why}: the step's own text said instead")
    state.generate.drafts.append(replacement)
    return replacement


def _own_question(agent: AgentConfig, state: TurnState) -> tuple[str, str] | None:
    """(the step's confirmation question as `agent` words it, its template); None: a value of it is unknown."""
    d = state.route.decision
    step = agent.step(d.scenario_id, d.step_id)
    said = spoken(agent, known_variables(agent, state.session, state.profile))
    question = question_to_ask(agent, step, state.sensor.context) if step is not None else None
    return None if question is None or unknown(question, said) else (render(question, said), question)


def _asked(text: str) -> list[str]:
    return [" ".join(s.split()).casefold() for s in sentences(text) if "?" in s]


def _shows_values(agent: AgentConfig, state: TurnState, template: str, statements: list[str]) -> bool:
    known = known_variables(agent, state.session, state.profile)
    return bool(statements) and not values_left_out(agent, template, known, spoken(agent, known), " ".join(statements))


def _put_instead(agent: AgentConfig, state: TurnState, statements: list[str], own: tuple[str, str]) -> str:
    """The draft's statements, then the agent's question: its question sentences alone when the statements already
    show every value the question shows (as `offer_shown` counts an offer), else all of it."""
    question, template = own
    if _shows_values(agent, state, template, statements):
        return " ".join([*statements, *(s for s in sentences(question) if "?" in s)])
    return " ".join([*statements, question])


def own_question_instead(agent: AgentConfig, state: TurnState, draft: Draft,
                         problems_of: Callable[[Draft], list[str]]) -> tuple[Draft | None, bool]:
    """At a confirmation, the question the customer's yes answers is the agent's own: a model's passed draft keeps
    what it states and its questions give way to the step's confirmation question. A model asked to put "I'll block
    the card ending 5678 and send you a new one. Shall I go ahead?" was seen asking only "can you confirm the card ends
    in 5678?" — every value shown, yet a yes to it would block and replace the card, which it never said.

    Returns (the draft to say instead or None, whether the offer is put to the customer). The own question is said
    only when enforcement finds nothing against it with no model call; else the model's draft is said and the offer
    counts as not put (the caller withdraws the confirmation: no yes may run what the customer was not asked)."""
    d = state.route.decision
    if draft.source != "model" or d.action != "confirm" or state.enforce.report.violations:
        return None, True
    own = _own_question(agent, state)
    statements = [s for s in sentences(draft.text) if "?" not in s]
    if own is not None and _asked(draft.text) == _asked(own[0]) and _shows_values(agent, state, own[1], statements):
        return None, True  # the agent's own question, after statements that show its values
    original = original_of(agent)
    in_original = _own_question(original, state) if original is not agent else None
    replacement = Draft(
        text=_put_instead(agent, state, statements, own) if own else draft.text, source="offline",
        commitments=draft.commitments,
        original_text=_put_instead(original, state, statements, in_original) if in_original else None)
    problems = ["a value of the question is unknown"] if own is None else problems_of(replacement)
    if problems:
        d.notes.append(f"the model's draft does not ask the confirmation of {d.step_id} in the agent's words, and "
                       f"they cannot be said ({'; '.join(problems)}): the offer is not put")
        return None, False
    d.notes.append(f"the model's question gives way to the confirmation of {d.step_id} in the agent's words")
    state.generate.drafts.append(replacement)
    return replacement, True
