"""A customer's words for an enum value said with other words around them: "es riecht im Keller nach Gas" names
"riecht nach Gas", "a pipe burst in my kitchen" names "burst pipe".

The exact phrase is always tried first (focal.sensing.extraction); this reading is the second chance, for a phrase of
two or three words, within one clause of the message:

- in the phrase's sequence, with at most MAX_GAP other words between two of its words;
- in any sequence, next to each other or one word apart, when every word of the phrase is a word of its own (three
  letters or more, no negation): "pipe burst" for "burst pipe", never "power, no gas" for "no power".

A phrase with a negation ("no power", "kein Strom", "sin luz") is only ever read as written: words around a negation
change what it denies.
"""

from __future__ import annotations

import re
from itertools import permutations

MAX_GAP = 2  # other words allowed between two words of the phrase, in its sequence
MAX_PHRASE_WORDS = 3
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
# where a clause ends: a value named after one of these belongs to another statement
_CLAUSE_END = re.compile(r"[.,;:!?¿¡]|\b(?:but|aber|sondern|pero|sino|mais)\b", re.IGNORECASE)
_NEGATIONS = frozenset("""
no not non nor never none n't without kein keine keinen keiner keinem keines nicht nie ohne sin ni nunca ningún
ninguna ninguno pas sans jamais aucun aucune
""".split())


def _clauses(text: str) -> list[tuple[int, str]]:
    """(offset, clause) for each clause of the text."""
    out, start = [], 0
    for m in _CLAUSE_END.finditer(text):
        out.append((start, text[start:m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


def _in_sequence(words: list[str], said: list[str]) -> int | None:
    """The index in `said` where the phrase's words start, in sequence with gaps of at most MAX_GAP; None if nowhere."""
    for first in (i for i, w in enumerate(said) if w == words[0]):
        at, ok = first, True
        for word in words[1:]:
            nxt = next((j for j in range(at + 1, min(at + 2 + MAX_GAP, len(said))) if said[j] == word), None)
            if nxt is None:
                ok = False
                break
            at = nxt
        if ok:
            return first
    return None


def _any_sequence(words: list[str], said: list[str]) -> int | None:
    """The index where the phrase's words stand together in another sequence (at most one other word among them)."""
    span = len(words) + 1
    for arrangement in permutations(words):
        if list(arrangement) == words:
            continue
        for start in range(len(said)):
            window = said[start:start + span]
            if window and window[0] == arrangement[0] and _in_sequence(list(arrangement), window) == 0 \
                    and _spread(list(arrangement), window) <= span:
                return start
    return None


def _spread(words: list[str], window: list[str]) -> int:
    """How many words of the window the phrase's words take, from the first to the last."""
    at, last = 0, 0
    for word in words:
        at = window.index(word, at)
        last = at
    return last + 1


def loose_starts(phrase: str, text: str) -> list[int]:
    """Offsets in `text` where `phrase` is said with other words around or among its words (see the module)."""
    words = [w.lower() for w in _WORD.findall(phrase)]
    if not 2 <= len(words) <= MAX_PHRASE_WORDS or any(w in _NEGATIONS for w in words):
        return []
    swappable = all(len(w) >= 3 for w in words)
    starts = []
    for offset, clause in _clauses(text):
        found = list(_WORD.finditer(clause))
        said = [m.group(0).lower() for m in found]
        index = _in_sequence(words, said)
        if index is None and swappable:
            index = _any_sequence(words, said)
        if index is not None:
            starts.append(offset + found[index].start())
    return starts
