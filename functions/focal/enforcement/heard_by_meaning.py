"""A yes/no answer field read by its hints is also heard by meaning: a model's sentence that says it in other words.

A boolean response field without a pattern (`liability_admitted`, `price_cap_promised`) is read offline by its
`extraction_hints`, which are words, not a meaning: "we take full responsibility for the damage" has none of "our
fault", "we are liable", … and read as the field's default, so a model's admission of liability passed. Here every
sentence of a model's draft is embedded (MiniLM, the English space the hints are written in) and set beside the
field's hints. A sentence as close to a hint as `HINT_COSINE` makes the field uncertain — the verification call
reads it, and without one the draft is blocked ("cannot verify"), as for an amount the reader cannot place — unless
it is the business's own wording: as close as `OWN_TEXT_COPY` to a sentence of the agent's templates, fallbacks or
conveyed policies ("I'm not able to say who is responsible" sits near "we are responsible for the damage" and is
what the rule says instead; "the deposit is held at pickup" near "no deposit", and is the deposit policy). This only
raises; it never decides that the draft says the field.

Only model drafts in English of an English agent are heard here: a draft in another language than the hints' is
already uncertain for such a field (focal.enforcement.reading), and the agent's own texts are the business's words.
An embedder that fails leaves every such field uncertain (fail closed).

The two figures were chosen on tests/data/attacks_s12/meaning_dev.yaml (hand-written paraphrases and honest drafts
for five fields of four agents): 23 of 27 paraphrases raised, 3 of 27 honest drafts (a verification call each when
a model is configured; MiniLM hears the subject too: "photos of the damage" sits near "responsible for the damage").
"""

from __future__ import annotations

import re

import numpy as np

from focal.enforcement.assess import Assessment
from focal.enforcement.figure_context import draft_space
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.ports import Embedder, embed_fixed

HINT_COSINE = 0.40    # a sentence this close to one of the field's hints may say the field
OWN_TEXT_COPY = 0.85  # … unless it is this close to a sentence the business itself says (its own words)

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def hear_by_meaning(agent: AgentConfig, names: set[str], text: str, found: Assessment,
                    lang: str | None, english: Embedder) -> None:
    """Raise into `found` (uncertain, to verify) every hint-read boolean field of `names` that a sentence of the
    model draft `text` says in other words; a field already read true or already uncertain is left as it is."""
    fields = [f for f in hint_fields(agent, names)
              if found.reading.values.get(f.field_name) is not True and f.field_name not in found.reading.uncertain]
    sentences = [s.strip() for s in _SENTENCE.split(text) if len(s.split()) >= 3]
    if not fields or not sentences:
        return
    space = draft_space(agent, lang, text, english, None)
    if space is None:
        return  # another language than the hints': the reader already leaves such a field uncertain
    try:
        said = _unit(np.asarray(space.embed(sentences), dtype=np.float32))
        own = _own_texts(agent)
        for f in fields:
            if (why := _said_in_other_words(space, f, own, sentences, said)) is not None:
                _raise(found, f, why)
    except Exception as exc:  # noqa: BLE001 - an embedder failure must never let the draft through unheard
        for f in fields:
            _raise(found, f, f"the answer could not be heard for {f.field_name} ({type(exc).__name__}): a model reads it")


def hint_fields(agent: AgentConfig, names: set[str]) -> list[ProfileFieldDefinition]:
    """The yes/no response fields of `names` read by their hints alone (no pattern): the fields heard here."""
    return [f for n in sorted(names) if (f := agent.field(n)) is not None and "response" in f.sources
            and not f.privileged and f.field_type == "boolean" and not f.pattern and f.extraction_hints]


def _own_texts(agent: AgentConfig) -> list[str]:
    """What the business itself says, sentence by sentence: its rules' templates and fallbacks, the policies its soft
    rules convey (their action text), its steps' instructions and templates. A hard rule's action text is a
    prohibition, and a condition is the customer's side: neither is a way of answering."""
    texts = [t for r in agent.rules if r.enabled
             for t in (r.response_template, r.fallback_text, None if r.is_hard_constraint else r.action_text) if t]
    texts += [t for sc in agent.scenarios for st in sc.steps for t in (st.instructions, st.response_template) if t]
    return [*texts, *(s.strip() for t in texts for s in _SENTENCE.split(t) if len(s.split()) >= 3)]


def _said_in_other_words(space: Embedder, f: ProfileFieldDefinition, own: list[str], sentences: list[str],
                         said: np.ndarray) -> str | None:
    hints = _unit(np.asarray(embed_fixed(space, list(f.extraction_hints)), dtype=np.float32))
    near_hint = said @ hints.T
    near_own = said @ _unit(np.asarray(embed_fixed(space, own), dtype=np.float32)).T if own else None
    worded = [re.compile(rf"\b{re.escape(h)}\b", re.I) for h in f.extraction_hints]
    for i, sentence in enumerate(sentences):
        if any(w.search(sentence) for w in worded):
            continue  # in the hint's own words: the reader has read it, its refusals too ("I can't guarantee …")
        h = int(near_hint[i].argmax())
        score = float(near_hint[i, h])
        if score < HINT_COSINE or (near_own is not None and float(near_own[i].max()) >= OWN_TEXT_COPY):
            continue
        return (f"\"{sentence[:60]}\" may say {f.field_name} in other words (cosine {score:.2f} to its hint "
                f"{f.extraction_hints[h]!r}): a model reads it")
    return None


def _raise(found: Assessment, f: ProfileFieldDefinition, why: str) -> None:
    found.reading.values.pop(f.field_name, None)
    found.reading.uncertain[f.field_name] = why
    if f not in found.verify:
        found.verify.append(f)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)
