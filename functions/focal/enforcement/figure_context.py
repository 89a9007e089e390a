"""A figure a model's draft takes from the agent's texts is bound to the fact those texts state it for.

The value check (focal.enforcement.facts) accepts a figure whose value the agent's texts write anywhere, so a real
figure attached to the wrong fact would pass: with "Sunday 12–17 and weekdays 9–18" declared, "On Sunday we open
at 9" has a 9 the agent wrote — for weekdays. Here each such figure is tied to its fact:

- the agent's texts are cut into **fact units**: one per figure (a run of numbers with no word between them, as
  "9–18", "8am-8pm" or "12:00"), the figure with the words around it in its sentence, up to the next figure on
  either side (`_WINDOW` words at most). "The shop opens on Sunday 12–17 and on weekdays 9–18." gives
  "shop opens on Sunday 12–17 and on weekdays" and "and on weekdays 9–18.". A later figure's unit has lost what its
  sentence is about when the sentence names it in a heading or clause before its first figure ("Front desk hours:
  Monday to Friday 7:00-23:00, Saturday and Sunday 8:00-20:00": the weekend unit holds no desk): such a unit is also
  read led by that **subject** (`_subject`), and fits the claim as whichever of the two fits better — the subject
  names the fact, it never dilutes a unit that says it already. (Measured: neutral on the drafts sets and the dev
  set, where it fixed an English false block and made a French one; prepending the subject always, or scoring whole
  sentences, blocked more compliant drafts);
- the draft's **claim** of a figure is its sentence, when that sentence states no other figure. In a sentence of
  several figures each figure's claim is its own window of the sentence, cut as the agent's units are and led by the
  sentence's subject ("on Saturdays from 8am until 8pm" of "Monday to Friday 9am-5pm, and on Saturdays from 8am until
  8pm"); two numbers with one word between them are one figure ("between 8am and 8pm", "de 9 a 17 h"). A window is
  thin, so it ties only a figure whose marks name its kind, and its figure passes when the passage its whole sentence
  fits best states it. (Held out, drafts_figures_blind / _2: wrong figures missed 48 -> 33 and 40 -> 26 of 120,
  correct drafts blocked 23 -> 33 and 27 -> 40 of 200: one sentence's vector cannot always part its figures);
- a figure competes only with the agent's figures of its **kind** (focal.enforcement.figure_kinds: money, share,
  clock, or none named): "$12" is none of the agent's "12:00", whatever fact the sentence is about;
- digits stand as one mark in both (`_words`): the fit reads what the words say the figure is;
- the claim is supported when a unit holding the figure's value fits it within `figure_context_margin` of the unit
  that fits it best among all the agent's units (the candidate facts): the draft says the figure of the fact it
  talks about. Fit is the cosine of the two texts' vectors: MiniLM for an English draft of an English agent, the
  multilingual space for any other (a Spanish draft restating the agent's English texts).

Measured on tests/data/figures_dev (written with this check, 5 example agents, en/es/de/fr) before the default margin
0.08 was chosen; the held-out figures come from tests/data/drafts_figures_blind. Known limit: a figure said for a fact
the agent's texts never state ("the new card arrives in 30 to 60 days", where only disputes take 30 to 60 days) fits
its one passage best and passes — no other passage competes.

Values known this turn (tools, profile, session), what the customer wrote and the answers already sent support a
figure as before (focal.enforcement.facts): only the agent's own declarations are read in context. A draft whose
space has no embedder (or whose embedder fails) cannot be tied to its facts: its declared figures count as unbound
(fail closed) — a deployment answering in a language has that language's space, the sensor needs it first.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from focal.enforcement.facts import NUMBER as _NUMBER
from focal.enforcement.facts import DeclaredFigure, Unbound, number_values, without_contacts
from focal.enforcement.figure_kinds import compatible, figure_kind
from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.ports import Embedder, embed_fixed
from focal.sensing.language import reads_as
from focal.sensing.turn_language import ENGLISH, primary
from focal.text.views import reader_view

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[^\W\d_]{3,}")  # a word between two numbers parts two figures ("12–17 and weekdays 9–18")
_CLAUSE_MARK = re.compile(r"[,;:.]\s|[()]")  # a clause ends between two figures: "9-17, and 10-14" are two
_WINDOW = 5  # words on each side of a figure of the agent's, at most
_SUBJECT = 8  # words of a sentence's subject a later figure's unit may carry, at most


@dataclass(frozen=True)
class FactUnit:
    text: str
    values: frozenset[float]
    subject: str = ""  # the words that name what the unit's sentence is about, when the unit lost them
    kind: str | None = None  # money, share, clock, or None when its marks say none (focal.enforcement.figure_kinds)


def _sentences(text: str) -> list[tuple[int, int]]:
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        out.append((start, m.start()))
        start = m.end()
    return out + [(start, len(text))]


def _groups(sentence: str, pairs: bool = False) -> list[tuple[int, int]]:
    """The figures of a sentence: runs of numbers with no word between them, each widened to the whitespace around
    it ("$50", "8am-8pm", "30-day")."""
    groups: list[tuple[int, int]] = []
    for m in _DIGITS.finditer(sentence):
        between = sentence[groups[-1][1]:m.start()] if groups else ""
        if groups and (_one_figure(between) if pairs else not _WORD.search(between)):
            groups[-1] = (groups[-1][0], m.end())
        else:
            groups.append((m.start(), m.end()))
    return [(_token_start(sentence, s), _token_end(sentence, e)) for s, e in groups]


def _one_figure(between: str) -> bool:
    """Two numbers with at most one word between them are one figure, a range or a pair ("8am and 8pm", "9 bis 17",
    "de 10 h à 16 h", "2 or 3"): a word names a fact only beside others ("12–17 and weekdays 9–18" are two)."""
    words = len(_WORD.findall(between))
    return words == 0 or words == 1 and not _CLAUSE_MARK.search(between)


def _token_start(text: str, i: int) -> int:
    while i > 0 and not text[i - 1].isspace():
        i -= 1
    return i


def _token_end(text: str, i: int) -> int:
    while i < len(text) and not text[i].isspace():
        i += 1
    return i


def _window(sentence: str, groups: list[tuple[int, int]], i: int, size: int = _WINDOW) -> str:
    """Figure `i` of `sentence` with at most `size` words each side, none beyond its neighbours (the words between two
    figures belong to both: parting them in the middle cut the day from its hours in French and Spanish drafts)."""
    start, end = groups[i]
    before = sentence[groups[i - 1][1] if i else 0:start].split()
    after = sentence[end:groups[i + 1][0] if i + 1 < len(groups) else len(sentence)].split()
    return " ".join([*before[-size:], sentence[start:end], *after[:size]])


def _subject(sentence: str, groups: list[tuple[int, int]]) -> str:
    """What a sentence of several figures is about, which only its first figure's unit keeps: its words before the
    first figure, up to the last mark that ends a heading or a clause (":", ";", ",", "(") — "Front desk hours:" in
    "Front desk hours: Monday to Friday 7:00-23:00, Saturday and Sunday 8:00-20:00", not the weekdays; none when no
    such mark (the words before the first figure are then that figure's own, "The shop opens on Sunday 12–17")."""
    head = sentence[:groups[0][0]]
    cut = max(head.rfind(mark) for mark in ":;,(")
    return " ".join(head[:cut + 1].split()[-_SUBJECT:]) if cut >= 0 else ""


def fact_units(texts: Sequence[str]) -> list[FactUnit]:
    """One unit per figure of the agent's texts (see the module), each text read as a reader sees it."""
    units: dict[str, FactUnit] = {}
    for text in texts:
        view = without_contacts(reader_view(text))  # a phone's digits are no figure of a fact
        for s, e in _sentences(view):
            sentence = view[s:e]
            groups = _groups(sentence)
            for i, (start, end) in enumerate(groups):
                raw = sentence[start:end]
                values = frozenset(v for m in _DIGITS.finditer(raw) for v in number_values(m.group(0)))
                values |= frozenset(v for m in _NUMBER.finditer(raw) for v in number_values(m.group(0)))
                unit = _window(sentence, groups, i)
                subject = _subject(sentence, groups) if i else ""
                kind = figure_kind(sentence, start, end)
                if unit in units:
                    values, kind = values | units[unit].values, kind if kind == units[unit].kind else None
                units[unit] = FactUnit(unit, values, subject, kind)
    return list(units.values())


_VECTORS: dict[tuple[int, str], np.ndarray] = {}
_LOCK = threading.Lock()


# per texts object: the agent's declared texts are one list per loaded agent (facts.agent_declared_texts)
_units: PerObject[Sequence[str], list[FactUnit]] = PerObject(lambda texts: [u for u in fact_units(texts) if u.values])


def _fixed_vectors(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """The units' vectors, embedded once per embedder (and kept on disk when the embedder keeps fixed texts)."""
    key = id(embedder)
    with _LOCK:
        missing = [t for t in texts if (key, t) not in _VECTORS]
    if missing:
        fresh = np.asarray(embed_fixed(embedder, missing), dtype=np.float32)
        with _LOCK:
            if len(_VECTORS) + len(missing) > 8192:
                _VECTORS.clear()
            _VECTORS.update({(key, t): v for t, v in zip(missing, fresh, strict=True)})
    with _LOCK:
        return np.stack([_VECTORS[(key, t)] for t in texts])


def _led(subject: str, text: str) -> str:
    return f"{subject} … {text}" if subject else text


def _words(text: str) -> str:
    """What a claim or a unit says about its figure: digits stand as one mark, so that the fit reads the words (the
    same digits would pull a sentence towards any passage that writes them, whatever fact it is about)."""
    return _DIGITS.sub("N", text)


@dataclass(frozen=True)
class Claim:
    """What the draft says one figure is: its words, and the subject of its sentence when the figure shares that
    sentence with others (the draft's side of a FactUnit, cut the same way)."""
    text: str
    subject: str = ""
    sentence: str = ""  # the whole sentence, when the claim is a window of it


def claim(figure: DeclaredFigure) -> Claim:
    """What the draft says the figure is: its sentence when that sentence states no other figure; else the figure's
    own window of it, cut as the agent's units are (`_window`), led by the sentence's subject (`_subject`) — "on
    Saturdays from 8am until 8pm" of "Monday to Friday 9am-5pm, and on Saturdays from 8am until 8pm" is about
    Saturdays, whatever the weekdays beside it."""
    for s, e in _sentences(figure.text):
        if s <= figure.start < e:
            sentence = figure.text[s:e]
            groups = _groups(sentence, pairs=True)
            at = [i for i, (gs, ge) in enumerate(groups) if gs <= figure.start - s < ge]
            if len(groups) < 2 or not at:
                return Claim(" ".join(sentence.split()))
            i = at[0]
            return Claim(_window(sentence, groups, i), _subject(sentence, groups) if i else "", " ".join(sentence.split()))
    return Claim(figure.text)


def draft_space(agent: AgentConfig, lang: str | None, text: str, english: Embedder | None,
                multilingual: Embedder | None) -> Embedder | None:
    """The embedder a draft of a turn in `lang` is read with: MiniLM for an English draft of an English agent, the
    multilingual space otherwise (None when the deployment has none: the caller fails closed)."""
    said = lang or primary(agent)
    read = reads_as(text, said)
    if read is not None and read != "other script":
        said = read
    return english if said == ENGLISH and primary(agent) == ENGLISH else multilingual


@dataclass(frozen=True)
class Misplaced:
    figure: str
    fact: str   # the agent's fact the draft's sentence is about (the best-fitting unit)
    score: float  # the best fit of a unit holding the figure's value, minus the best fit of any unit


def misplaced_figures(texts: Sequence[str], figures: list[DeclaredFigure], embedder: Embedder | None,
                      margin: float) -> list[Misplaced | Unbound]:
    """The figures of `figures` whose claim is not about a fact of the agent's `texts` that holds their value, or
    (as Unbound) that cannot be tied to one: no embedder, an embedder error, no unit holding the value."""
    said = [(f, claim(f)) for f in figures]
    if not said:
        return []
    units = _units(texts)
    if embedder is None:
        return [Unbound("figure", f.text[f.start:f.end]) for f in figures]
    claims = list(dict.fromkeys(c for _, c in said))
    try:
        sims, whole = _fits(embedder, units, claims)
    except Exception:  # noqa: BLE001 - any failure of the model: the figures stay unverified, never passed
        return [Unbound("figure", f.text[f.start:f.end]) for f in figures]
    out = [_judge(f, c, sims[claims.index(c)], whole[claims.index(c)], units, margin) for f, c in said]
    return [found for found in out if found is not None]


def _fits(embedder: Embedder, units: list[FactUnit], claims: list[Claim]) -> tuple[np.ndarray, np.ndarray]:
    """How well each claim fits each unit: read as its own words (or led by its sentence's subject), and read as its
    whole sentence. A unit fits as itself or led by its sentence's subject, whichever fits better: the subject can
    name the fact the unit lost ("desk hours" for the weekend hours), never dilute a unit that already says it."""
    unit_vecs = _fixed_vectors(embedder, [_words(u.text) for u in units])
    led_vecs = _fixed_vectors(embedder, [_words(_led(u.subject, u.text)) for u in units])

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(embedder.embed([_words(t) for t in texts]), dtype=np.float32)

    claim_vecs, led_claims = embed([c.text for c in claims]), embed([_led(c.subject, c.text) for c in claims])
    sentence_vecs = embed([c.sentence or c.text for c in claims])
    sims = np.maximum.reduce([c @ u.T for c in (claim_vecs, led_claims) for u in (unit_vecs, led_vecs)])
    return sims, np.maximum(sentence_vecs @ unit_vecs.T, sentence_vecs @ led_vecs.T)


def _judge(f: DeclaredFigure, c: Claim, row: np.ndarray, whole: np.ndarray, units: list[FactUnit],
           margin: float) -> Misplaced | Unbound | None:
    """One figure's verdict from its claim's fits (`row`; `whole`: as its whole sentence reads): None when the unit
    it fits best, among the agent's figures of its kind, holds its value or fits within `margin` of one that does."""
    # only the agent's figures of the same kind compete: "$24" is none of the agent's "24 hours"
    kind = figure_kind(f.text, f.start, f.end)
    rivals = [i for i, u in enumerate(units) if compatible(kind, u.kind)]
    holding = [i for i in rivals if all(v & units[i].values for v in f.values)]
    if not holding:
        return Unbound("figure", f.text[f.start:f.end])
    if c.sentence and kind is None:  # a window of a figure that names no kind is too thin to tie it (measured)
        return None
    best = _misplaced(row, rivals, holding, margin)
    # the whole sentence settles a window's figure when the one passage it fits best states that figure
    if best is None or c.sentence and _misplaced(whole, rivals, holding, 0.0) is None:
        return None
    own = max(float(row[i]) for i in holding)
    return Misplaced(f.text[f.start:f.end], units[best].text, round(own - float(row[best]), 4))


def _misplaced(row: np.ndarray, rivals: list[int], holding: list[int], margin: float) -> int | None:
    """The rival unit a claim fits best, when every unit holding its figure fits it less by more than `margin`."""
    best = max(rivals, key=lambda i: float(row[i]))
    return best if max(float(row[i]) for i in holding) < float(row[best]) - margin else None


def figure_problems(agent: AgentConfig, texts: Sequence[str], figures: list[DeclaredFigure], lang: str | None,
                    english: Embedder | None, multilingual: Embedder | None) -> list[str]:
    """Why each of the draft's `figures` (supported only by the agent's `texts`) cannot be said as it is: none when
    each is said for the fact the agent declares it for."""
    if not figures:
        return []
    embedder = draft_space(agent, lang, figures[0].text, english, multilingual)
    out = []
    for found in misplaced_figures(texts, figures, embedder, agent.enforcement.figure_context_margin):
        if isinstance(found, Misplaced):
            out.append(f"figure {found.figure!r} is not the agent's figure for what this sentence says; the agent's "
                       f"texts state it for another fact (this sentence is about {found.fact!r})")
        else:
            out.append(f"figure {found.text!r} cannot be tied to a fact the agent's texts state it for "
                       "(no passage of theirs holds it, or no embedder could read the draft)")
    return out
