"""A count written out in words is read by one reader in English, Spanish, German and French
(focal.sensing.count_words): the bare answer to the count's prompt is the count ("drei Wochen bitte"), and an answer
with a second number in words ("dos semanas, no, mejor tres") is no count at all, as in English. Before, Spanish,
German and French number words were all turned into figures first, so the correction renewed for two weeks. Real
pipeline, the shipped tutorial agent (en/es/de/fr), offline."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from focal.cli.conversation_tests import format_report, run_suite

TUTORIAL = Path(__file__).resolve().parents[2] / "examples" / "tutorial" / "agent.yaml"
START = {"es": ("Quiero renovar un libro", "Mi carné es LC204518 y el libro es B30117", "por {n} semanas"),
         "de": ("Ich möchte ein Buch verlängern", "Mein Ausweis ist LC204518 und das Buch ist B30117", "um {n} Wochen"),
         "fr": ("Je voudrais renouveler un livre", "Ma carte est LC204518 et le livre est B30117", "pour {n} semaines")}


def _passes(tmp_path: Path, lang: str, turns: list[dict]) -> None:
    first, ids, _ = START[lang]
    conversation = {"name": turns[0]["user"], "turns": [{"user": first}, {"user": ids}, *turns]}
    suite = tmp_path / "suite.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [conversation]}, allow_unicode=True), encoding="utf-8")
    report = run_suite(TUTORIAL, suite)
    assert report.conversations and all(t.passed for c in report.conversations for t in c.turns), format_report(report)


@pytest.mark.parametrize(("lang", "correction", "answer"), [
    ("es", "dos semanas, no, mejor tres", "tres semanas por favor"),
    ("de", "zwei Wochen, nein, lieber drei", "drei Wochen bitte"),
    ("fr", "deux semaines, non, plutôt trois", "trois semaines s'il vous plaît"),
])
def test_a_count_in_words_is_read_only_when_it_is_clearly_the_count(tmp_path, lang, correction, answer):
    said = START[lang][2]
    _passes(tmp_path, lang, [
        {"user": correction, "expect": {"response_not_contains": [said.format(n=2), said.format(n=3)]}},
        {"user": answer, "expect": {"step": "confirm", "response_contains": said.format(n=3)}},
    ])
