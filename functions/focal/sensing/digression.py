"""Corrections versus digressions, and the rest of a message that filled a typed slot.

A different value for a slot the flow already holds is a correction only with correction language
("I meant", "actually it's", "sorry, wrong number", "not X but Y") or in a correction frame (the
step is asking for that slot, or is confirming it and the message is little more than the value).
Otherwise it is a digression: a question about another entity ("what about my other booking B-128?")
is answered by a flow it fits (nested: the interrupted flow is offered back) or by the rules, and
the held value stays.
"""

from __future__ import annotations

import re
from typing import Any

from focal.models.agent import Scenario, Slot, Step
from focal.models.session import Session
from focal.sensing import lexicon
from focal.sensing.language import STOPWORDS
from focal.variables import placeholders

CORRECTION = re.compile(
    r"\b(i meant|i mean|meant to say|actually(,)? (it'?s|it is|make it|use)|sorry,? (it'?s|wrong|i)|wrong \w+|o+ps|whoops|"
    r"typo|my mistake|instead|make (it|that)|change (it|that) to|not \S+,? but|should (be|have been)|correction)\b",
    re.IGNORECASE,
)
OTHER_ENTITY = re.compile(r"\b(other|another|second|different|separate|also|too)\b", re.IGNORECASE)
FILLER = frozenset(
    "a an the i i'd id i'm im want would like please can could you get me my some one with and it's its it is "
    "make that this for of to just go ok okay yes thanks thank".split()
)
MAX_REMAINDER_WORDS = 4
_WORD = re.compile(r"\w[\w'-]*")


def is_correction(text: str) -> bool:
    return bool(CORRECTION.search(text))


def correction_frame(session: Session, step: Step | None, slot: Slot, text: str, value: Any) -> bool:
    """The step is asking for this slot, or is asking to confirm the value it shows for it (or a guard refused the
    action on it: `blocked`) and the message states another one without asking anything ("forget the 5th, make it
    December 6", "olvide lo anterior, mejor el 6 de diciembre", "Ja, bitte, 15 Euro" after a refused €30: whatever
    words come before it), or the message is (almost) only the new value ("no, B-124")."""
    if step is not None and session.flow_state == "waiting_for_slot" and any(s.name == slot.name for s in step.slots):
        return True
    if step is not None and session.flow_state in ("confirming", "blocked") \
            and slot.name in placeholders(step.confirmation_prompt or "") and not is_digression(text):
        return True  # blocked: a guard refused the offer of this value, and the flow waits for a changed one
    rest = [w for w in _WORD.findall(text.lower().replace(str(value).lower(), " ")) if w not in FILLER and w not in ("no", "nope")]
    return len(rest) <= 2


def is_digression(text: str) -> bool:
    """A question, or a mention of another entity, rather than a new value for the held one."""
    return bool(OTHER_ENTITY.search(text) or lexicon.is_question(text))


_SEGMENT = re.compile(r"\s*[,;]\s*|\s+[—–-]\s+|\s+(?:and|y|und|et)\s+", re.IGNORECASE)


def _written(value: Any) -> re.Pattern[str]:
    return re.compile(re.escape(str(value)), re.IGNORECASE)


def remainder(text: str, used: list[Any]) -> str | None:
    """What is left of a short message once the typed values it gave and filler words are removed
    ("a large margherita" → "margherita" after `size` took "large"); None when nothing of substance is left, or
    when a value is not written as such in the text (a date, an amount in words), so its words cannot be taken out.
    A message in parts ("Maria Lopez, she is 34", "Pedro Ruiz, 45 años") leaves the parts that gave no typed value:
    the words around a value in its own part ("she is", "años") are about that value, in any language."""
    if any(not _written(value).search(text) for value in used):
        return None  # read from other words ("12 April 1985" as a date): what is left of the text is unknown
    parts = [p for p in _SEGMENT.split(text) if p.strip()]
    free = [p for p in parts if not any(_written(value).search(p) for value in used)]
    if len(parts) > 1 and free and (words := _words(" ".join(free))):
        return _joined(words)
    rest = text
    for value in used:
        rest = _written(value).sub(" ", rest)
    return _joined(_words(rest))


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower() not in FILLER]


def _grammar(word: str) -> bool:
    """A word of grammar in a language the engine reads, elided forms included: "C'est", "qu'il", "it's" are a
    clitic of one or two letters joined to a word of grammar ("l'aéroport" is not: "aéroport" names something)."""
    pieces = [p for p in word.lower().split("'") if p]
    return bool(pieces) and all(any(p in STOPWORDS[lang] for lang in STOPWORDS) or (len(p) <= 2 and len(pieces) > 1)
                                for p in pieces)


def _joined(words: list[str]) -> str | None:
    """The words of the free text; none when only words of grammar are left, in any language the engine reads ("Es"
    of "Es CR-10421" or "C'est" of "C'est RK204518" answering a booking reference names no one)."""
    if not words or len(words) > MAX_REMAINDER_WORDS or all(_grammar(w) for w in words):
        return None
    return " ".join(words)


def without_label(value: str, labels: frozenset[str]) -> str:
    """A free-text value without the words before it that only say which value it is: "surname Martin" or "my
    surname is Martin" for the slot `driver_surname` is "Martin". `labels`: the words naming the slot (its field's
    name and display name); the leading words go only when one of them is such a word and something is left."""
    words = list(_WORD.finditer(value))
    cut, named = 0, False
    for m in words:
        w = m.group(0).lower()
        if w in labels:
            named, cut = True, m.end()
        elif w in FILLER or _grammar(w) or w in _LABEL_LINKS:
            cut = m.end() if named else cut
        else:
            break
    rest = value[cut:].lstrip(" :,-–—=")
    return rest if named and _WORD.search(rest) else value


_LABEL_LINKS = frozenset("is es est ist lautet".split())  # "my surname is", "mi apellido es", "mon nom est"


def free_text_slot(scenario: Scenario | None, session: Session, step: Step | None,
                   patterned: frozenset[str] = frozenset()) -> Slot | None:
    """The first string slot still empty at or after the current step, step by step (no validation-free guess
    beyond the flow's own sequence). `patterned`: the string slots a field's pattern reads, never free text."""
    if scenario is None or step is None:
        return None
    ids = [s.id for s in scenario.steps]
    start = ids.index(step.id) if step.id in ids else 0
    for st in scenario.steps[start:]:
        for slot in st.slots:
            if slot.type == "string" and slot.name not in patterned and session.slots.get(slot.name) in (None, ""):
                return slot
    return None
