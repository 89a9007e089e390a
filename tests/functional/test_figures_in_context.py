"""A model's figure that only the agent's texts write reaches the customer only when it is said for the fact those texts
write it for (focal.enforcement.figure_context), through the real enforce stage with the shipped embedders, in each
language the agent speaks: the agent opens on Sunday 12:00–17:00 and on weekdays 9:00–18:00, so "On Sunday we open at
9:00" — a real figure of the agent's, for another day — is withheld, while the same hours said for the right days are
answered. (A Spanish or German "on Sunday we open at 9:00" is not told apart in the multilingual space yet: the two
passages of that one sentence fit it alike — see focal.enforcement.figure_context.)
The drafts are scripted at the `generate` port; the sentences are written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.bench.drafts import shipped_embedders
from focal.cli.conversation_tests import format_report, run_suite
from focal.enforcement.facts import DeclaredFigure, agent_declared_texts, build_sources, unbound_facts
from focal.enforcement.figure_context import figure_problems
from focal.models.agent import AgentConfig

AGENT = {
    "id": "corner_books", "name": "Corner Books", "description": "A neighbourhood bookshop.",
    "persona": "You help the customers of Corner Books, a neighbourhood bookshop.",
    "languages": ["en", "es", "de", "fr"],
    "rules": [
        {"id": "opening_hours", "condition_text": "The customer asks when the shop is open",
         "action_text": "The shop opens on Sunday 12:00–17:00 and on weekdays 9:00–18:00. Saturday it is closed.",
         "scope": "GLOBAL"},
        {"id": "extras", "condition_text": "The customer asks about delivery or gift wrapping",
         "action_text": "Gift wrapping costs $4 per book. Express delivery costs $9 and arrives the next day.",
         "scope": "GLOBAL"},
    ],
    "enforcement": {"max_retries": 0},
}


def _said(tmp_path: Path, message: str, draft: str, answered: bool) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text(yaml.safe_dump(AGENT, allow_unicode=True), encoding="utf-8")
    expect = ({"violations": [], "response_contains": draft} if answered
              else {"violations": ["unbound"], "response_not_contains": draft})
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": draft, "turns": [
        {"user": message, "model": {"generate": [draft]}, "expect": expect}]}]}, allow_unicode=True), encoding="utf-8")
    report = run_suite(path, suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


@pytest.mark.parametrize(("message", "draft"), [
    ("When do you open on Sunday?", "On Sunday we open at 9:00 AM."),
    ("Are you open on Sundays?", "Yes, on Sundays the shop is open from 9:00 to 18:00."),
    ("How much is gift wrapping?", "Gift wrapping is $9 per book."),
    ("¿Cuánto cuesta envolver un libro para regalo?", "Envolver un libro para regalo cuesta 9 $."),
    ("Was kostet die Geschenkverpackung?", "Die Geschenkverpackung kostet 9 $ pro Buch."),
    ("Quand ouvrez-vous le dimanche ?", "Le dimanche, la librairie ouvre de 9:00 à 18:00."),
])
def test_an_agent_figure_said_for_another_fact_is_withheld(tmp_path, message, draft):
    _said(tmp_path, message, draft, answered=False)


@pytest.mark.parametrize(("message", "draft"), [
    ("When do you open on Sunday?", "On Sunday we open at 12:00 and close at 17:00."),
    ("What are your weekday hours?", "Monday to Friday we're open from 9:00 until 18:00."),
    ("How much is gift wrapping?", "Gift wrapping is $4 for each book."),
    ("¿A qué hora abren el domingo?", "El domingo abrimos a las 12:00 y cerramos a las 17:00."),
    ("Wann haben Sie unter der Woche geöffnet?", "Werktags haben wir von 9:00 bis 18:00 geöffnet."),
    ("Quand ouvrez-vous le dimanche ?", "Le dimanche, nous ouvrons de 12:00 à 17:00."),
])
def test_an_agent_figure_said_for_its_own_fact_is_answered(tmp_path, message, draft):
    _said(tmp_path, message, draft, answered=True)


def test_a_figure_the_customer_wrote_stays_theirs(tmp_path):
    """What the customer typed supports a figure as before, whatever the agent's texts write it for."""
    _said(tmp_path, "I was there on Sunday at 9:00 and it was closed.",
          "I'm sorry you found it closed on Sunday at 9:00: on Sundays we open at 12:00.", answered=True)


DESK = {
    "id": "harbour_inn", "name": "Harbour Inn", "description": "A small harbour hotel.",
    "persona": "You help the guests of Harbour Inn, a small harbour hotel.",
    "languages": ["en"],
    "rules": [
        {"id": "desk", "condition_text": "The guest asks when the front desk is staffed",
         "action_text": "Front desk hours: Monday to Friday 7:00-23:00, Saturday and Sunday 8:00-20:00.",
         "scope": "GLOBAL"},
        {"id": "pets", "condition_text": "The guest asks about pets",
         "action_text": "Up to 2 pets from the same household may stay in one room, for 15 per night.",
         "scope": "GLOBAL"},
        {"id": "meals", "condition_text": "The guest asks about breakfast",
         "action_text": "Breakfast is served 6:30-10:30 every day.", "scope": "GLOBAL"},
    ],
    "enforcement": {"max_retries": 0},
}


@pytest.mark.parametrize(("draft", "answered"), [
    ("On weekends the front desk is open 8:00-20:00.", True),
    ("On Saturday the desk is staffed from 8:00 to 20:00.", True),
    ("On Sunday the front desk is open 7:00-23:00.", False),
])
def test_a_later_figure_of_a_sentence_keeps_the_subject_its_sentence_names(draft, answered):
    """The weekend hours come after the weekday hours in a sentence whose subject ("Front desk hours:") only the
    weekday passage holds: the weekend passage is read with that subject too, so the weekend hours said for the desk
    are answered, and the weekday hours said for Sunday are still withheld. Read as the enforce stage reads a model's
    draft whose figures only the agent's texts support (here with no rule in scope to carry them)."""
    agent = AgentConfig.model_validate(DESK)
    texts = agent_declared_texts(agent)
    declared: list[DeclaredFigure] = []
    assert not unbound_facts(draft, build_sources(texts, {}, ["Hi"]), [], languages=agent.languages,
                             declared=declared)
    problems = figure_problems(agent, texts, declared, "en", *shipped_embedders())
    assert (not problems) == answered, problems


def _problems(spec: dict, draft: str, lang: str = "en") -> list[str]:
    agent = AgentConfig.model_validate(spec)
    texts = agent_declared_texts(agent)
    declared: list[DeclaredFigure] = []
    assert not unbound_facts(draft, build_sources(texts, {}, ["Hi"]), [], languages=agent.languages,
                             declared=declared)
    return figure_problems(agent, texts, declared, lang, *shipped_embedders())


@pytest.mark.parametrize(("draft", "lang", "answered"), [
    ("On Sunday we open 12:00–17:00, and on weekdays 9:00–18:00.", "en", True),
    ("Gift wrapping costs $4 per book, and express delivery costs $9.", "en", True),
    ("Gift wrapping costs $9 per book, and express delivery costs $4.", "en", False),
    ("Die Geschenkverpackung kostet 9 $ pro Buch, der Expressversand 4 $.", "de", False),
])
def test_each_figure_of_a_sentence_of_several_is_tied_to_its_own_fact(draft, lang, answered):
    """A sentence stating several figures was left to the value check alone: two of the agent's figures swapped
    between their facts in one sentence reached the customer. Each figure is now read by its own window of the
    sentence, cut as the agent's passages are (a figure of a known kind: money, share, clock)."""
    problems = _problems(AGENT, draft, lang)
    assert (not problems) == answered, problems


def test_a_figure_of_one_kind_is_never_the_agents_figure_of_another():
    """"$12" for a Sunday: the agent writes 12 only as a clock time (Sunday 12:00), never as money — a figure of a
    kind the agent publishes (money) with a value it never wrote for that kind is unbound."""
    problems = _problems(AGENT, "On Sunday, gift wrapping is free above $12.")
    assert problems and "cannot be tied" in problems[0], problems
