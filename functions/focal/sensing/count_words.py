"""Counts a customer writes out in words, in English, Spanish, German or French: the one reader that turns them into
figures for the count readers ("delayed five hours" → "delayed 5 hours", "dos gigas por favor" → "2 gigas por
favor" answering "How many GB?").

A run of number words is read by focal.text.number_words: English by its strict reader (`number_value`: "twelve
fifty" is no one number), Spanish, German and French by text2num (`foreign_word_runs`). A run becomes its figure only
where it is clearly the count:
- it counts one of the field's units ("five hours" for hours: `count_units`), or
- the message answers the count's own prompt and is only that count: the run, at most one word for what it counts
  (not people: "two adults and a dog" answers no question about luggage) and courtesy words ("please", "bitte").
Another number in words left beside it ("two GB, no make that twenty") leaves all of them words: which one counts is
not clear, so the count is asked again. A lone "one" ("un", "eine", "une") is an article as often as a count, so it
is left beside a count and read only where it counts a unit or is the whole answer.
"""

from __future__ import annotations

import re

from focal.sensing import counts
from focal.text.number_words import WordRun, word_runs

_COURTESY: dict[str, frozenset[str]] = {  # closed-class words around a bare answer, per language
    "en": frozenset("please thanks thank you ok okay just only about maybe yes of them".split()),
    "es": frozenset("por favor gracias vale solo sólo unos unas sí pues entonces".split()),
    "de": frozenset("bitte danke ok okay nur etwa ja also dann gerne".split()),
    "fr": frozenset("s il vous te plaît plait svp merci ok d accord juste seulement environ oui alors".split()),
}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def _counted(word: str, units: list[str]) -> bool:
    """`word` is one of `units` (the words of what the field counts, "hours"), singular or plural."""
    word = word.lower()
    firsts = [unit.lower().split()[0] for unit in units if unit.strip()]
    return any(word in (u, f"{u}s") or u == f"{word}s" for u in firsts)


def count_units(hints: list[str], *names: str | None) -> list[str]:
    """What a count field counts: its extraction hints, or without them each word of its names ("Weeks to renew
    for", "weeks"), so "for three weeks" counts weeks as "for 3 weeks" does."""
    if hints:
        return hints
    return [w for name in names if name for w in re.split(r"[\s_]+", name) if len(w) > 2]


def _word_after(text: str, run: WordRun) -> str:
    m = re.match(r"\s+([^\W\d_]+)", text[run.end:])
    return m.group(1) if m else ""


def _only_a_count(text: str, run: WordRun, lang: str) -> bool:
    """The message is the run, at most one word for what it counts (no people) and courtesy words."""
    courtesy = _COURTESY.get(lang, frozenset()) | _COURTESY["en"]
    rest = [w for w in _WORD.findall((text[:run.start] + " " + text[run.end:]).lower()) if w not in courtesy]
    return len(rest) <= 1 and not any(counts.counts_people(w) for w in rest)


def _the_count(text: str, runs: list[WordRun], units: list[str], answering: bool, lang: str) -> list[WordRun]:
    """The runs that are clearly the count: those that count a unit, else the one run of a message that is only
    a count answering its prompt."""
    chosen = [r for r in runs if r.value is not None and _counted(_word_after(text, r), units)]
    if chosen or not answering or len(runs) != 1 or runs[0].value is None:
        return chosen
    return runs if _only_a_count(text, runs[0], lang) else []


def counts_as_digits(text: str, units: list[str], answering: bool = False, lang: str | None = None) -> str:
    """`text` with the count it writes out in words as its figure, where that is clearly the count (see the module);
    `lang` is the turn's language (None: English)."""
    lang = lang or "en"
    runs = word_runs(text, lang)
    if answering and len(runs) == 1 and runs[0].value is not None and not text[:runs[0].start].strip() \
            and not text[runs[0].end:].strip(" .!?"):
        return str(runs[0].value)  # the whole answer ("one.")
    chosen = _the_count(text, runs, units, answering, lang)
    if not chosen or any(r not in chosen and (r.value is None or r.value >= 2) for r in runs):
        return text  # nothing counted, or another number in words beside it: which one counts is not clear
    for run in sorted(chosen, key=lambda r: r.start, reverse=True):
        text = text[:run.start] + str(run.value) + text[run.end:]
    return text
