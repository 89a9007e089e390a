"""A rule's declared vocabulary as keys: the entity names of the entity_list fields a rule depends on ("Walmart" for a
rule about competitors) are each a key — the condition naming the term — so a message that names one is found through
it, where the condition's words ("another store") share nothing with the name."""

from __future__ import annotations

import pytest

from focal.adapters.numpy_index import NumpyRuleIndex
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.models.session import Session
from focal.retrieval.calibration import centred
from focal.retrieval.lexical import key_texts
from focal.retrieval.matching import search_rules
from focal.retrieval.rules import agent_documents, rule_vocabulary, sync_index, turn_scope

COMPETITORS = ProfileFieldDefinition(field_name="competitors_mentioned", field_type="entity_list",
                                     allowed_values=["Walmart", "Best Buy"], value_synonyms={"Walmart": ["Wal-Mart"]},
                                     sources=["response"])
STATUS = ProfileFieldDefinition(field_name="order_status", field_type="enum", allowed_values=["shipped", "delivered"],
                                sources=["tool"])


@pytest.fixture(scope="module")
def minilm():
    from focal.adapters.onnx_embedder import shared_embedder

    return shared_embedder()


def shop(depends_on: list[str]) -> AgentConfig:
    return AgentConfig(id="shop", name="Shop", profile_field_definitions=[COMPETITORS, STATUS], rules=[
        Rule(id="no_competitors", condition_text="The customer asks about or compares us with another store",
             action_text="Talk only about our own products.", depends_on_definitions=depends_on),
        Rule(id="shipping_times", condition_text="How long does delivery take?", action_text="Three to five days."),
    ])


def test_the_vocabulary_is_the_entity_names_and_their_synonyms_of_the_fields_a_rule_depends_on(minilm):
    a = shop(["competitors_mentioned", "order_status"])  # an enum's values name states, not things a message names
    assert rule_vocabulary(a, a.rule("no_competitors")) == ["Walmart", "Wal-Mart", "Best Buy"]
    docs = {d.rule_id: d.text for d in agent_documents(a, minilm)}
    assert docs["no_competitors#term-0"] == "The customer asks about or compares us with another store: Walmart"
    assert [d for d in docs if "#term-" in d] == ["no_competitors#term-0", "no_competitors#term-1", "no_competitors#term-2"]
    assert set(key_texts(a)) >= set(docs)  # the lexical evidence reads the same keys
    assert rule_vocabulary(shop([]), shop([]).rule("no_competitors")) == []


def test_a_message_naming_a_declared_competitor_finds_the_rule_through_its_term(minilm):
    message = "Does Best Buy have the Sony headphones in stock?"
    scores = {}
    for depends_on in ([], ["competitors_mentioned"]):
        a, index = shop(depends_on), NumpyRuleIndex()
        sync_index(index, minilm, "t", a)
        session = Session(tenant_id="t", agent_id=a.id, session_id="s", customer_id="c")
        query = centred(minilm, minilm.embed([message])[0])
        found = {h.rule_id: h.score for h in search_rules(a, index, turn_scope("t", a, session, []), query, 10, message)}
        scores[bool(depends_on)] = found["no_competitors"]
    threshold = shop([]).retrieval.rule_match_threshold
    assert scores[False] < threshold <= scores[True]
