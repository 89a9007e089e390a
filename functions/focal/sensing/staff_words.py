"""A request for a person in the business's own words: "Could I speak to one of the mechanics?".

The meaning index of focal.sensing.person_request hears requests for a person in general words (someone, staff, an
agent, a human). A business names its people by their trade (mechanics, pharmacists, adjusters), and in the
multilingual space such a noun pulls the sentence towards its trade and away from asking for a person: "Could I
speak to one of the mechanics?" reads 0.57 against a threshold of 0.61, "... one of the staff?" 0.82.

The agent says which of its words name its people, without a list of trades: an example of its own hand-off (a rule
or flow whose examples are heard asking for a person, as focal.sensing.person_request.asks_for_a_person) that is not
heard itself, but is heard once one of its words is said as "staff" ("Put me through to one of your mechanics"),
names them by that word, when no other word of it comes within the index's margin of doing the same. A message
holding such a word is read a second time with it said as "staff", by the same index, threshold and margin: "are
your mechanics certified?" stays a question about them.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence

from focal.models.agent import AgentConfig
from focal.per_object import PerObjectPair
from focal.ports import Embedder, embed_fixed
from focal.sensing.person_request import MARGIN, PersonIndex, asks_for_a_person, person_index

GENERIC = "staff"  # heard in each language's sentences too ("Können Sie mich mit einem Ihrer staff verbinden?")
_WORD = re.compile(r"[^\W\d_]{3,}")


def _key(word: str) -> str:
    """One form for a word and its plural ("mechanic", "mechanics")."""
    folded = word.casefold()
    return folded[:-1] if len(folded) > 3 and folded.endswith("s") else folded


def own_handoff_examples(embedder: Embedder, agent: AgentConfig) -> tuple[str, ...]:
    """The examples of the agent's rules and flows that are its own way of handing over (any example heard asking
    for a person)."""
    sets = [tuple(rule.examples) for rule in agent.rules if rule.examples]
    sets += [tuple(s.entry_examples) for s in agent.scenarios if s.entry_examples]
    return tuple(t for texts in sets if asks_for_a_person(embedder, texts) for t in texts)


_known: dict[tuple[int, tuple[str, ...]], frozenset[str]] = {}
_lock = threading.Lock()


def _named_by(text: str, index: PersonIndex, embedder: Embedder) -> str | None:
    """The word of `text` (an example not heard asking) said as `GENERIC` that makes it heard, when that word raises
    its asking cosine more than any other word does by at least the index's margin: the trade noun of "Put me
    through to one of your mechanics" (+0.20, the next +0.08), never a word of "take over my case" (+0.06, +0.04)."""
    words = [m for m in _WORD.finditer(text) if _key(m.group()) != GENERIC]
    if not words:
        return None
    said = [text[:m.start()] + GENERIC + text[m.end():] for m in words]
    readings = [index.reading(v) for v in embed_fixed(embedder, said)]
    ranked = sorted(range(len(words)), key=lambda n: readings[n].asking, reverse=True)
    best = ranked[0]
    lead = readings[best].asking - (readings[ranked[1]].asking if len(ranked) > 1 else index.reading(
        embed_fixed(embedder, [text])[0]).asking)
    return words[best].group() if readings[best].heard and lead >= MARGIN else None


def staff_words(embedder: Embedder, examples: Sequence[str]) -> frozenset[str]:
    """The words (in `_key` form) by which `examples` name the business's people (`_named_by`). Cached per
    example set."""
    key = (id(embedder), tuple(examples))
    with _lock:
        known = _known.get(key)
    if known is not None:
        return known
    index = person_index(embedder)
    unheard = [t for t, v in zip(examples, embed_fixed(embedder, list(examples)), strict=True)
               if not index.reading(v).heard] if examples else []
    known = frozenset(_key(w) for t in unheard if (w := _named_by(t, index, embedder)) is not None)
    with _lock:
        _known[key] = known
    return known


def said_generically(text: str, words: frozenset[str]) -> str | None:
    """`text` with the business's words for its people said as `GENERIC`; None when it holds none of them."""
    said = _WORD.sub(lambda m: GENERIC if _key(m.group()) in words else m.group(), text)
    return said if said != text else None


def _agents_staff_words(agent: AgentConfig, embedder: Embedder) -> frozenset[str]:
    return staff_words(embedder, own_handoff_examples(embedder, agent))


# Once per agent and embedder: gathering the agent's hand-off examples walks every rule and flow example.
_PER_AGENT: PerObjectPair[AgentConfig, Embedder, frozenset[str]] = PerObjectPair(_agents_staff_words)


def agents_staff_words(embedder: Embedder, agent: AgentConfig) -> frozenset[str]:
    """The words by which `agent`'s own hand-off examples name its people (`staff_words`), computed once per agent
    config and embedder."""
    return _PER_AGENT(agent, embedder)
