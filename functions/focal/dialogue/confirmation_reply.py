"""The customer's answer to a confirmation question, when it says more than yes or no.

A confirmation shows values ("Change the address of booking B-12 to 5 Lake Road?"): the words after a yes (or
a no) are read with the extractors of the values the question showed, the slots of the active flow:

- they state the value that was shown ("yes, to 5 Lake Road"): the details agree, so it is a yes (when nothing
  else is left in them but a word or two that carries the value: "send it to …");
- they state another value ("yes but make it 9 Hill Street", "no, it's 9 Hill Street", "yes, for three
  nights" where two were shown): the value is corrected and the question is asked again with it — nothing
  runs on a yes given to other values than the ones that would run;
- they refer to a value without stating it ("yes, send it to my home address", "yes, the same card as last
  time"): one question about that detail, quoting what was shown ("Is your home address 5 Lake Road?"), and
  nothing runs until the customer answers it.

Anything else (a condition, a question, a hedge, words about none of the shown values) is not read here: the
sensor's ordinary reading stands, and the question is asked again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from focal.dialogue.clarify import confirmation_question
from focal.dialogue.flow import current_step, flow_slots, slot_value_valid
from focal.dialogue.variables import placeholders
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Slot, Step
from focal.models.context import Command
from focal.models.session import Session
from focal.sensing import lexicon
from focal.sensing.extraction import coerce, extract

DETAIL = "detail"  # the topic of the Clarify command that asks about one shown value
GENERIC_NOUNS = {"number", "id", "value", "name", "code"}
# Words after which a condition, a doubt or a question follows: such details are not read here.
_CONDITION = re.compile(r"\b(if|unless|as long as|provided|once|after|until|when|maybe|perhaps|not sure|"
                        r"only|wait|hold on|later|tomorrow|first)\b|\?", re.IGNORECASE)
# What introduces a value in the details: "… to X", "it's X", "make it X", "use X". After a no only the explicit
# ones do ("no, it's 9 Hill Street"; not "no, leave it as it is").
_MARKER = re.compile(r"\b(?:to|is|it's|it is|should be|make it|change it to|use|at|into|for|as)\s+", re.IGNORECASE)
_EXPLICIT = re.compile(r"\b(?:it's|it is|it should be|should be|make it|change it to|use)\s+", re.IGNORECASE)
# Words that state no value of their own: a candidate made only of them is none ("it is", "the same").
_EMPTY = frozenset("it is as that this the a an one same them there here fine ok okay good right so".split())
# A phrase that refers to a value instead of stating it: "my home address", "the same card", "our usual one".
_REFERENCE = re.compile(r"^(?:my|our|the|this|that|his|her|their|your|same|usual)\b", re.IGNORECASE)
_PERSON = {"my": "your", "our": "your", "mine": "yours", "me": "you", "i": "you", "we": "you", "us": "you"}
_WORD = re.compile(r"[\w'-]+")
_TRAILING = re.compile(r"(?:[\s,;.!]+(?:please|instead|thanks|thank you|then|too))+[\s.!]*$|[\s,;.!]+$", re.IGNORECASE)
MAX_CARRIER_WORDS = 1  # "send it to X", "use X": at most one word around an agreeing value that is not a yes


@dataclass(frozen=True)
class _Reading:
    agrees: list[str]
    changes: list[tuple[Slot, Any]]
    asks: list[tuple[Slot, str]]


def _field(agent: AgentConfig, slot: Slot) -> ProfileFieldDefinition:
    return agent.field(slot.name) or ProfileFieldDefinition(field_name=slot.name, field_type=slot.type)


def shown_slots(agent: AgentConfig, session: Session, step: Step) -> list[Slot]:
    """The slots of the active flow whose values the confirmation question shows (and the session holds)."""
    names = placeholders(confirmation_question(agent, step))
    slots = {s.name: s for s in flow_slots(agent, agent.scenario(session.active_scenario_id))}
    return [slots[n] for n in sorted(names) if n in slots and session.slots.get(n) not in (None, "")]


def _names(agent: AgentConfig, slot: Slot) -> list[str]:
    """How a customer names the slot: "return date", "new return date", "date"."""
    field = agent.field(slot.name)
    names = {slot.name.replace("_", " ")}
    words = (field.display_name or "").lower().split() if field else []
    if words:
        names.add(" ".join(words))
        if words[-1] not in GENERIC_NOUNS:
            names.add(words[-1])
    if slot.name.split("_")[-1] not in GENERIC_NOUNS:
        names.add(slot.name.split("_")[-1])
    return sorted(names, key=len, reverse=True)


def _mention(agent: AgentConfig, slot: Slot, text: str) -> str | None:
    """The customer's phrase for the slot ("my home address"), or None when the text does not name it."""
    for name in _names(agent, slot):
        m = re.search(rf"\b((?:my|our|the|this|that|your|same)\s+(?:[\w'-]+\s+){{0,3}}?)?{re.escape(name)}\b", text, re.IGNORECASE)
        if m:
            return m.group(0)
    return None


def _free_text(field: ProfileFieldDefinition) -> bool:
    return field.field_type == "string" and not field.pattern


def _written(value: Any, text: str) -> str | None:
    """Where `value` is written in `text` (spacing and case aside), as a pattern; None when it is not."""
    words = _WORD.findall(str(value))
    if not words:
        return None
    pattern = r"\W+".join(re.escape(w) for w in words)
    return pattern if re.search(pattern, text, re.IGNORECASE) else None


def _candidate(details: str, opening_no: bool, held: Any) -> str | None:
    """The free-text value the details give: what follows their last marker ("… to X"); after a no, only an
    explicit marker introduces one. A candidate is shaped like the value it would replace (digits where the
    held value has digits) and has a word of its own."""
    marks = list((_EXPLICIT if opening_no else _MARKER).finditer(details))
    if not marks:
        return None
    tail = _TRAILING.sub("", details[marks[-1].end():]).strip()
    words = [w.lower() for w in _WORD.findall(tail)]
    if not words or all(w in _EMPTY for w in words):
        return None
    if any(ch.isdigit() for ch in str(held)) and not _REFERENCE.match(tail) and not any(ch.isdigit() for ch in tail):
        return None
    return tail


def _read_free_text(agent: AgentConfig, slot: Slot, held: Any, details: str, opening_no: bool, out: _Reading) -> None:
    if (pattern := _written(held, details)) is not None:
        out.agrees.append(pattern)
        return
    candidate = _candidate(details, opening_no, held)
    if candidate is not None and _REFERENCE.match(candidate) and not any(ch.isdigit() for ch in candidate):
        out.asks.append((slot, candidate))
    elif candidate is not None and slot_value_valid(slot, candidate, _field(agent, slot).validation_rules):
        out.changes.append((slot, candidate))
    elif (phrase := _mention(agent, slot, details)) is not None:
        out.asks.append((slot, phrase))


def _read_typed(agent: AgentConfig, slot: Slot, held: Any, details: str, today: date | None, out: _Reading) -> None:
    value = coerce(slot.type, extract(_field(agent, slot), details, choosing=True, today=today))
    if value in (None, "", []):
        if (phrase := _mention(agent, slot, details)) is not None:
            out.asks.append((slot, phrase))
    elif value == coerce(slot.type, held):
        if (pattern := _written(held, details)) is not None:
            out.agrees.append(pattern)
        else:
            out.agrees.append(re.escape(str(value)))
    else:
        out.changes.append((slot, value))


def _carrier_words(details: str, agreed: list[str], question: str) -> list[str]:
    """The words of the details that are neither the agreeing values, a yes, the question's own words nor filler."""
    rest = details
    for pattern in agreed:
        rest = re.sub(pattern, " ", rest, flags=re.IGNORECASE)
    allowed = lexicon.plain_yes_words(question) | {"to", "it", "them", "at", "for", "on", "in", "a", "an", "the", "my",
                                                    "our", "that", "this", "one", "is", "as", "same"}
    return [w for w in _WORD.findall(rest.lower()) if w not in allowed]


def _opening(text: str) -> tuple[str, bool] | None:
    """The details after a leading yes or no, and whether it was a no; None when the text opens with neither."""
    no = lexicon.DENY.match(text)
    yes = None if no else lexicon.AFFIRM.match(text)
    m = no or yes
    if m is None:
        return None
    return text[m.end():].strip(" ,;:.!-\u2014"), no is not None


def reply_commands(agent: AgentConfig, session: Session, text: str, asked: str, today: date | None,
                   notes: list[str]) -> list[Command] | None:
    """The commands of a yes or a no with details at a confirmation step (None: the details are not read here).

    `asked`: the question being answered (its words may be echoed)."""
    step = current_step(agent, session)
    opened = _opening(text) if step is not None and session.flow_state == "confirming" else None
    if step is None or opened is None or not opened[0] or _CONDITION.search(opened[0]) or lexicon.is_unsure(text) \
            or lexicon.is_cancel(opened[0]):
        return None
    details, opening_no = opened
    out = _Reading([], [], [])
    shown = shown_slots(agent, session, step)
    free = [s for s in shown if _free_text(_field(agent, s))]
    for slot in shown:
        held = session.slots.get(slot.name)
        if slot not in free:
            _read_typed(agent, slot, held, details, today, out)
        elif len(free) == 1 or _mention(agent, slot, details) is not None:  # which free text the details are about
            _read_free_text(agent, slot, held, details, opening_no, out)
    return _commands(session, out, details, asked, opening_no, notes)


def _commands(session: Session, out: _Reading, details: str, asked: str, opening_no: bool,
              notes: list[str]) -> list[Command] | None:
    flow = session.active_scenario_id
    if out.changes:
        notes.append("confirmation answered with another value: " + ", ".join(s.name for s, _ in out.changes) + " changed")
        changed = [Command(name="CorrectSlot", flow=flow, slot=s.name, value=v) for s, v in out.changes]
        return changed + ([Command(name="DenyConfirmation", flow=flow)] if opening_no else [])
    if out.asks and not opening_no:
        slot, phrase = out.asks[0]
        notes.append(f"confirmation answered with a reference to {slot.name}: asked whether it is the value shown")
        return [Command(name="Clarify", flow=flow, slot=slot.name, topic=DETAIL, value=_phrase(phrase))]
    if out.agrees and not opening_no and len(_carrier_words(details, out.agrees, asked)) <= MAX_CARRIER_WORDS:
        notes.append("act affirm (a yes whose details agree with the values shown)")
        return [Command(name="AffirmConfirmation", flow=flow)]
    return None


def _phrase(words: str) -> str:
    """The customer's phrase as the agent says it back ("my home address" → "your home address"), words only."""
    said = [_PERSON.get(w.lower(), w) for w in _WORD.findall(words)]
    if said and not _REFERENCE.match(said[0]):
        said = ["the", *said]
    return " ".join(said)


def detail_question(command: Command) -> str:
    """The one question about the detail a yes referred to, with the shown value as a placeholder."""
    return (f"Is {command.value} {{{command.slot}}}? Please answer yes to go ahead with it, "
            f"or no with the right one.")


def asked_detail(commands: list[Command]) -> Command | None:
    return next((c for c in commands if c.name == "Clarify" and c.topic == DETAIL and c.slot), None)


def question_to_ask(agent: AgentConfig, step: Step, commands: list[Command]) -> str:
    """What a confirmation step asks this turn: the question about a detail the customer referred to, else
    the step's own confirmation question."""
    detail = asked_detail(commands)
    return detail_question(detail) if detail is not None else confirmation_question(agent, step)


def confirmation_answer(agent: AgentConfig, session: Session, text: str, acts: dict[str, str], asked: str,
                        today: date | None, notes: list[str]) -> list[Command]:
    """The commands of the customer's answer at a confirmation step: a plain yes, a yes or a no with details
    (`reply_commands`), a plain no — or nothing the step can use."""
    flow = session.active_scenario_id
    if "affirm" in acts:
        return [Command(name="AffirmConfirmation", flow=flow)]
    read = reply_commands(agent, session, text, asked, today, notes)
    if read is not None:
        return read
    return [Command(name="DenyConfirmation", flow=flow)] if "deny" in acts else []
