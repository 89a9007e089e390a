"""A request for a person in Spanish, German or French reaches the hand-off through the real pipeline, however it is
worded, and a sentence that only mentions someone does not: the tutorial agent declaring four languages, with the
real MiniLM and multilingual models (focal.sensing.person_request). None of these sentences is an exemplar."""

from __future__ import annotations

import pytest
from agent_variants import tutorial_in_four_languages
from first_turn import first_turn

from focal.sensing.person_exemplars import ASKING, NEAR_MISSES
from focal.wiring import local_deps

REQUESTS = [
    ("fr", "Je veux parler à quelqu'un"),
    ("fr", "Puis-je avoir quelqu'un au téléphone ?"),
    ("es", "¿Me pasas con una persona de verdad?"),
    ("de", "Kann ich bitte mit jemandem sprechen?"),
]
NEAR_MISSES_SAID = [
    ("es", "¿Quién es la persona que firmó?"),
    ("de", "Ich möchte mit meiner Bank sprechen, bevor ich zahle"),
    ("fr", "Hier j'ai parlé avec quelqu'un et il m'a dit que c'était bon"),
    # the words of a request, in a past conversation (a phrase table heard "con una persona", "un conseiller", …)
    ("es", "Ayer hablé con una persona y me dijo que ya estaba hecho"),
    ("fr", "J'ai déjà eu un conseiller au téléphone hier, il m'a dit que c'était bon"),
    ("de", "Ich habe schon mit einem Mitarbeiter gesprochen, er sagte, es sei erledigt"),
]


@pytest.fixture(scope="module")
def deps(tmp_path_factory):
    return local_deps(tutorial_in_four_languages(tmp_path_factory.mktemp("library")), ":memory:")


def _turn(deps, session: str, message: str):
    result = first_turn(deps, "library", session, message)
    return result, deps.sessions.get("local", "library", session)


def test_no_sentence_here_is_an_exemplar():
    exemplars = {t.lower() for table in (ASKING, NEAR_MISSES) for texts in table.values() for t in texts}
    assert not {t.lower() for _, t in REQUESTS + NEAR_MISSES_SAID} & exemplars


@pytest.mark.parametrize(("lang", "message"), REQUESTS)
def test_a_request_for_a_person_in_other_words_reaches_the_handoff(deps, lang, message):
    result, session = _turn(deps, f"ask-{lang}-{abs(hash(message))}", message)
    assert session.language == lang
    assert "HumanHandoff" in [c["name"] for c in result.commands], result.commands
    assert result.execution_path == "escalate"


@pytest.mark.parametrize(("lang", "message"), NEAR_MISSES_SAID)
def test_a_sentence_that_only_mentions_someone_is_not_handed_off(deps, lang, message):
    result, session = _turn(deps, f"near-{lang}-{abs(hash(message))}", message)
    assert session.language == lang
    assert "HumanHandoff" not in [c["name"] for c in result.commands]
    assert result.execution_path != "escalate"
