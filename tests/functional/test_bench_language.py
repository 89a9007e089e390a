"""`focal bench language` prints accuracy and CPU figures for the shipped readers (and langid's, when installed)."""

from __future__ import annotations

import importlib.util

from focal.bench.language import answer_scores, message_scores, report
from focal.sensing import language


def test_the_report_names_every_reader_and_its_figures():
    text = report(repeat=1)
    assert "stopwords (shipped)" in text and "µs/call" in text and "µs/answer" in text
    if importlib.util.find_spec("langid") is not None:
        assert "langid (p >= 0.5)" in text and "langid model load" in text
    else:
        assert "langid is not installed" in text


def test_the_shipped_readers_leave_the_agents_own_language_and_english_answers_alone():
    for own, own_n, _, _ in message_scores(language.foreign).values():
        assert own == own_n
    flagged, found, _ = answer_scores(language.written_in)
    assert flagged == 0 and found > 0
