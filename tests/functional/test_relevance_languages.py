"""The relevance check scores a draft in another language than English in the multilingual space, its cosines on
MiniLM's scale by the pair's languages (focal.enforcement.relevance_space), through the whole local pipeline with a
scripted generation model at the port. In MiniLM two German texts score alike whatever they say: an on-topic German
apology fell below the threshold while a German poem passed as close to the German message."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.ports import ModelReply
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"


class _Draft:
    """A generation model at the port boundary: answers with one draft, then nothing."""

    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, draft: str):
        self.drafts = [draft]

    def available(self, purpose: str) -> bool:
        return purpose == "generate" and bool(self.drafts)

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        return ModelReply(text=self.drafts.pop(0), model="fake/generate")


@pytest.fixture(scope="module")
def runner(tmp_path_factory) -> LocalRunner:
    tmp = tmp_path_factory.mktemp("relevance-languages")
    folder = tmp / "retail"
    shutil.copytree(RETAIL, folder)
    path = folder / "agent.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["languages"] = ["en", "es", "de", "fr"]  # no translations: the agent's own texts stay English
    data.setdefault("enforcement", {})["relevance_check_enabled"] = True
    data.setdefault("models", {})["rephrase_fixed_texts"] = True  # every answer worded by the model
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return LocalRunner(local_deps(path, tmp / "focal.db"))


def _relevance(runner: LocalRunner, session: str, message: str, draft: str) -> dict:
    runner.deps.model = _Draft(draft)
    result: TurnResult = runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id=session,
                                                 customer_id="c-100", turn_id=f"{session}-1", message=message))
    verdict = next(c for c in result.enforcement["checks"] if c["name"] == "relevance" and c["draft"] == 0)
    assert verdict["method"] != "bypass", verdict  # the model's draft was scored
    return verdict


@pytest.mark.parametrize("message,draft", [
    ("Mein Paket kam beschädigt an", "Oh nein, das tut mir sehr leid! Möchten Sie einen Ersatz oder lieber Ihr Geld zurück?"),
    ("Mein Flug hatte vier Stunden Verspätung, wo ist mein Paket?",
     "Das tut mir leid. Ich sehe gern nach, wo Ihr Paket ist. Wie lautet Ihre Bestellnummer?"),
    # on the subject the customer brought up (money, health): not "about something else"
    ("Soll ich meine Kreditkarte in Raten abbezahlen?", "Ratenzahlung kostet 19 % Zinsen im Jahr; wenn möglich, zahlen "
     "Sie die Kartenschulden zuerst ab, dann fallen keine Zinsen an. Ich kann Ihre Zahlungsart hier ändern."),
])
def test_an_on_topic_draft_in_another_language_is_relevant(runner, message, draft):
    verdict = _relevance(runner, f"de-on-{abs(hash(draft)) % 10**6}", message, draft)
    assert verdict["passed"], verdict


@pytest.mark.parametrize("english,spanish,passes", [
    # advice on the phone's screen from a shop that sells and ships orders, to a question the route put out of scope
    (("My head hurts from staring at my phone so much, is there some mode for that?",
      "Sorry about that. You can turn on night mode and lower the brightness in Settings > Display; resting your eyes "
      "now and then helps too."),
     ("Me duele la cabeza de tanto mirar el móvil, ¿hay algún modo?",
      "Lo siento. Puede activar el modo nocturno y bajar el brillo en Ajustes > Pantalla; descansar la vista cada rato "
      "también ayuda."), False),
    (("I'd like to send back a jacket that doesn't fit", "Of course, you have 30 days to return it unworn. What's the order number?"),
     ("Quiero devolver una chaqueta que no me queda bien", "Claro, tiene 30 días para devolverla sin usar. ¿Cuál es el "
      "número de pedido?"), True),
])
def test_a_draft_in_a_language_without_the_agents_words_is_judged_as_in_english(runner, english, spanish, passes):
    """The agent wrote no Spanish: a Spanish draft is held to its business across languages, as the English one."""
    verdicts = [_relevance(runner, f"pair-{lang}-{abs(hash(draft)) % 10**6}", message, draft)
                for lang, (message, draft) in (("en", english), ("es", spanish))]
    assert [v["passed"] for v in verdicts] == [passes, passes], verdicts
    if not passes:
        assert all("not about the agent's business" in v["reason"] for v in verdicts), verdicts


@pytest.mark.parametrize("message,draft", [
    ("Wo ist meine Bestellung A1001?", "Im Garten blühen Rosen rot, der Abend kommt, die Sonne loht."),
    ("Ich möchte eine Rückerstattung", "Die Chinesische Mauer ist über 20.000 Kilometer lang."),
    ("¿Dónde está mi pedido?", "Los pulpos tienen tres corazones y sangre azul."),
])
def test_an_off_topic_draft_in_another_language_is_caught(runner, message, draft):
    verdict = _relevance(runner, f"off-{abs(hash(draft)) % 10**6}", message, draft)
    assert not verdict["passed"], (verdict["reason"], verdict["method"])
