"""Words that compare an amount with a limit, in the language of the text being read.

The draft reader's cue words are English: "at most $50" restates a limit (it promises nothing), "$50 plus $20" adds.
Read as English, the French "au plus 50 €" (at most) is the additive "plus", and "plus de 50 €" (more than) a
promise of 50. So before the reader looks at a text, the comparisons written in each language the text is in
(focal.sensing.language reads it, per sentence) are put in the reader's own words for the same comparison, and
only those: "au plus 50 €" is read as "at most 50 €", "50 € como máximo" as "50 € or less". Everything else the
reader does not know in that language stays as it is (a model's answer in another language is not read offline
at all: focal.enforcement.reading).

Data, closed-class: per language, the phrases of each comparison written before the amount and after it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.sensing.language import NAMES, foreign_parts
from focal.text.views import check_view

# The reader's own words for each comparison (focal.enforcement.amount_cues THRESHOLD_BEFORE / THRESHOLD_AFTER).
READER_BEFORE = {"at_most": "at most", "at_least": "at least", "more_than": "more than", "less_than": "less than"}
READER_AFTER = {"at_most": "or less", "at_least": "or more", "more_than": "or more", "less_than": "or less"}

BEFORE: dict[str, dict[str, tuple[str, ...]]] = {
    "fr": {"at_most": ("au plus", "au maximum", "tout au plus", "pas plus de", "jusqu'à", "jusqu'a", "maximum de",
                       "dans la limite de", "plafonné à"),
           "at_least": ("au moins", "au minimum", "minimum de", "pas moins de"),
           "more_than": ("plus de", "plus que", "au-delà de", "supérieur à", "supérieure à", "supérieurs à"),
           "less_than": ("moins de", "moins que", "inférieur à", "inférieure à", "en dessous de", "sous")},
    "es": {"at_most": ("como máximo", "como mucho", "a lo sumo", "hasta", "no más de", "máximo de", "un máximo de"),
           "at_least": ("como mínimo", "al menos", "por lo menos", "mínimo de", "un mínimo de", "no menos de"),
           "more_than": ("más de", "más que", "superior a", "por encima de"),
           "less_than": ("menos de", "menos que", "inferior a", "por debajo de")},
    "de": {"at_most": ("höchstens", "maximal", "bis zu", "nicht mehr als", "max."),
           "at_least": ("mindestens", "wenigstens", "minimal", "nicht weniger als"),
           "more_than": ("mehr als", "über", "oberhalb von"),
           "less_than": ("weniger als", "unter", "unterhalb von")},
}
AFTER: dict[str, dict[str, tuple[str, ...]]] = {
    "fr": {"at_most": ("au plus", "au maximum", "maximum", "ou moins"), "at_least": ("au moins", "au minimum",
                                                                                    "minimum", "ou plus")},
    "es": {"at_most": ("como máximo", "como mucho", "máximo", "o menos"), "at_least": ("como mínimo", "al menos",
                                                                                      "mínimo", "o más")},
    "de": {"at_most": ("höchstens", "maximal", "oder weniger"), "at_least": ("mindestens", "oder mehr")},
}

_CODES = {name: code for code, name in NAMES.items()}
# an amount as the checked view writes it: a currency sign or code, then a figure, or a figure then a sign
_FIGURE = r"(?:[$€£]\s?)?\d"
_AFTER_FIGURE = r"(?<=[\d$€£%])\s?"


def _alternatives(phrases: tuple[str, ...]) -> str:
    folded = sorted({re.escape(check_view(p).lower()) for p in phrases}, key=len, reverse=True)
    return "|".join(folded)


@lru_cache(maxsize=8)
def _patterns(lang: str) -> tuple[tuple[re.Pattern[str], str], ...]:
    """(pattern, the reader's words) for the comparisons of `lang`, before an amount and after one."""
    out = []
    for kind, phrases in BEFORE.get(lang, {}).items():
        out.append((re.compile(rf"(?<![\w-])(?:{_alternatives(phrases)})(?=\s*{_FIGURE})", re.I), READER_BEFORE[kind]))
    for kind, phrases in AFTER.get(lang, {}).items():
        out.append((re.compile(rf"{_AFTER_FIGURE}(?:{_alternatives(phrases)})(?![\w-])", re.I), " " + READER_AFTER[kind]))
    return tuple(out)


def languages_of(text: str) -> list[str]:
    """The codes of the languages other than English that parts of `text` read as, with comparison words known."""
    found = {_CODES.get(name) for name, _ in foreign_parts(text)}
    return sorted(code for code in found if code in BEFORE)


def in_reader_words(checked: str, languages: list[str]) -> str:
    """`checked` (the checked view of a text) with the comparisons of `languages` in the reader's words."""
    for lang in languages:
        for pattern, words in _patterns(lang):
            checked = pattern.sub(words, checked)
    return checked
