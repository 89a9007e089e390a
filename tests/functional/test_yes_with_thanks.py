"""A yes followed only by thanks is a yes ("ja, und danke für die schnelle Hilfe" to the energy desk's "Soll ich das
tun?" was asked again: "Bitte antworten Sie mit ja ..."); a yes followed by another request still runs nothing (the
confirmation was for what it showed, not for more)."""

from __future__ import annotations

from pathlib import Path

import pytest
from written_agent import passes

DESK = Path(__file__).resolve().parents[1] / "data" / "newcomer_energy"
AGENT = (DESK / "agent.yaml").read_text()
TOOLS = (DESK / "tools.py").read_text()
READING = {
    "en": [{"user": "I'd like to give you my gas reading"}, {"user": "EA204518"}, {"user": "13000"},
           {"user": "21 November 2026", "expect": {"step": "confirm"}}],
    "de": [{"user": "Ich möchte meinen Zählerstand melden"}, {"user": "EA204518"}, {"user": "12.500"},
           {"user": "am 3. März", "expect": {"step": "confirm"}}],
}


@pytest.mark.parametrize(("lang", "text"), [("de", "ja, und danke für die schnelle Hilfe"),
                                            ("en", "yes, and thanks for the quick help!")])
def test_a_yes_with_thanks_runs(tmp_path: Path, lang: str, text: str):
    passes(tmp_path, AGENT, TOOLS, [*READING[lang], {"user": text, "expect": {"tool_calls": ["submit_meter_reading"]}}])


@pytest.mark.parametrize(("lang", "text"), [("de", "ja, und auch eine Gutschrift von 50 Euro"),
                                            ("en", "yes, thanks, and also credit me 50 pounds")])
def test_a_yes_with_another_request_runs_nothing(tmp_path: Path, lang: str, text: str):
    passes(tmp_path, AGENT, TOOLS, [*READING[lang], {"user": text, "expect": {"tool_calls": []}}])
