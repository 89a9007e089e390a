"""The offline sensor: intent by nearest entry examples, dialogue acts by lexicon and exemplars,
slot values by type, corrections by cue words, hypotheticals held back for a question.

The message is read once (`_read`: its values, its dialogue acts, its tone, a digression); the commands then come
from a list of steps, in order (`COMMAND_STEPS`), each of which adds what it reads to the turn's commands and may
look at what the steps before it added: exits first, then the answer to a question on screen, the flow to start,
the slot values, a whole-message free-text value and, when nothing else was read, small talk."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from focal.flow_reading import current_step, flows_in_progress
from focal.models.agent import AgentConfig, Scenario
from focal.models.context import Command, Context, IntentScore
from focal.models.session import Offer, Session
from focal.sensing import digression, language, lexicon, offers, tone
from focal.sensing.acts import asks_about_cancelling, detect_acts
from focal.sensing.confirmation_reply import confirmation_answer
from focal.sensing.malformed_id import near_miss
from focal.sensing.nested_question import nested_scenario
from focal.sensing.offers import MAX_OPTIONS
from focal.sensing.slot_reading import (
    fill_rest,
    label_words,
    last_agent_message,
    may_take_secret,
    message_entities,
    patterned_slots,
    slot_commands,
)
from focal.sensing.turn_language import own_words
from focal.variables import PENDING, placeholders

STOP_ACTS = ("HumanHandoff", "CancelFlow")  # explicit exits: they break stickiness
SETTLING = {"HumanHandoff", "CancelFlow", "AffirmConfirmation", "DenyConfirmation", "SetSlot", "CorrectSlot"}


@dataclass
class _Turn:
    """The message as read so far, and the commands the steps have added."""

    agent: AgentConfig
    session: Session
    text: str
    scores: list[IntentScore]
    today: date | None
    notes: list[str]
    entities: dict[str, Any]
    acts: dict[str, str]
    abusive: bool
    nested: IntentScore | None  # a digression: the scenario that answers a question about another value
    active: Scenario | None
    commands: list[Command] = field(default_factory=list)
    candidate: IntentScore | None = None  # the scenario the message would start (or asks about, hypothetically)
    starting: Scenario | None = None

    @property
    def hypothetical(self) -> bool:
        return "hypothetical" in self.acts

    @property
    def best(self) -> IntentScore | None:
        return self.scores[0] if self.scores else None

    def has(self, name: str) -> bool:
        return any(c.name == name for c in self.commands)


def _near_tie(agent: AgentConfig, scores: list[IntentScore], active: bool) -> str | None:
    nav = agent.navigation
    if active or not scores:
        return None
    best = scores[0]
    if len(scores) > 1 and scores[1].score >= nav.entry_threshold and best.score - scores[1].score < nav.ambiguity_margin:
        return f"'{best.label}' and '{scores[1].label}' fit almost equally ({best.score:.2f} vs {scores[1].score:.2f})"
    return None  # a weak best intent is judged by route, after the rules have had their say


def _candidate(
    agent: AgentConfig, session: Session, scores: list[IntentScore], exiting: bool, floor: float | None = None
) -> IntentScore | None:
    """The scenario the message would start. Inside a flow only an unmistakable other intent
    (≥ exit_intent_threshold) is proposed, or any entry-worthy one once the customer cancels;
    route has the last word (stickiness)."""
    nav = agent.navigation
    # the flow a called one (an identity check) runs for is no other request: "forget the cancellation, just move
    # my booking" said in the check the cancellation called never starts the cancellation again
    in_progress = flows_in_progress(session)
    other = next((s for s in scores if s.scenario_id not in in_progress), None)
    if other is None or other.score < (nav.entry_threshold if floor is None else floor):
        return None
    if session.active_scenario_id and not exiting and session.flow_state == "blocked":
        # a guard stopped the flow's action and no question is open: a request that fits another flow better starts it
        held = next((s.score for s in scores if s.scenario_id == session.active_scenario_id), 0.0)
        return other if other.score > held else None
    if session.active_scenario_id and not exiting and other.score < nav.exit_intent_threshold:
        return None
    return other


def _answer_offer(turn: _Turn) -> list[Command]:
    """The customer's answer to the agent's last question (resume / start / choose between options)."""
    agent, session, notes = turn.agent, turn.session, turn.notes
    offer = session.offer
    assert offer is not None
    index, how = offers.pick(agent, offer, turn.text, turn.acts)
    if how == "deny":
        return [Command(name="DenyConfirmation", flow=offer.scenario_id)]
    if index is None and (index := offers.picked_by_value(agent, session, offer, turn.text, turn.entities,
                                                          turn.today)) is not None:
        how = f"option {index + 1} by a value only its flow asks for"
    if index is None:
        return []
    notes.append(f"answered the agent's question ({offer.kind}): {how}")
    return [Command(name="AffirmConfirmation", flow=offer.choices()[index], value=index)]


# --- reading the message once ---------------------------------------------------------------------


def _dialogue_acts(agent: AgentConfig, session: Session, text: str, act_similarities: dict[str, float] | None,
                   notes: list[str], heard: dict[str, str] | None = None) -> dict[str, str]:
    """The message's dialogue acts, with how each was heard; a yes only when it is nothing more than a yes."""
    acts = detect_acts(text, act_similarities, agent.sensor.act_similarity, heard)
    if "cancel" in acts and asks_about_cancelling(text):
        acts.pop("cancel")  # a question about cancelling is one for the agent's rules; the flow stays where it was
        notes.append("act cancel set aside: the message asks about cancelling, it gives no instruction to stop")
    # the question the customer answers: the last sentence of the agent's last message that asks one, not the
    # summary before it ("…the money goes back to your card. Shall I cancel booking K1NW8N?")
    asked = lexicon.question_of(last_agent_message(session))
    if "affirm" not in acts and lexicon.affirm_in_its_words(text, asked):
        for act in ("cancel", "deny"):  # "sure, cancel it" to "Shall I cancel it?" answers yes; it stops nothing
            acts.pop(act, None)
        acts["affirm"] = "lexicon (a yes in the words of the question)"
    if "affirm" in acts and not lexicon.plain_affirm(text, asked):
        acts.pop("affirm")  # "yes lol nvm", "yes, on Monday": more than a yes, so no confirmation
        notes.append("act affirm set aside: the message says more than yes")
    notes += [f"act {act} ({how})" for act, how in acts.items()]
    return acts


def _read(agent: AgentConfig, session: Session, text: str, scores: list[IntentScore],
          act_similarities: dict[str, float] | None, today: date | None, notes: list[str],
          heard: dict[str, str] | None = None) -> _Turn:
    """The message's values, dialogue acts, tone and any digression, before any command."""
    active = agent.scenario(session.active_scenario_id)
    pending = session.variables.get(PENDING)
    entities = message_entities(agent, text, today, pending.get("variable") if isinstance(pending, dict) else None)
    acts = _dialogue_acts(agent, session, text, act_similarities, notes, heard)
    abusive = tone.abusive(text)
    if abusive:
        notes.append(tone.NOTE)
    nested = None
    if active and "hypothetical" not in acts:
        nested = nested_scenario(agent, session, text, entities, scores, today)
    if nested is not None:
        notes.append(f"digression: a question about another value, answered by {nested.label}; not a correction")
    return _Turn(agent=agent, session=session, text=text, scores=scores, today=today, notes=notes, entities=entities,
                 acts=acts, abusive=abusive, nested=nested, active=active)


# --- the command steps, in order ------------------------------------------------------------------


def _exits(turn: _Turn) -> None:
    """A request for a human, or to cancel the active flow (not a hypothetical one, not inside a digression)."""
    if "handoff" in turn.acts:
        turn.commands.append(Command(name="HumanHandoff"))
    elif turn.active and "cancel" in turn.acts and not turn.hypothetical and turn.nested is None:
        turn.commands.append(Command(name="CancelFlow", flow=turn.active.id))


def _answer(turn: _Turn) -> None:
    """The answer to the question on screen: an offer outside a flow, else the active flow's confirmation."""
    active, session = turn.active, turn.session
    if turn.hypothetical:
        return
    if session.offer is not None and not active:
        turn.commands += _answer_offer(turn)
    elif active and turn.nested is None:
        turn.commands += _answer_step(turn, active)


def _answer_step(turn: _Turn, active: Scenario) -> list[Command]:
    """A yes or a no to the active step: at a confirmation, its answer, with any details after it read against the
    values the question showed (focal.sensing.confirmation_reply); after a guard's refusal (`blocked`) no question
    is open, so a yes answers nothing and a no leaves the flow."""
    session = turn.session
    if session.flow_state == "confirming":
        asked = lexicon.question_of(last_agent_message(session))
        return confirmation_answer(turn.agent, session, turn.text, turn.acts, asked, turn.today, turn.notes)
    if session.flow_state == "blocked" and "deny" in turn.acts:
        return [Command(name="DenyConfirmation", flow=active.id)]
    return []


def _choose_candidate(turn: _Turn) -> IntentScore | None:
    """The scenario the message would start: the digression's, else the best other one; none once it answered a
    question. A hypothetical needs only a weak resemblance: it is asked about, never acted on."""
    nav, best = turn.agent.navigation, turn.best
    if turn.has("AffirmConfirmation"):
        candidate = None
    else:
        floor = nav.clarify_floor if turn.abusive else None  # insults pull the vector away from every example
        candidate = turn.nested or _candidate(turn.agent, turn.session, turn.scores, exiting=turn.has("CancelFlow"),
                                              floor=floor)
    if candidate is None and turn.hypothetical and best is not None and best.score >= nav.clarify_floor \
            and best.scenario_id != turn.session.active_scenario_id:
        candidate = best  # "if I did X, would …?": a weak resemblance is enough to ask, never to act
    return candidate


def _start(turn: _Turn) -> None:
    """StartFlow for the candidate scenario, or Clarify when the message only asks what would happen."""
    turn.candidate = candidate = _choose_candidate(turn)
    if candidate is None:
        return
    if turn.hypothetical:
        turn.commands.append(Command(name="Clarify", flow=candidate.scenario_id, topic="hypothetical"))
        return
    turn.starting = turn.agent.scenario(candidate.scenario_id)
    turn.commands.append(Command(name="StartFlow", flow=candidate.scenario_id, value=round(candidate.score, 4),
                                 topic="digression" if turn.nested is not None else None))


def _slot_values(turn: _Turn) -> None:
    """The slot values of the flow the message starts, else of the active one; a hypothetical sets none."""
    if turn.hypothetical:
        return
    # Values in a message that starts a flow belong to that flow ("check the status of B-125"
    # during a rebooking is not a new reference for the rebooking).
    owners = [turn.starting] if turn.starting else [turn.active] if turn.active else []
    retry = turn.session.retry
    if not owners and retry is not None and (failed := turn.agent.scenario(retry.scenario_id)) is not None:
        # a look-up found nothing last turn: a new value for its slot is read as for that flow (a correction)
        found = slot_commands(turn.agent, turn.session, turn.text, turn.entities, [failed], turn.notes, turn.today)
        turn.commands += [c for c in found if c.slot in retry.retry_slots][:1]
        return
    read = {(c.flow, c.slot) for c in turn.commands if c.name in ("SetSlot", "CorrectSlot")}  # by the confirmation's answer
    read |= _agreed(turn)
    turn.commands += [c for c in slot_commands(turn.agent, turn.session, turn.text, turn.entities, owners, turn.notes,
                                               turn.today) if (c.flow, c.slot) not in read]
    if turn.starting is None and turn.active is not None:
        turn.commands += fill_rest(turn.agent, turn.session, turn.text, turn.commands)


def _agreed(turn: _Turn) -> set[tuple[str | None, str]]:
    """A yes to the confirmation: the values it showed were read with the details after the yes and agreed to
    (focal.sensing.confirmation_reply), so the ordinary reading reads none of them again — "ja, Gartenweg 12 stimmt"
    gives no new day 12 for the date shown beside the address."""
    step = current_step(turn.agent, turn.session) if turn.active is not None else None
    if step is None or not turn.has("AffirmConfirmation"):
        return set()
    return {(turn.active.id if turn.active else None, name) for name in placeholders(step.confirmation_prompt or "")}


def _correction_not_stop(turn: _Turn) -> None:
    """A new value for a slot of the active flow is a correction of it, whatever words come before it: "forget the
    5th, make it December 6" or "stop, it's B-124" stops nothing — the flow goes back to confirm with the new value
    (a correction never runs anything). A stop with no new value still stops."""
    active = turn.active
    if active is None or not turn.has("CancelFlow"):
        return
    corrected = [c.slot for c in turn.commands if c.name == "CorrectSlot" and c.flow == active.id
                 and c.value not in (None, "")]
    if corrected:
        turn.commands = [c for c in turn.commands if not (c.name == "CancelFlow" and c.flow == active.id)]
        turn.notes.append(f"act cancel read as a correction of {', '.join(str(s) for s in corrected)}, not a stop")


def _whole_message(turn: _Turn) -> None:
    """A free-text slot takes the whole message when nothing else claims it — not a question ("how much
    does it cost?" asked while the flow waits for a destination is answered, and the slot asked again),
    nor an answer to a yes/no question ("yes if it's under $20" is no destination). A message that gives a secret
    ("…, my PIN is 4321") is no free text to keep and say back, unless the slot is named for that secret
    (focal.sensing.slot_reading.may_take_secret, the rule every slot reader keeps)."""
    session, text = turn.session, turn.text
    step = current_step(turn.agent, session)
    if (step is None or session.flow_state != "waiting_for_slot" or turn.commands or turn.acts or not text.strip()
            or lexicon.is_question(text) or lexicon.is_reply_word(text)):
        return
    patterned = patterned_slots(turn.agent, turn.active)
    waiting = next((s for s in step.slots if s.type == "string" and s.name not in patterned
                    and session.slots.get(s.name) in (None, "")), None)
    if waiting is not None and may_take_secret(turn.agent, waiting.name, text, text):
        flow = turn.active.id if turn.active else None
        value = digression.without_label(text.strip(), label_words(turn.agent, waiting))
        turn.commands.append(Command(name="SetSlot", flow=flow, slot=waiting.name, value=value))


def courtesy_topic(text: str) -> str:
    """farewell ("thanks, bye"), thanks, greeting ("hi") or other small talk ("how are you?")."""
    if lexicon.is_farewell(text):
        return "farewell"
    if lexicon.is_thanks(text):
        return "thanks"
    return "greeting" if lexicon.is_greeting(text) else "smalltalk"


def _malformed_id(turn: _Turn) -> None:
    """The awaited id given in a shape near its own ("TX-482913" for TX- and four digits): a wrong value, said so."""
    session = turn.session
    step = current_step(turn.agent, session)
    if step is None or session.flow_state != "waiting_for_slot" or turn.commands:
        return
    for slot in step.slots:
        field_def = turn.agent.field(slot.name)
        if (session.slots.get(slot.name) in (None, "") and field_def is not None and field_def.field_type == "id"
                and field_def.pattern and near_miss(field_def.pattern, turn.text) is not None):
            flow = turn.active.id if turn.active else None
            turn.commands.append(Command(name="SetSlot", flow=flow, slot=slot.name, value=None))
            turn.notes.append(f"{slot.name}: an id in a shape near the field's pattern but not it")
            return


def _small_talk(turn: _Turn) -> None:
    if not turn.commands and "chitchat" in turn.acts:
        turn.commands.append(Command(name="ChitChat", topic=courtesy_topic(turn.text)))


COMMAND_STEPS: tuple[Callable[[_Turn], None], ...] = (_exits, _answer, _start, _slot_values, _correction_not_stop,
                                                     _malformed_id, _whole_message, _small_talk)


def _ambiguity(turn: _Turn) -> str | None:
    """Why the message is ambiguous, if it is: a hypothetical asked about, or a near tie between two scenarios
    with nothing else read (then the choice is offered: "yes" or "the second" answers it)."""
    if turn.hypothetical and turn.has("Clarify"):
        return f"a hypothetical question about '{turn.candidate.label}': asked before acting" if turn.candidate \
            else "hypothetical"
    if {c.name for c in turn.commands} & SETTLING:
        return None
    ambiguity = _near_tie(turn.agent, turn.scores, turn.active is not None)
    if ambiguity is not None:
        options = [s.scenario_id for s in turn.scores if s.score >= turn.agent.navigation.clarify_floor][:MAX_OPTIONS]
        turn.session.offer = Offer(kind="choose", scenario_id=options[0], options=options)
    return ambiguity


def offline_context(
    agent: AgentConfig,
    session: Session,
    text: str,
    embedding: list[float],
    scores: list[IntentScore],
    act_similarities: dict[str, float] | None = None,
    today: date | None = None,
    heard: dict[str, str] | None = None,
) -> Context:
    """The offline reading of `text`. `today`: the turn's date from the caller's clock; without it a date
    with no year, or named relative to today ("yesterday"), is not read. `heard`: dialogue acts recognised by their
    meaning in the multilingual space (act → how)."""
    best = scores[0] if scores else None
    confidence = best.score if best else 0.0
    notes: list[str] = []
    if (lang := language.foreign(text, agent.languages, own_words(agent))) is not None:
        # Not a language the agent speaks: a notice (the composer says it), never a guess from an English menu.
        notes.append(f"{language.NOTE_PREFIX}{lang}")
        return Context(message=text, embedding=embedding, intent_scores=scores[:5], source="offline", notes=notes,
                       intent_confidence=confidence)
    turn = _read(agent, session, text, scores, act_similarities, today, notes, heard)
    for step in COMMAND_STEPS:
        step(turn)
    ambiguity = _ambiguity(turn)
    return Context(
        message=text,
        embedding=embedding,
        detected_intent=best.label if best and best.score >= agent.navigation.clarify_floor else None,
        intent_confidence=confidence,
        intent_scores=scores[:5],
        extracted_entities=turn.entities,
        is_ambiguous=ambiguity is not None,
        ambiguity_reason=ambiguity,
        commands=turn.commands,
        source="offline",
        notes=notes,
    )
