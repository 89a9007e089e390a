"""Rule retrieval for a turn matched in the multilingual space (focal.sensing.spaces).

The agent's rule keys and entry examples, with every translation's examples (focal.models.translations
.matching_view), are indexed in an in-process index of that space (`Deps.multilingual_index`), synced on the turn
after a config change like the local index; the message is centred on the model's background mean, searched like
an English one (focal.retrieval.matching), and each key's score is put on MiniLM's scale (focal.sensing.spaces.score_scale),
where `retrieval.rule_match_threshold` is written: by the same-language fit for a key in the message's language, the
cross-language one otherwise.

A rule matches here at the agent's threshold, never at the lower one its nearest other allows in MiniLM's space
(focal.retrieval.rule_thresholds, focal.dialogue.match_bounds). That lowering says that nothing else the agent wrote
comes near the rule there, measured between English texts in MiniLM's space; a message in another language meets the
rule's keys in another space, across languages, where that measurement says nothing, and off-topic messages reached
such lowered thresholds ("Wie wird das Wetter morgen?" matched the desk-hours rule at 0.15, below the agent's 0.25).
A relaxation without evidence in the space the turn is matched in is not applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from focal.models.agent import AgentConfig
from focal.models.localized import matching_view
from focal.per_object import PerObject
from focal.ports import Embedder, Hit, RuleIndex, ScopeFilter
from focal.retrieval.calibration import centred
from focal.retrieval.description_gap import description_gap
from focal.retrieval.matching import RuleHit, search_rules
from focal.retrieval.rules import KEY_SEPARATOR, agent_rule_keys, config_digest, sync_index
from focal.sensing.spaces import MultilingualSpaceUnavailable, embed_message, on_reference_scale

SPACE = "multilingual"


class Deps(Protocol):
    """What matching in the multilingual space needs of a turn's deps (focal.turn.deps.Deps has it; so can a bench)."""

    embedder: Embedder
    multilingual_embedder: Embedder | None
    multilingual_index: RuleIndex | None
    indexed: dict[tuple[str, str], str]


def ensure_multilingual_indexed(deps: Deps, tenant_id: str, agent: AgentConfig) -> AgentConfig:
    """The agent's keys in the multilingual index, synced when they changed; returns the view they come from."""
    assert deps.multilingual_embedder is not None and deps.multilingual_index is not None
    view = matching_view(agent)
    key = (tenant_id, f"{agent.id}\x1f{SPACE}\x1f{id(deps.multilingual_index)}")  # what is synced is this index's
    digest = config_digest(view, deps.multilingual_embedder)
    if deps.indexed.get(key) != digest:
        sync_index(deps.multilingual_index, deps.multilingual_embedder, tenant_id, view)
        deps.indexed[key] = digest
    return view


def key_languages(agent: AgentConfig) -> dict[str, str]:
    """Document id → the language of its text, for the keys of `matching_view(agent)` that a translation gave (the
    others are in the file's language)."""
    view = matching_view(agent)
    given: dict[str, str] = {}
    for lang, texts in agent.translations.items():
        for rule_id, rule_texts in texts.rules.items():
            given.update({f"{rule_id}\x1f{e}": lang for e in rule_texts.examples})
        for scenario_id, scenario_texts in texts.scenarios.items():
            given.update({f"{scenario_id}\x1f{e}": lang for e in scenario_texts.entry_examples})
    out: dict[str, str] = {}
    for rule in view.rules:
        for doc_id, text in agent_rule_keys(view, rule):
            if (said := given.get(f"{rule.id}\x1f{text}")) is not None:
                out[doc_id] = said
    for scenario in view.scenarios:
        for n, text in enumerate(scenario.entry_examples):
            if (said := given.get(f"{scenario.id}\x1f{text}")) is not None:
                out[f"{scenario.id}{KEY_SEPARATOR}{n}"] = said
    return out


class _OnReferenceScale:
    """The multilingual index, each hit's score on MiniLM's scale by the fit for its pair: same language or not."""

    def __init__(self, index: RuleIndex, embedder: Embedder, languages: dict[str, str], own: str, lang: str):
        self.index, self.embedder, self.languages, self.own, self.lang = index, embedder, languages, own, lang

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        out = []
        for hit in self.index.search(scope, vector, k):
            kind = "rule_same" if self.languages.get(hit.rule_id, self.own) == self.lang else "rule"
            out.append(replace(hit, score=on_reference_scale(self.embedder, kind, hit.score)))
        return sorted(out, key=lambda h: -h.score)


def search_multilingual(deps: Deps, tenant_id: str, agent: AgentConfig, scope: ScopeFilter, texts: Sequence[str],
                        lang: str | None = None) -> list[list[RuleHit]]:
    """Each text's rule candidates in the multilingual space (embedded in one batch), on MiniLM's scale;
    `MultilingualSpaceUnavailable` when that space is absent or its model cannot load (fail closed: never the
    English space instead)."""
    embedder, index = deps.multilingual_embedder, deps.multilingual_index
    if index is None:
        raise MultilingualSpaceUnavailable(lang, "this deployment has no multilingual index")
    vectors = embed_message(embedder, texts, lang)
    assert embedder is not None  # embed_message refused None
    view = ensure_multilingual_indexed(deps, tenant_id, agent)
    own = agent.languages[0] if agent.languages else "en"
    scaled = _OnReferenceScale(index, embedder, _languages(agent), own, lang or own)
    gap = description_gap(agent, deps.embedder)
    return [search_rules(view, scaled, scope, query, agent.retrieval.top_k, text, None, gap)  # type: ignore[arg-type]
            for query, text in zip(centred(embedder, vectors), texts, strict=True)]


_languages: PerObject[AgentConfig, dict[str, str]] = PerObject(key_languages)  # once per config object
