"""Output check: the draft's language — a model's answer must be in the conversation's language.

The turn's language is the one the sensor read (focal.sensing.turn_language, kept in the session); the draft is read
with the same word lists (focal.sensing.language.reads_as). A model draft that clearly reads as another language is
not said: the customer hears the agent's own words in their language (the offline composer over the localized agent),
as for any output check.

A draft whose language cannot be read clearly passes this check. Language is not a safety property of the answer:
every other check (the rules, unbound facts, internal names, relevance, grounding) still reads it, whatever its
language. What cannot be read is mostly short answers made of ids, amounts, names and "OK" — the answers a customer
reads in any language; blocking them would replace correct answers with the agent's generic words far more often
than it would catch a wrong-language answer, and a long answer in another language does read clearly.
"""

from __future__ import annotations

from dataclasses import dataclass

from focal.sensing.language import NAMES, reads_as


@dataclass(frozen=True)
class LanguageVerdict:
    passed: bool
    reason: str
    read_as: str | None = None


def draft_language(text: str, lang: str | None) -> LanguageVerdict:
    """Whether a model's draft is in the turn's language `lang` (None: not read yet — nothing to compare)."""
    if not lang:
        return LanguageVerdict(True, "the turn's language is not known")
    found = reads_as(text, lang)
    expected = NAMES.get(lang, lang)
    if found is None:
        return LanguageVerdict(True, f"reads as {expected} or too little to tell")
    written = NAMES.get(found, found)
    return LanguageVerdict(False, f"the answer is written in {written}; the customer writes in {expected}: "
                                  f"write the whole answer in {expected}", found)
