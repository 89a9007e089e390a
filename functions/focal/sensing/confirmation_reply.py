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

A yes followed only by thanks ("ja, und danke für die schnelle Hilfe") is a yes. Anything else (a condition, a refused
value, a question, a hedge, another request, words about none of the shown values) is not read here: the sensor's
ordinary reading stands, and the question is asked again.

In Spanish, German and French alike: the opening yes or no, the words of a condition or a refusal and the words that
carry an agreeing value ("oui, allez-y avec 10 euros sur VC123456") are each language's (focal.sensing.reply_words),
the values are read by the turn's language's readers, and an amount agrees with the currency written beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from focal.flow_reading import current_step, flow_slots, slot_value_valid
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Slot, Step
from focal.models.context import Command
from focal.models.engine_texts import english
from focal.models.session import Session
from focal.sensing import confirmation_words, lexicon, reply_words
from focal.sensing.extraction import coerce, extract
from focal.variables import known_variables, placeholders

DETAIL = "detail"  # the topic of the Clarify command that asks about one shown value
GENERIC_NOUNS = {"number", "id", "value", "name", "code"}
_WORD = re.compile(r"[\w'-]+")
MAX_VALUE_WORDS = 4  # the longest span of words searched for a value written differently ("the 4th of May")
MIN_RESTATED = 2  # the fewest words of a shown free-text value that, repeated as written, agree with it
MAX_CARRIER_WORDS = 1  # "send it to X", "use X": at most one word around an agreeing value that is not a yes


@dataclass(frozen=True)
class Shown:
    """A value the confirmation question shows: its variable, how it is read, what it is (None: not known to the
    sensor, a profile fact), and the flow's slot for it (only a slot's value is the customer's to change)."""
    name: str
    field: ProfileFieldDefinition
    held: Any
    slot: Slot | None


@dataclass
class _Reading:
    agrees: list[str] = field(default_factory=list)  # patterns of the shown values the details repeat
    changes: list[tuple[Slot, Any]] = field(default_factory=list)
    asks: list[tuple[str, str]] = field(default_factory=list)  # (variable, the customer's phrase for it)
    conflicts: list[str] = field(default_factory=list)  # another value for a shown value the customer cannot change


def shown_values(agent: AgentConfig, session: Session, step: Step) -> list[Shown]:
    """The values the step's confirmation question shows, in the order of their names."""
    slots = {s.name: s for s in flow_slots(agent, agent.scenario(session.active_scenario_id))}
    known = known_variables(agent, session, None)
    out = []
    for name in sorted(placeholders(step.confirmation_prompt)):  # the question the step asks (without a prompt
        # of its own, the tool's description, which shows no values)
        slot = slots.get(name)
        definition = agent.field(name) or (ProfileFieldDefinition(field_name=name, field_type=slot.type) if slot else None)
        if definition is not None:
            out.append(Shown(name, definition, known.get(name), slot))
    return out


def _kind(shown: Shown) -> str:
    return shown.slot.type if shown.slot else shown.field.field_type


def _names(agent: AgentConfig, name: str) -> list[str]:
    """How a customer names the variable: "return date", "new return date", "date"."""
    definition = agent.field(name)
    names = {name.replace("_", " ")}
    words = (definition.display_name or "").lower().split() if definition else []
    if words:
        names.add(" ".join(words))
        if words[-1] not in GENERIC_NOUNS:
            names.add(words[-1])
    if name.split("_")[-1] not in GENERIC_NOUNS:
        names.add(name.split("_")[-1])
    return sorted(names, key=len, reverse=True)


def _mention(agent: AgentConfig, name: str, text: str) -> str | None:
    """The customer's phrase for the variable ("my home address"), or None when the text does not name it."""
    for said in _names(agent, name):
        m = re.search(rf"\b((?:my|our|the|this|that|your|same)\s+(?:[\w'-]+\s+){{0,3}}?)?{re.escape(said)}\b", text,
                      re.IGNORECASE)
        if m:
            return m.group(0)
    return None


def _free_text(definition: ProfileFieldDefinition) -> bool:
    return definition.field_type == "string" and not definition.pattern


def _written(value: Any, text: str) -> str | None:
    """Where `value` is written in `text` (spacing and case aside), as a pattern; None when it is not."""
    words = _WORD.findall(str(value)) if value not in (None, "") else []
    if not words:
        return None
    pattern = r"\W+".join(re.escape(w) for w in words)
    return pattern if re.search(pattern, text, re.IGNORECASE) else None


def _candidate(details: str, opening_no: bool, held: Any) -> str | None:
    """The free-text value the details give: what follows their last marker ("… to X"); after a no, only an
    explicit marker introduces one. A candidate is shaped like the value it would replace (digits where the
    held value has digits) and has a word of its own."""
    marks = confirmation_words.markers(details, opening_no)
    if not marks:
        return None
    tail = confirmation_words.without_trailing(details[marks[-1].end():])
    said = [w.lower() for w in _WORD.findall(tail)]
    if not said or all(w in confirmation_words.empty_words() for w in said):
        return None
    if any(ch.isdigit() for ch in str(held)) and not confirmation_words.refers(tail) and not any(ch.isdigit() for ch in tail):
        return None
    return tail


def _reference(candidate: str) -> bool:
    return confirmation_words.refers(candidate) and not any(ch.isdigit() for ch in candidate)


def _read_free_text(agent: AgentConfig, shown: Shown, only: bool, details: str, opening_no: bool, out: _Reading,
                    claimed: list[tuple[str, str]], restated: str | None = None) -> None:
    """`only`: the one free-text value shown that the customer gave (a reference after the yes is to it).
    `claimed`: where the details state a typed value shown beside it ("for booking B-12"): a candidate that is only
    that value and words naming it is that value's, not this one's too. `restated`: where the details repeat part
    of the value as shown ("Gartenweg 12" of "Gartenweg 12, Potsdam"), which agrees with it."""
    if (pattern := _written(shown.held, details) or restated) is not None:
        out.agrees.append(pattern)
        return
    mention = _mention(agent, shown.name, details)
    candidate = _candidate(details, opening_no, shown.held)
    if candidate is not None and _only_claimed(agent, candidate, shown, claimed):
        candidate = None
    if candidate is not None and _reference(candidate) and (only or _mention(agent, shown.name, candidate)):
        out.asks.append((shown.name, candidate))
    elif candidate is not None and not _reference(candidate) and (only or mention is not None):
        if shown.slot is None:
            out.conflicts.append(shown.name)
        elif slot_value_valid(shown.slot, candidate, shown.field.validation_rules):
            out.changes.append((shown.slot, candidate))
    elif mention is not None:
        out.asks.append((shown.name, mention))


def _span(shown: Shown, kind: str, details: str, value: Any, today: date | None) -> str:
    """A pattern for the fewest words of `details` that state `value` ("May 4" for 2026-05-04)."""
    words = _WORD.findall(details)
    for size in range(1, min(len(words), MAX_VALUE_WORDS) + 1):
        for start in range(len(words) - size + 1):
            part = words[start:start + size]
            if coerce(kind, extract(shown.field, " ".join(part), choosing=True, today=today)) == value:
                return r"\W+".join(re.escape(w) for w in part)
    return re.escape(str(value))


def _read_typed(agent: AgentConfig, shown: Shown, others: list[Any], details: str, today: date | None,
                out: _Reading) -> None:
    """`others`: the values shown for other variables of the same type ("from May 4 to May 7"): a value that is
    one of them is theirs, and another value could change either, so it is not read as this one's."""
    kind = _kind(shown)
    value = coerce(kind, extract(shown.field, details, choosing=True, today=today))
    if value in (None, "", []):
        if (phrase := _mention(agent, shown.name, details)) is not None:
            out.asks.append((shown.name, phrase))
    elif shown.held is not None and value == coerce(kind, shown.held):
        agreed = _written(shown.held, details) or _span(shown, kind, details, value, today)
        out.agrees.append(confirmation_words.with_currency(agreed) if kind == "money" else agreed)
    elif value in [coerce(kind, o) for o in others]:
        return
    elif shown.slot is not None and shown.held is not None and not others:
        out.changes.append((shown.slot, value))
    else:
        out.conflicts.append(shown.name)


def _carrier_words(details: str, agreed: list[str], question: str) -> list[str]:
    """The words of the details that are neither the agreeing values, a yes, the question's own words nor words that
    carry a value in the turn's language."""
    rest = details
    for pattern in agreed:
        rest = re.sub(pattern, " ", rest, flags=re.IGNORECASE)
    allowed = lexicon.plain_yes_words(question) | confirmation_words.carrier_words()
    return [w for w in lexicon.tokens(rest) if w not in allowed]


def _opening(text: str) -> tuple[str, bool] | None:
    """The details after a leading yes or no, and whether it was a no; None when the text opens with neither, or
    when the details put a condition, a doubt, a question or a stop on it (those are not read here)."""
    no = _longest(lexicon.DENY.match(text), reply_words.opening("deny", text))
    m = no or _longest(lexicon.AFFIRM.match(text), reply_words.opening("affirm", text))
    if m is None:
        return None
    details = text[m.end():].strip(" ,;:.!-\u2014")
    if not details or confirmation_words.puts_a_condition(details) or lexicon.is_unsure(text) or lexicon.is_cancel(details):
        return None
    return details, no is not None


def _longest(*found: re.Match[str] | None) -> re.Match[str] | None:
    """The longest of the opening words found (English "no" or French "non merci")."""
    return max((m for m in found if m is not None), key=lambda m: m.end(), default=None)


def _only_claimed(agent: AgentConfig, candidate: str, shown: Shown, claimed: list[tuple[str, str]]) -> bool:
    """The candidate holds a typed value's words and, besides them, nothing but filler and that value's names
    ("booking B-12": the booking id and "booking"); "9 Hill Street" holding a number keeps words of its own."""
    rest, names = candidate, set(confirmation_words.empty_words())
    for pattern, name in claimed:
        if name != shown.name and re.search(pattern, rest, re.IGNORECASE):
            rest = re.sub(pattern, " ", rest, flags=re.IGNORECASE)
            names |= {w for said in _names(agent, name) for w in said.split()}
    return rest != candidate and all(w.lower() in names for w in _WORD.findall(rest))


def _typed_spans(shown: list[Shown], details: str, today: date | None) -> list[tuple[str, str]]:
    """(pattern, variable): where the details state a value of each shown typed value (its extractor reads one)."""
    spans = []
    for value in shown:
        if _free_text(value.field):
            continue
        read = coerce(_kind(value), extract(value.field, details, choosing=True, today=today))
        if read not in (None, "", []):
            spans.append((_written(read, details) or _span(value, _kind(value), details, read, today), value.name))
    return spans


def _restated(held: Any, details: str) -> str | None:
    """A pattern for the first part of a shown free-text value (up to its first comma: "Gartenweg 12" of "Gartenweg
    12, Potsdam"), of MIN_RESTATED words or more, when the details repeat it as written; None when they do not. Only
    a whole first part: "12 Harbor" of "12 Harbor Road", or the town two addresses share, agrees with nothing."""
    first = str(held).split(",")[0] if held not in (None, "") else ""
    words = _WORD.findall(first)
    if len(words) < MIN_RESTATED or first.strip() == str(held).strip():
        return None  # a value of one part is agreed to only when written whole (_written)
    pattern = r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)"
    return pattern if re.search(pattern, details, re.IGNORECASE) else None


def _read(agent: AgentConfig, shown: list[Shown], details: str, opening_no: bool, today: date | None) -> _Reading:
    """Each shown value read from the details: free text by what follows a marker, typed values by their extractor;
    words read as a typed value are that value's only (one span of the details fills one value), and words that
    repeat a shown free-text value are that value's: "ja, Gartenweg 12 stimmt" agrees with the address shown, its
    12 is no new day for the date beside it."""
    out = _Reading()
    free = [v for v in shown if _free_text(v.field)]
    given = [v for v in free if v.slot is not None]
    restated = {v.name: p for v in free if (p := _restated(v.held, details)) is not None}
    typed_details = details
    for pattern in restated.values():
        typed_details = re.sub(pattern, " ", typed_details, flags=re.IGNORECASE)
    claimed = _typed_spans(shown, typed_details, today) if free else []
    for value in shown:
        if value in free:
            named_elsewhere = any(_mention(agent, o.name, details) for o in shown if o is not value)
            _read_free_text(agent, value, len(given) == 1 and value in given and not named_elsewhere, details,
                            opening_no, out, claimed, restated.get(value.name))
        else:
            others = [o.held for o in shown if o is not value and o not in free and o.held is not None
                      and _kind(o) == _kind(value)]
            _read_typed(agent, value, others, typed_details, today, out)
    return out


def reply_commands(agent: AgentConfig, session: Session, text: str, asked: str, today: date | None,
                   notes: list[str]) -> list[Command] | None:
    """The commands of a yes or a no with details at a confirmation step (None: the details are not read here).

    `asked`: the question being answered (its words may be echoed)."""
    step = current_step(agent, session)
    opened = _opening(text) if step is not None and session.flow_state == "confirming" else None
    if step is None or opened is None:
        return None
    details, opening_no = opened
    out = _read(agent, shown_values(agent, session, step), details, opening_no, today)
    return _commands(session, out, details, asked, opening_no, notes)


def _commands(session: Session, out: _Reading, details: str, asked: str, opening_no: bool,
              notes: list[str]) -> list[Command] | None:
    flow = session.active_scenario_id
    if out.conflicts:
        notes.append("confirmation answered with another value for " + ", ".join(out.conflicts) + ", which the customer"
                     " does not set: asked again")
        return None
    if out.changes:
        notes.append("confirmation answered with another value: " + ", ".join(s.name for s, _ in out.changes) + " changed")
        changed = [Command(name="CorrectSlot", flow=flow, slot=s.name, value=v) for s, v in out.changes]
        return changed + ([Command(name="DenyConfirmation", flow=flow)] if opening_no else [])
    if out.asks and not opening_no:
        name, phrase = out.asks[0]
        notes.append(f"confirmation answered with a reference to {name}: asked whether it is the value shown")
        return [Command(name="Clarify", flow=flow, slot=name, topic=DETAIL, value=_phrase(phrase))]
    if out.agrees and not opening_no and not lexicon.has_reservation(details) \
            and len(_carrier_words(details, out.agrees, asked)) <= MAX_CARRIER_WORDS:
        # the opening yes is the lexicon's, and the details only add agreement: as sure as a plain yes
        notes.append("act affirm (lexicon: a yes whose details agree with the values shown)")
        return [Command(name="AffirmConfirmation", flow=flow)]
    if not opening_no and not out.agrees and confirmation_words.only_thanks(details):
        notes.append("act affirm (lexicon: a yes with thanks after it)")
        return [Command(name="AffirmConfirmation", flow=flow)]
    return None


def _phrase(phrase: str) -> str:
    """The customer's phrase as the agent says it back ("my home address" → "your home address", "mi dirección" →
    "su dirección"), words only; in English a phrase without its determiner gets one ("the usual weeks")."""
    said = confirmation_words.said_back(_WORD.findall(phrase))
    if confirmation_words.english_turn():
        return " ".join(["the", *said] if said and not confirmation_words.refers(said[0]) else said)
    # The question is worded in English and said in the turn's language by its template ("Is {what} {shown}?" →
    # "¿Se refiere a {shown} ({what})?"): the phrase is held together by non-breaking spaces, so that the template
    # tells it from the value shown after it.
    return "\u00a0".join(said)


def detail_question(command: Command) -> str:
    """The one question about the detail a yes referred to, with the shown value as a placeholder."""
    return english("detail_question").replace("{what}", str(command.value)).replace("{shown}", f"{{{command.slot}}}")


def asked_detail(commands: list[Command]) -> Command | None:
    return next((c for c in commands if c.name == "Clarify" and c.topic == DETAIL and c.slot), None)


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
