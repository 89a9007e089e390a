"""Output check: the draft's language — a model's answer must be in the conversation's language.

The turn's language is the one the sensor read (focal.sensing.turn_language, kept in the session); the draft is read
with the same word lists (focal.sensing.language.reads_as). A model draft that clearly reads as another language is
not said: the customer hears the agent's own words in their language (the offline composer over the localized agent),
as for any output check.

The turn's language is a reading with a default: a first message that says too little, or words the lists miss ("Mein
Paket kam beschädigt an"), leaves the conversation in the agent's first language. So a draft that clearly reads as
another declared language is blocked only when the customer's own messages say otherwise: read in order, starting
from the draft's language, they end in another one (`customer_language`). A model that answered a German message in
German when the sensor could not tell passes; one that answered clear Spanish in English does not.

A draft whose language cannot be read clearly passes this check. Language is not a safety property of the answer:
every other check (the rules, unbound facts, internal names, relevance, grounding) still reads it, whatever its
language. What cannot be read is mostly short answers made of ids, amounts, names and "OK" — the answers a customer
reads in any language; blocking them would replace correct answers with the agent's generic words far more often
than it would catch a wrong-language answer, and a long answer in another language does read clearly.
"""

from __future__ import annotations

from dataclasses import dataclass

from focal.models.agent import AgentConfig
from focal.sensing.language import NAMES, reads_as
from focal.sensing.turn_language import turn_language


@dataclass(frozen=True)
class LanguageVerdict:
    passed: bool
    reason: str
    read_as: str | None = None


def customer_language(agent: AgentConfig, messages: list[str], start: str) -> str:
    """The language the customer's messages (in order) put the conversation in, read from `start` on: `start` when
    none of them clearly says another declared language (focal.sensing.turn_language)."""
    current = start
    for message in messages:
        current = turn_language(agent, message, current)
    return current


def draft_language(agent: AgentConfig, text: str, lang: str | None, messages: list[str]) -> LanguageVerdict:
    """Whether a model's draft is in the turn's language `lang` (None: not read yet — nothing to compare);
    `messages`: the customer's messages of the conversation, this turn's last."""
    if not lang:
        return LanguageVerdict(True, "the turn's language is not known")
    found = reads_as(text, lang)
    expected = NAMES.get(lang, lang)
    if found is None:
        return LanguageVerdict(True, f"reads as {expected} or too little to tell")
    written = NAMES.get(found, found)
    if found in agent.languages and customer_language(agent, messages, found) == found:
        return LanguageVerdict(True, f"reads as {written}, and nothing the customer wrote clearly says another language",
                               found)
    return LanguageVerdict(False, f"the answer is written in {written}; the customer writes in {expected}: "
                                  f"write the whole answer in {expected}", found)
