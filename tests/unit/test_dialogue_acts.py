"""Dialogue acts without a model: lexicon, exemplar similarity with the real MiniLM, hedges."""

from __future__ import annotations

import pytest

from focal.sensing.acts import act_index, detect_acts


@pytest.fixture(scope="module")
def sims():
    from focal.adapters.onnx_embedder import shared_embedder

    embedder = shared_embedder()
    index = act_index(embedder)
    return lambda text: index.similarities(embedder.embed([text])[0])


@pytest.mark.parametrize("text, act", [
    ("yes", "affirm"), ("sounds good", "affirm"), ("ok go for it", "affirm"),
    ("no thanks", "deny"), ("nope", "deny"),
    ("never mind", "cancel"), ("forget it", "cancel"),
    ("thanks a lot, you're very helpful", "chitchat"), ("how are you?", "chitchat"),
])
def test_acts_are_recognised(sims, text, act):
    assert act in detect_acts(text, sims(text), threshold=0.7)


def test_the_request_for_a_person_is_never_read_from_english_words_or_exemplars(sims):
    """It is heard by its meaning alone, in every language (test_english_handoff, test_person_request): a phrase
    table handed off "I spoke to a real person last time"."""
    for text in ("can I talk to a real person please?", "I spoke to a real person last time and it went well."):
        assert "handoff" not in detect_acts(text, sims(text), threshold=0.7)
    assert detect_acts("can I talk to a real person please?", sims("x"), 0.7, heard={"handoff": "meaning 0.75"}) == {
        "handoff": "meaning 0.75"}


@pytest.mark.parametrize("text", ["maybe", "hmm, not sure", "I don't know, maybe", "perhaps later"])
def test_a_hedge_is_neither_yes_nor_no(sims, text):
    found = detect_acts(text, sims(text), threshold=0.7)
    assert "affirm" not in found and "deny" not in found


@pytest.mark.parametrize("text", ["A1004", "12 Oak Avenue, Duluth, MN 55801", "what's the price of the jacket?", "Where is my order?"])
def test_ordinary_content_is_no_act(sims, text):
    assert detect_acts(text, sims(text), threshold=0.7) == {}


def test_the_reason_says_how_the_act_was_recognised(sims):
    assert detect_acts("yes", sims("yes"), 0.7)["affirm"] == "lexicon"
    assert detect_acts("sounds good", sims("sounds good"), 0.7)["affirm"].startswith("similarity 0.")
    assert detect_acts("sounds good", None, 0.7) == {}  # no embedding, lexicon only


@pytest.mark.parametrize("text", [
    "yes please don't", "yes - wait, no", "ok no", "sure, not", "yes if it's under ten dollars", "yes but only part of it",
    "yeah nah", "sounds good, but hold on", "yes, actually no", "go ahead, not yet though", "yes I mean no",
])
def test_a_yes_taken_back_or_put_under_a_condition_is_no_confirmation(sims, text):
    assert "affirm" not in detect_acts(text, sims(text), threshold=0.7)


@pytest.mark.parametrize("text", ["yes please", "yes, go ahead", "sure, no problem", "ok, that's correct", "yes thanks"])
def test_a_plain_yes_still_confirms(sims, text):
    assert "affirm" in detect_acts(text, sims(text), threshold=0.7)


@pytest.mark.parametrize("text", ["hmm no, not now", "not right now", "hold on, no", "well, no", "not yet"])
def test_a_no_after_a_filler_is_a_no(sims, text):
    found = detect_acts(text, sims(text), threshold=0.7)
    assert "deny" in found and "affirm" not in found


@pytest.mark.parametrize("text", [
    "yes please, don\u2019t do it yet", "yes lol nvm", "yes, on Monday", "yes once I've checked with my wife",
    "yes, as long as it arrives by Friday", "yes?", "yes jk", "Yes \u2014 I won\u2019t need it", "sure, after I talk to my husband",
])
def test_more_than_a_yes_is_no_plain_confirmation(text):
    from focal.sensing.lexicon import plain_affirm
    assert not plain_affirm(text, "Shall I cancel booking B-12 and refund it?")


@pytest.mark.parametrize("text", ["yes please", "yes, cancel booking B-12", "ok go ahead, thanks!", "that should be fine",
                                  "Yes, I confirm", "sounds good to me"])
def test_a_yes_and_words_of_the_question_are_a_plain_confirmation(text):
    from focal.sensing.lexicon import plain_affirm
    assert plain_affirm(text, "Shall I cancel booking B-12 and refund it?")
