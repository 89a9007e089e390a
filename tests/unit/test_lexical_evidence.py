"""Lexical evidence beside the embedding (focal.retrieval.lexical): character n-grams of folded words, weighted by
their rarity among the agent's keys, added to each key's calibrated cosine by the one search path."""

from __future__ import annotations

import numpy as np

from focal.models.agent import AgentConfig, Rule
from focal.ports import Hit, ScopeFilter
from focal.retrieval.lexical import LEXICAL_WEIGHT, LexicalModel, fold, lexical_model, ngrams
from focal.retrieval.matching import search_rules


def test_folding_reads_accents_and_case_alike_in_every_language():
    assert fold("Rückerstattung für MEINE Bestellung!") == "ruckerstattung fur meine bestellung"
    assert fold("¿Cuándo llegará?") == "cuando llegara"
    assert fold("Straße") == "strasse"
    assert ngrams("Réclamation") == ngrams("reclamation")


def test_an_inflected_word_shares_most_of_its_ngrams():
    model = LexicalModel({"a": "cancel my subscription", "b": "opening hours on the weekend"})
    scores = model.scores(model.vector("cancelled subscriptions"), ["a", "b"])
    assert scores["a"] > 0.5 > scores["b"] == 0.0


def test_ngrams_every_key_shares_weigh_less_than_ngrams_one_key_says():
    texts = {f"k{n}": f"i want help with {word}" for n, word in enumerate(("billing", "delivery", "passwords", "vouchers"))}
    model = LexicalModel(texts)
    scores = model.scores(model.vector("i want help with vouchers"), list(texts))
    assert scores["k3"] > 0.9
    assert max(scores["k0"], scores["k1"], scores["k2"]) < 0.5  # "i want help with" alone says little


class FixedIndex:
    """A rule index whose search returns the same calibrated cosines for every query (no flows)."""

    def __init__(self, scores: dict[str, float]):
        self.scores = scores

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        if scope.kind == "scenario":
            return []
        return sorted((Hit(doc_id, s) for doc_id, s in self.scores.items()), key=lambda h: -h.score)[:k]


def _agent() -> AgentConfig:
    return AgentConfig(id="lex", name="Lex", rules=[
        Rule(id="tracking", condition_text="The customer asks for the parcel tracking number", action_text=""),
        Rule(id="hours", condition_text="The customer asks when the support team is available", action_text=""),
    ])


def test_a_key_that_shares_the_messages_words_gains_on_one_the_embedding_slightly_prefers():
    agent, index = _agent(), FixedIndex({"tracking": 0.40, "hours": 0.42})
    scope = ScopeFilter("t", "lex")
    vector = np.zeros(4, dtype=np.float32)
    plain = search_rules(agent, index, scope, vector, 10)
    assert [h.rule_id for h in plain] == ["hours", "tracking"]  # the cosine alone
    found = search_rules(agent, index, scope, vector, 10, text="Where is my parcel tracking number?")
    assert [h.rule_id for h in found] == ["tracking", "hours"]
    lexical = lexical_model(agent)
    words = lexical.vector("Where is my parcel tracking number?")
    expected = 0.40 + LEXICAL_WEIGHT * lexical.scores(words, ["tracking"])["tracking"]
    assert found[0].score == expected and found[0].best_score == expected
