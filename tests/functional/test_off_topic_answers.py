"""A model that answers an off-topic question the route put out of scope never gets that answer to the customer,
in any of the four languages; a draft about the agent's business to a message the route misread as out of scope
still does.

Recorded in a live trial with a small local model (Qwen2.5-Coder 1.5B): asked "What is the capital of Australia?",
it answered "The capital of Australia is Canberra." — close to the customer's message (cosine 0.83), so the
relevance check passed it. The drafts are replayed at the provider boundary (`ScriptedLiteLLM`, the litellm adapter
with its network mocked), through the whole local pipeline of copies of the retail agent (English) and the cards agent
(which speaks Spanish, German and French in its own translated words), the relevance check on and every answer worded
by the model. A copy of the retail agent that declares Spanish, German and French without writing a word in them
(`retail_four`) judges those drafts against its English words, across languages in the multilingual space."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.cli.suite_report import TurnReport

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def agents(tmp_path_factory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("off-topic-answers")
    copies = {name: _checked_copy(tmp, name) for name in ("retail", "cards")}
    copies["retail_four"] = _checked_copy(tmp, "retail", into="retail_four", languages=["en", "es", "de", "fr"])
    copies["pizza_four"] = _checked_copy(tmp, "pizza", into="pizza_four", languages=["en", "es", "de", "fr"])
    return copies


def _checked_copy(tmp: Path, name: str, into: str = "", languages: list[str] | None = None) -> Path:
    folder = tmp / (into or name)
    shutil.copytree(EXAMPLES / name, folder)
    path = folder / "agent.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if languages:
        assert not data.get("translations")  # the copy speaks languages it has no words in
        data["languages"] = languages
    data.setdefault("enforcement", {})["relevance_check_enabled"] = True
    data.setdefault("models", {})["rephrase_fixed_texts"] = True
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return path


def _turn(agent: Path, tmp_path: Path, message: str, draft: str, expect: dict, before: tuple[str, ...] = ()) -> TurnReport:
    """The turn that answers `message` with the model's `draft`, after the customer's messages `before` (offline)."""
    generated = json.dumps({"text": draft, "commitments": {}}, ensure_ascii=False)
    turns = [{"user": m} for m in before] + [{"user": message, "model": {"generate": [generated]}, "expect": expect}]
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": message, "turns": turns}]}, allow_unicode=True),
                     encoding="utf-8")
    report = run_suite(agent, suite)
    assert report.conversations and len(report.conversations[0].turns) == len(turns), "\n" + format_report(report)
    return report.conversations[0].turns[-1]


@pytest.mark.parametrize(("name", "message", "draft"), [
    ("retail", "What is the capital of Australia?", "The capital of Australia is Canberra."),  # recorded
    ("cards", "What is the capital of Australia?", "The capital of Australia is Canberra."),
    ("cards", "¿Cuál es la capital de Australia?", "La capital de Australia es Canberra."),
    ("cards", "Was ist die Hauptstadt von Australien?", "Die Hauptstadt von Australien ist Canberra."),
    ("cards", "Qui a écrit Les Misérables ?", "Les Misérables a été écrit par Victor Hugo."),
    ("retail_four", "¿Cuál es el océano más grande?", "El océano más grande es el Pacífico, que cubre casi un tercio de la Tierra."),
    ("retail_four", "Wie hoch ist der Mont Blanc?", "Der Mont Blanc ist etwa 4806 Meter hoch."),
    ("retail_four", "Qui a peint La Joconde ?", "La Joconde a été peinte par Léonard de Vinci."),
])
def test_an_answer_to_an_off_topic_question_never_reaches_the_customer(agents, tmp_path, name, message, draft):
    turn = _turn(agents[name], tmp_path, message, draft, {"response_not_contains": draft[:20]})
    assert draft[:20] not in turn.response
    assert any("not about the agent's business" in line for line in turn.why), turn.why


@pytest.mark.parametrize(("name", "message", "draft"), [
    ("cards", "Alguien usó mi tarjeta, ¿qué hago?",
     "Lo siento mucho. Puedo bloquear la tarjeta ahora y abrir una denuncia de fraude; no tendrá que pagar esos cargos."),
    ("cards", "Jemand hat meine Karte benutzt",
     "Das tut mir leid. Ich kann die Karte jetzt sperren und eine Betrugsmeldung aufnehmen."),
    ("retail", "hm ok", "Let me know if there's anything else I can do for you!"),
    ("retail_four", "Quiero devolver unos zapatos que me quedan pequeños",
     "Claro, tiene 30 días para devolverlos sin usar. ¿Cuál es el número de pedido?"),
    ("retail_four", "Mein Paket ist nie angekommen", "Das tut mir leid! Wie lautet Ihre Bestellnummer, dann sehe ich nach."),
    ("retail_four", "Je voudrais changer l'adresse de livraison", "Bien sûr. Pour quelle commande faut-il changer l'adresse ?"),
])
def test_a_draft_about_the_business_still_reaches_the_customer(agents, tmp_path, name, message, draft):
    turn = _turn(agents[name], tmp_path, message, draft, {})
    assert not any("not about the agent's business" in line for line in turn.why), turn.why


def test_a_read_back_of_the_thread_reaches_the_customer_when_the_route_lost_it(agents, tmp_path):
    """The draft as a whole sits below the domain floor (the route put the bare address out of scope); its first
    sentence takes up the earlier message and the address together (focal.enforcement.draft_parts)."""
    draft = "Prima, eine große Margherita an die Hauptstraße 12. Passt das so?"
    turn = _turn(agents["pizza_four"], tmp_path, "Hauptstraße 12", draft, {}, before=("Eine große Margherita",))
    assert turn.response.strip() == draft, turn.why


@pytest.mark.parametrize(("name", "message", "draft"), [
    ("cards", "Comment faire une mousse au chocolat ?",
     "Avec plaisir ! Faites fondre le chocolat, incorporez les jaunes puis les blancs montés en neige, et laissez prendre "
     "au frais. Pour votre carte, je reste à votre disposition."),
])
def test_a_sentence_about_the_business_does_not_carry_an_off_topic_answer(agents, tmp_path, name, message, draft):
    """Read sentence by sentence, the answer sits nearest the off-business question: the draft still fails."""
    turn = _turn(agents[name], tmp_path, message, draft, {})
    assert draft[:30] not in turn.response
    assert any("not about the agent's business" in line for line in turn.why), turn.why
