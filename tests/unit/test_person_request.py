"""The request for a person read by its meaning in the multilingual space (focal.sensing.person_request), with the
real multilingual model: near enough to a sentence that asks, and clearly nearer to it than to any near miss."""

from __future__ import annotations

import pytest

from focal.adapters.use_embedder import shared_multilingual_embedder
from focal.sensing.acts import detect_acts
from focal.sensing.person_request import MARGIN, THRESHOLD, PersonReading, person_request


@pytest.fixture(scope="module")
def embedder():
    return shared_multilingual_embedder()


def _heard(embedder, text: str) -> str | None:
    return person_request(embedder, embedder.embed([text])[0])


@pytest.mark.parametrize("text", [
    "quiero hablar con una persona", "ich möchte mit einem Mitarbeiter sprechen", "je veux parler à un humain",
    "¿Me pasas con una persona de verdad?", "Kann ich bitte mit jemandem sprechen?", "Puis-je avoir quelqu'un au téléphone ?",
])
def test_a_request_for_a_person_is_heard_in_each_language(embedder, text):
    how = _heard(embedder, text)
    assert how is not None and how.startswith("meaning "), how


@pytest.mark.parametrize("text", [
    "I talked to someone yesterday and they said it was fine", "¿Quién es la persona que firmó?",
    "Ich möchte mit meiner Bank sprechen, bevor ich zahle",
])
def test_a_near_miss_is_not(embedder, text):
    assert _heard(embedder, text) is None


def test_the_margin_over_a_near_miss_decides_as_well_as_the_threshold():
    assert PersonReading(THRESHOLD, THRESHOLD - MARGIN - 0.001).heard
    assert not PersonReading(0.95, 0.95 - MARGIN / 2).heard  # close to a request, as close to a near miss
    assert not PersonReading(THRESHOLD - 0.01, 0.0).heard


def test_what_the_meaning_heard_is_a_dialogue_act_with_how():
    acts = detect_acts("¿Me pasas con una persona de verdad?", None, 0.7, heard={"handoff": "meaning 0.70, +0.20 over a near miss"})
    assert acts["handoff"] == "meaning 0.70, +0.20 over a near miss"
    assert "handoff" not in detect_acts("¿Me pasas con una persona de verdad?", None, 0.7)
