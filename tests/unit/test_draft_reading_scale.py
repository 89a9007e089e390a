"""The offline draft reader reads in time linear in the draft, and its linear scans say what the patterns they
replace said.

Time is never asserted (the bench `focal bench draftspeed`, focal/bench/draft_speed.py, prints it). What is
counted instead is the text the reader's patterns are handed: every module-level pattern of the reader is
wrapped in a counter that adds the characters a search, a scan or a substitution is given (from `pos` to
`endpos`), and one for an anchored match. Reading a draft four times as long must hand them about four times
as much text: a clause re-read from its start for each of its amounts (the reader before) made that grow with
the square of the clause.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from focal.bench import draft_speed
from focal.config.loader import load_agent
from focal.enforcement import (
    amount_attribution,
    amount_clauses,
    amount_cues,
    amount_forms,
    amount_repeats,
    amount_tokens,
    draft_reading,
    linear_scan,
    reading,
    terms,
)
from focal.enforcement.linear_scan import Suffixes
from focal.enforcement.reading import expression_names, offline_reading
from focal.text import amount_styles, amounts, draft_view

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
READER = (amount_attribution, amount_clauses, amount_cues, amount_forms, amount_repeats, amount_styles, amount_tokens,
          amounts, draft_reading, draft_view, linear_scan, reading, terms)


class _Counted:
    """A compiled pattern that counts the characters it is handed."""

    def __init__(self, pattern: re.Pattern[str], tally: list[int]):
        self._pattern, self._tally = pattern, tally

    def __getattr__(self, name: str):  # noqa: ANN204 - pattern, flags, groupindex…
        return getattr(self._pattern, name)

    def _scan(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> None:
        self._tally[0] += max(0, min(endpos, len(string)) - pos)

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize):  # noqa: ANN201
        self._scan(string, pos, endpos)
        return self._pattern.search(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize):  # noqa: ANN201
        self._scan(string, pos, endpos)
        return self._pattern.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize):  # noqa: ANN201
        self._scan(string, pos, endpos)
        return self._pattern.findall(string, pos, endpos)

    def sub(self, repl, string: str, count: int = 0):  # noqa: ANN001, ANN201
        self._scan(string)
        return self._pattern.sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0):  # noqa: ANN201
        self._scan(string)
        return self._pattern.split(string, maxsplit)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize):  # noqa: ANN201
        self._tally[0] += 1  # anchored where it is asked: it reads what the match needs, not the rest
        return self._pattern.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize):  # noqa: ANN201
        self._scan(string, pos, endpos)
        return self._pattern.fullmatch(string, pos, endpos)


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters handed to the reader's module-level patterns (each module's own names, imported ones included)."""
    tally = [0]
    wrapped: dict[int, _Counted] = {}
    for module in READER:
        for name, value in list(vars(module).items()):
            if isinstance(value, re.Pattern):
                monkeypatch.setattr(module, name, wrapped.setdefault(id(value), _Counted(value, tally)))
    return tally


def _repeated(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size].rsplit(" ", 1)[0]


DRAFTS = {
    "prose": lambda size: draft_speed.draft(size, "prose"),
    "run-on": lambda size: draft_speed.draft(size, "run-on"),
    # one clause of many amounts and cues: what the reader re-read amount by amount
    "one clause": lambda size: _repeated("I'll refund $30 now ", size),
    "amounts": lambda size: _repeated("refund of $30 for A1002 plus ", size),
    "card numbers": lambda size: _repeated("4111 1111 1111 1111 ", size),
    "number words": lambda size: _repeated("one two three four five ", size),
}


@pytest.mark.parametrize("agent_name", ["retail", "guardrails"])
@pytest.mark.parametrize("shape", list(DRAFTS))
def test_a_draft_four_times_as_long_hands_the_patterns_about_four_times_the_text(handed, agent_name, shape):
    agent = load_agent(EXAMPLES / agent_name / "agent.yaml")
    names = expression_names(agent.rules)
    counts = []
    for size in (2048, 8192):
        text = DRAFTS[shape](size)
        handed[0] = 0
        offline_reading(agent, text, names, {"order_total": 75.0}, model_written=False)
        counts.append(handed[0] / len(text))  # characters handed per character of draft
    assert counts[0] > 0
    assert counts[1] <= counts[0] * 1.25, f"{shape}: {counts[0]:.0f} then {counts[1]:.0f} characters per draft character"


# ------------------------------------------------------------------ the linear scans say what the patterns said

_FIGURE_PIECES = st.sampled_from(["1", "2", "0", " ", ",", ".", "'", "’", "a", "x1", " francs", "francs", " yen", "zl", "kr", "\n",
                                  "$", "€", "-", "١", "1.000", "1 000", " pesos", "rupees", " chf"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_FIGURE_PIECES, max_size=25).map("".join))
def test_currency_names_after_figures_are_read_as_the_pattern_reads_them(text):
    expected = amount_styles._NAME_AFTER.sub(lambda m: f"{m.group('f')} $", text)
    assert amount_styles._names_after(text) == expected


_WORD_PIECES = st.sampled_from(["one", "two", "twenty", "hundred", "thousand", "a", "an", "and", " ", "-", " dollars", " percent",
                                " per cent", "x", "1", ",", "seventy", "five", "Dollars", " bucks", "ones"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_WORD_PIECES, max_size=25).map("".join))
def test_spelled_amounts_are_read_as_the_pattern_reads_them(text):
    def value(m: re.Match[str]) -> str:
        found = amount_forms.words_value(m.group(0))
        return m.group(0) if found is None else str(found)

    assert amount_forms.spell_out(text) == amount_forms._SPELLED.sub(value, text)


_LETTERS = st.sampled_from(["re", "imburse", "r", "e", "c", "d", "ed", "ing", "credit", "a", "void", "ment", "al", "x", "money", "back"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_LETTERS, min_size=2, max_size=16))
def test_joining_ascii_pieces_finds_the_word_the_full_search_finds(pieces):
    words = frozenset({"reimburse", "reimbursement", "credit", "void", "money", "back"})
    for i in range(len(pieces) - 1):
        assert terms._longest_ascii(pieces, i, len(pieces) - 1, words) == terms._longest(pieces, i, len(pieces) - 1, words)


_SUFFIX_PATTERNS = [amount_cues.NEGATION, amount_cues.REPORTED, amount_cues.THRESHOLD_BEFORE, amount_cues.BASE_OF,
                    amount_attribution._LIMIT_NOUN, amount_repeats._DEFINITE, amount_forms._DEFINITE, reading._REFUSING]
_WORDS = st.sampled_from(["I", "can't", "cannot", "not", "in", "a", "position", "to", "you", "asked", "for", "have", "above", "up", "of",
                          "your", "the", "limit", "is", "half", "$50", "5", "dollars", "same", "that", "promise", "refund", "x", ",",
                          ";", "-", "don't", "offer", "an"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_WORDS, st.sampled_from([" ", "  ", "\n", ""])), max_size=70).map(lambda ws: "".join(a + b for a, b in ws)))
def test_the_words_before_a_point_say_what_the_whole_text_before_it_says(text):
    before = Suffixes(text)
    for end in range(0, len(text) + 1, 3):
        for pattern in _SUFFIX_PATTERNS:
            assert before.ends_with(pattern, end) == (pattern.search(text[:end]) is not None)
