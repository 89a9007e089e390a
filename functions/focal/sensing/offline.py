"""The offline sensor: intent by nearest entry examples, dialogue acts by lexicon and exemplars,
slot values by type, corrections by cue words, hypotheticals held back for a question."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from focal.flow_reading import current_step, flow_slots, missing_slot, slot_value_valid, value_valid
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Scenario, Slot
from focal.models.context import Command, Context, IntentScore
from focal.models.session import Offer, Session
from focal.sensing import assign, counts, digression, language, lexicon, offers, tone
from focal.sensing.acts import detect_acts
from focal.sensing.extraction import coerce, extract
from focal.sensing.offers import MAX_OPTIONS
from focal.variables import PENDING, known_variables

STOP_ACTS = ("HumanHandoff", "CancelFlow")  # explicit exits: they break stickiness


def slot_field(agent: AgentConfig, slot: Slot) -> ProfileFieldDefinition:
    """A slot is read with the field definition of the same name when there is one."""
    return agent.field(slot.name) or ProfileFieldDefinition(field_name=slot.name, field_type=slot.type)


def message_entities(agent: AgentConfig, text: str, today: date | None = None, asked: str | None = None) -> dict[str, Any]:
    """The values the message states for the fields a customer may give; `asked`: the variable the last turn
    asked for outside a flow, which the message answers (a bare "yes" is a value only for it)."""
    out = {}
    for f in agent.profile_field_definitions:
        if "message" not in f.sources or f.privileged or f.field_type == "string" and not f.pattern:
            continue
        value = extract(f, text, choosing=True, answering=f.field_name == asked, today=today)
        if value in (None, [], ""):
            continue
        value = coerce(f.field_type, value)
        if value_valid(f.validation_rules, value):  # a value failing the field's validation_rules is not taken
            out[f.field_name] = value
    return _without_parts(out, text)


def _within(part: str, whole: str, text: str) -> bool:
    """Every place `part` is written in `text` lies inside a place `whole` is written."""
    spans = [(m.start(), m.end()) for m in re.finditer(re.escape(whole), text)]
    starts = [m.start() for m in re.finditer(re.escape(part), text)]
    return bool(starts) and all(any(a <= s and s + len(part) <= b for a, b in spans) for s in starts)


def _without_parts(values: dict[str, Any], text: str) -> dict[str, Any]:
    """One value, one field: a text value that is only ever a piece of another field's value ("1001" of the
    phone number "555-010-1001" read by a four-digit pattern) is no value of its own."""
    texts = {name: v for name, v in values.items() if isinstance(v, str) and v}
    return {name: v for name, v in values.items()
            if not (name in texts and any(o != name and len(w) > len(v) and _within(v, w, text) for o, w in texts.items()))}


def awaited_slot(agent: AgentConfig, session: Session) -> Slot | None:
    """The slot the active flow is waiting for: the message answers its prompt."""
    step = current_step(agent, session)
    if step is None or session.flow_state != "waiting_for_slot":
        return None
    return missing_slot(step, known_variables(agent, session, None))


def _slots_of(agent: AgentConfig, scenario: Scenario | None) -> list[Slot]:
    return flow_slots(agent, scenario)


def _ambiguity(agent: AgentConfig, scores: list[IntentScore], active: bool) -> str | None:
    nav = agent.navigation
    if active or not scores:
        return None
    best = scores[0]
    if len(scores) > 1 and scores[1].score >= nav.entry_threshold and best.score - scores[1].score < nav.ambiguity_margin:
        return f"'{best.label}' and '{scores[1].label}' fit almost equally ({best.score:.2f} vs {scores[1].score:.2f})"
    return None  # a weak best intent is judged by route, after the rules have had their say


GENERIC_NOUNS = {"number", "id", "value", "name", "code"}


def _mentions(agent: AgentConfig, slot: Slot, text: str) -> bool:
    """Whether the message names the slot: "the booking reference", "the new address", "the address"."""
    field = agent.field(slot.name)
    names = {slot.name.replace("_", " ")}
    if field and field.display_name:
        words = field.display_name.lower().split()
        names.add(" ".join(words))
        if words[-1] not in GENERIC_NOUNS:
            names.add(words[-1])
    return any(re.search(rf"\b{re.escape(n)}\b", text, re.IGNORECASE) for n in names)


def _unique(slots: list[Slot]) -> list[Slot]:
    """A slot asked at several steps (again after a failed check) is one slot, read once."""
    return list({slot.name: slot for slot in reversed(slots)}.values())[::-1]


def _readings(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scenario: Scenario,
              notes: list[str], today: date | None) -> dict[str, Any]:
    """The value the message gives each slot of `scenario`, one value to one slot (`assign`)."""
    active = scenario.id == session.active_scenario_id
    awaited = awaited_slot(agent, session) if active else None
    held = session.slots if active else {}
    slots = _unique(_slots_of(agent, scenario))
    values: dict[str, Any] = {}
    # a yes or a no answers a yes/no slot only when the agent's last message asked something (a fallback text
    # that replaced the blocked question did not: the customer never saw it)
    asked = "?" in next((h.text for h in reversed(session.history) if h.role == "assistant"), "")
    for slot in slots:
        value = entities.get(slot.name)
        answering = awaited is not None and slot.name == awaited.name and (slot.type != "boolean" or asked)
        if answering and slot.type == "integer" and counts.asks_how_many(slot.prompt) and (n := counts.people(text)):
            value = n  # "two adults and a child", "me and my wife" (a message that only lists people)
        elif value is None:
            value = coerce(slot.type, extract(slot_field(agent, slot), text, choosing=True, answering=answering, today=today))
        if value not in (None, "", []):
            values[slot.name] = value
    dated = assign.date_slots(agent, slots, held, awaited, text, today, notes)
    if dated is not None:
        values = {s.name: values[s.name] for s in slots if s.type != "date" and s.name in values} | dated
    values = assign.one_slot_each(agent, slots, values, held, awaited, text, notes)
    for slot in slots:  # a value the message gives another slot is not this one's, for the rest of the turn either
        if slot.name in entities and values.get(slot.name) != entities[slot.name]:
            del entities[slot.name]
    return values


def _slot_commands(
    agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scenarios: list[Scenario], notes: list[str],
    today: date | None = None,
) -> list[Command]:
    """SetSlot for new values; CorrectSlot when the active flow already holds a different value and the
    message says it corrects it (correction language or frame, see `digression`), or when the customer
    asks to change a value without giving the new one ("wrong address")."""
    commands: list[Command] = []
    correcting = lexicon.is_correction(text)
    step = current_step(agent, session)
    for scenario in scenarios:
        active = scenario.id == session.active_scenario_id
        values = _readings(agent, session, text, entities, scenario, notes, today)
        for slot in _unique(_slots_of(agent, scenario)):
            value = values.get(slot.name)
            held = session.slots.get(slot.name) if active else None
            if value is not None:
                if held not in (None, "") and held != value:
                    if not (digression.is_correction(text) or digression.correction_frame(session, step, slot, text, value)):
                        notes.append(f"{slot.name} {value!r} is not a correction of {held!r} (no correction language or frame)")
                        continue
                    commands.append(Command(name="CorrectSlot", flow=scenario.id, slot=slot.name, value=value))
                else:
                    commands.append(Command(name="SetSlot", flow=scenario.id, slot=slot.name, value=value))
            elif active and correcting and held not in (None, "") and _mentions(agent, slot, text):
                commands.append(Command(name="CorrectSlot", flow=scenario.id, slot=slot.name, value=None))
    return commands


def _read_only(agent: AgentConfig, scenario: Scenario) -> bool:
    tools = [agent.tool(t) for st in scenario.steps for t in st.action]
    return all(t is not None and not t.side_effect for t in tools)


def _digression(agent: AgentConfig, session: Session, text: str, entities: dict[str, Any], scores: list[IntentScore],
                today: date | None = None) -> IntentScore | None:
    """Mid-flow, a question about another value of a held slot ("what about my other booking B-128?"): answered by
    another scenario that takes that slot — the one the message fits (≥ entry_threshold), else the best-fitting
    read-only one (it only looks things up) — started nested, so the active flow is offered back afterwards."""
    active = agent.scenario(session.active_scenario_id)
    if active is None or digression.is_correction(text) or not digression.is_digression(text):
        return None
    step = current_step(agent, session)
    others: set[str] = set()
    for slot in _slots_of(agent, active):
        value = entities.get(slot.name)
        if value is None:
            value = coerce(slot.type, extract(slot_field(agent, slot), text, choosing=True, today=today))
        held = session.slots.get(slot.name)
        if value not in (None, "", []) and held not in (None, "") and held != value \
                and not digression.correction_frame(session, step, slot, text, value):
            others.add(slot.name)
    if not others:
        return None
    takers = [s for s in scores if s.scenario_id != active.id
              and others & {slot.name for slot in _slots_of(agent, agent.scenario(s.scenario_id))}]
    fit = next((s for s in takers if s.score >= agent.navigation.entry_threshold), None)
    if fit is None:
        fit = next((s for s in takers if _read_only(agent, agent.scenario(s.scenario_id))), None)  # type: ignore[arg-type]
    return fit


def _candidate(
    agent: AgentConfig, session: Session, scores: list[IntentScore], exiting: bool, floor: float | None = None
) -> IntentScore | None:
    """The scenario the message would start. Inside a flow only an unmistakable other intent
    (≥ exit_intent_threshold) is proposed, or any entry-worthy one once the customer cancels;
    route has the last word (stickiness)."""
    nav = agent.navigation
    other = next((s for s in scores if s.scenario_id != session.active_scenario_id), None)
    if other is None or other.score < (nav.entry_threshold if floor is None else floor):
        return None
    if session.active_scenario_id and not exiting and other.score < nav.exit_intent_threshold:
        return None
    return other


def _answer_offer(agent: AgentConfig, session: Session, text: str, acts: dict[str, str], notes: list[str]) -> list[Command]:
    """The customer's answer to the agent's last question (resume / start / choose between options)."""
    offer = session.offer
    assert offer is not None
    index, how = offers.pick(agent, offer, text, acts)
    if how == "deny":
        return [Command(name="DenyConfirmation", flow=offer.scenario_id)]
    if index is None:
        return []
    notes.append(f"answered the agent's question ({offer.kind}): {how}")
    return [Command(name="AffirmConfirmation", flow=offer.choices()[index], value=index)]


def _fill_rest(agent: AgentConfig, session: Session, text: str, commands: list[Command]) -> list[Command]:
    """Several slots from one message: once typed slots took their values, a short remainder fills the flow's
    next empty free-text slot ("a large margherita": size "large", then the pizza "margherita")."""
    active = agent.scenario(session.active_scenario_id)
    step = current_step(agent, session)
    filled = [c for c in commands if c.name == "SetSlot" and c.flow == session.active_scenario_id]
    if not filled or not any(s.name == c.slot for c in filled for s in (step.slots if step else [])):
        return []
    slot = digression.free_text_slot(active, session, step)
    if slot is None or any(c.slot == slot.name for c in commands):
        return []
    rest = digression.remainder(text, [c.value for c in filled])
    if rest is None or not slot_value_valid(slot, rest):
        return []
    return [Command(name="SetSlot", flow=session.active_scenario_id, slot=slot.name, value=rest)]


def offline_context(
    agent: AgentConfig,
    session: Session,
    text: str,
    embedding: list[float],
    scores: list[IntentScore],
    act_similarities: dict[str, float] | None = None,
    today: date | None = None,
) -> Context:
    """The offline reading of `text`. `today`: the turn's date from the caller's clock; without it a date
    with no year, or named relative to today ("yesterday"), is not read."""
    nav = agent.navigation
    commands: list[Command] = []
    notes: list[str] = []
    active = agent.scenario(session.active_scenario_id)
    step = current_step(agent, session)
    best = scores[0] if scores else None
    if (lang := language.foreign(text, agent.languages)) is not None:
        # Not a language the agent speaks: a notice (the composer says it), never a guess from an English menu.
        notes.append(f"{language.NOTE_PREFIX}{lang}")
        return Context(message=text, embedding=embedding, intent_scores=scores[:5], source="offline", notes=notes,
                       intent_confidence=best.score if best else 0.0)
    pending = session.variables.get(PENDING)
    entities = message_entities(agent, text, today, pending.get("variable") if isinstance(pending, dict) else None)
    acts = detect_acts(text, act_similarities, agent.sensor.act_similarity)
    # the question the customer answers: the last sentence of the agent's last message that asks one, not the
    # summary before it ("…the money goes back to your card. Shall I cancel booking K1NW8N?")
    asked = lexicon.question_of(next((h.text for h in reversed(session.history) if h.role == "assistant"), ""))
    if "affirm" not in acts and lexicon.affirm_in_its_words(text, asked):
        for act in ("cancel", "deny"):  # "sure, cancel it" to "Shall I cancel it?" answers yes; it stops nothing
            acts.pop(act, None)
        acts["affirm"] = "lexicon (a yes in the words of the question)"
    if "affirm" in acts and not lexicon.plain_affirm(text, asked):
        acts.pop("affirm")  # "yes lol nvm", "yes, on Monday": more than a yes, so no confirmation
        notes.append("act affirm set aside: the message says more than yes")
    hypothetical = "hypothetical" in acts
    notes += [f"act {act} ({how})" for act, how in acts.items()]
    abusive = tone.abusive(text)
    if abusive:
        notes.append(tone.NOTE)
    nested = _digression(agent, session, text, entities, scores, today) if active and not hypothetical else None
    if nested is not None:
        notes.append(f"digression: a question about another value, answered by {nested.label}; not a correction")

    if "handoff" in acts:
        commands.append(Command(name="HumanHandoff"))
    elif active and "cancel" in acts and not hypothetical and nested is None:
        commands.append(Command(name="CancelFlow", flow=active.id))
    if session.offer is not None and not active and not hypothetical:
        commands += _answer_offer(agent, session, text, acts, notes)
    elif active and session.flow_state == "confirming" and not hypothetical and nested is None:
        if "affirm" in acts:
            commands.append(Command(name="AffirmConfirmation", flow=active.id))
        elif "deny" in acts:
            commands.append(Command(name="DenyConfirmation", flow=active.id))

    starting = None
    answered = any(c.name == "AffirmConfirmation" for c in commands)
    floor = nav.clarify_floor if abusive else None  # insults pull the vector away from every example
    candidate = None if answered else nested or _candidate(
        agent, session, scores, exiting="CancelFlow" in {c.name for c in commands}, floor=floor)
    if candidate is None and hypothetical and best is not None and best.score >= nav.clarify_floor \
            and best.scenario_id != session.active_scenario_id:
        candidate = best  # "if I did X, would …?": a weak resemblance is enough to ask, never to act
    if candidate is not None:
        if hypothetical:
            commands.append(Command(name="Clarify", flow=candidate.scenario_id, topic="hypothetical"))
        else:
            starting = agent.scenario(candidate.scenario_id)
            commands.append(Command(name="StartFlow", flow=candidate.scenario_id, value=round(candidate.score, 4),
                                    topic="digression" if nested is not None else None))

    if not hypothetical:
        # Values in a message that starts a flow belong to that flow ("check the status of B-125"
        # during a rebooking is not a new reference for the rebooking).
        owners = [starting] if starting else [active] if active else []
        commands += _slot_commands(agent, session, text, entities, owners, notes, today)
        if starting is None and active is not None:
            commands += _fill_rest(agent, session, text, commands)
    # A free-text slot takes the whole message when nothing else claims it — not a question ("how much
    # does it cost?" asked while the flow waits for a destination is answered, and the slot asked again),
    # nor an answer to a yes/no question ("yes if it's under $20" is no destination).
    if (step is not None and session.flow_state == "waiting_for_slot" and not commands and not acts and text.strip()
            and not lexicon.is_question(text) and not lexicon.is_reply_word(text)):
        waiting = next((s for s in step.slots if s.type == "string" and session.slots.get(s.name) in (None, "")), None)
        if waiting is not None:
            commands.append(Command(name="SetSlot", flow=active.id if active else None, slot=waiting.name, value=text.strip()))
    if not commands and "chitchat" in acts:
        commands.append(Command(name="ChitChat", topic="greeting" if lexicon.is_greeting(text) else "smalltalk"))

    names = {c.name for c in commands}
    ambiguity = None
    if hypothetical and "Clarify" in names:
        ambiguity = f"a hypothetical question about '{candidate.label}': asked before acting" if candidate else "hypothetical"
    elif not names & {"HumanHandoff", "CancelFlow", "AffirmConfirmation", "DenyConfirmation", "SetSlot", "CorrectSlot"}:
        ambiguity = _ambiguity(agent, scores, active is not None)
        if ambiguity is not None:
            options = [s.scenario_id for s in scores if s.score >= nav.clarify_floor][:MAX_OPTIONS]
            session.offer = Offer(kind="choose", scenario_id=options[0], options=options)  # "yes" / "the second" answers it
    return Context(
        message=text,
        embedding=embedding,
        detected_intent=best.label if best and best.score >= nav.clarify_floor else None,
        intent_confidence=best.score if best else 0.0,
        intent_scores=scores[:5],
        extracted_entities=entities,
        is_ambiguous=ambiguity is not None,
        ambiguity_reason=ambiguity,
        commands=commands,
        source="offline",
        notes=notes,
    )
