"""`focal bench language`: how well messages and answers are placed in a language, and what each reading costs.

The shipped readers (focal.sensing.language: stopword shares for a message, stopword lists for each part of an
answer) beside langid 1.1.6 restricted to the same languages, when it is installed (`pip install langid==1.1.6`;
not a dependency: it lost on short support messages, see the module docstring of focal.sensing.language). For each
agent language in AGENTS a labelled message should read as foreign exactly when it is in another language (a
message with no language, never); short = four words or fewer. Texts: tests/data/language_cases.yaml, and the
English messages of the example agents' suites (examples/*/tests.yaml). CPU figures are printed, never asserted.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from focal.sensing import language

AGENTS = ("en", "es", "de", "fr")
SHORT_WORDS = 4
LANGID_MIN_WORDS = 2
LANGID_MIN_PROBABILITY = 0.5  # normalised over the languages in play
EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
CASES = Path(__file__).resolve().parents[3] / "tests" / "data" / "language_cases.yaml"  # written for the bench


def _cases() -> tuple[dict[str | None, list[str]], list[str], list[tuple[str, str]]]:
    doc = yaml.safe_load(CASES.read_text(encoding="utf-8"))
    messages = {(None if k == "none" else k): list(v) for k, v in doc["messages"].items()}
    return messages, list(doc["english_answers"]), [(a["language"], a["text"]) for a in doc["foreign_answers"]]


MESSAGES, ENGLISH_ANSWERS, FOREIGN_ANSWERS = _cases()
Reader = Callable[[str, list[str]], "str | None"]


@lru_cache(maxsize=1)
def _langid() -> tuple[Any, float] | None:
    """(langid restricted to language.NAMES, CPU seconds its model took to load), or None when not installed."""
    try:
        from langid.langid import LanguageIdentifier, model
    except ImportError:
        return None
    started = time.process_time()
    identifier = LanguageIdentifier.from_modelstring(model, norm_probs=True)
    identifier.set_languages(sorted(language.NAMES))
    return identifier, time.process_time() - started


def langid_detect(text: str) -> str | None:
    loaded = _langid()
    found = language.words(text)
    if loaded is None or len(found) < LANGID_MIN_WORDS:
        return None
    code, probability = loaded[0].classify(" ".join(found))
    return code if probability >= LANGID_MIN_PROBABILITY else None


def langid_foreign(text: str, languages: list[str]) -> str | None:
    code = langid_detect(text)
    return None if code in languages else code


def langid_part(text: str, lang: str = "en", least: int = 1) -> str | None:
    """An answer's part read by langid (the alternative to `language.written_in`), the same script rule first."""
    letters = [c for c in text if c.isalpha()]
    if len(letters) >= 3 and sum(not language._latin(c) for c in letters) * 2 > len(letters):
        return "other script"
    code = langid_detect(text) if len(language.words(text)) >= least else None
    return code if code != lang else None


def message_scores(reader: Reader) -> dict[str, tuple[int, int, int, int]]:
    """Per size: (own language or none left alone, of, foreign named right, of)."""
    out: dict[str, list[int]] = {}
    for agent in AGENTS:
        for lang, texts in MESSAGES.items():
            for text in texts:
                size = "short" if len(re.findall(r"[^\W\d_]+", text)) <= SHORT_WORDS else "longer"
                expected = None if lang in (None, agent) else lang
                row = out.setdefault(size, [0, 0, 0, 0])
                at = 0 if expected is None else 2
                row[at + 1] += 1
                row[at] += reader(text, [agent]) == expected
    return {size: (r[0], r[1], r[2], r[3]) for size, r in out.items()}


def suite_messages(root: Path = EXAMPLES) -> list[str]:
    """The customers' messages of the example suites, less those written in another language on purpose (the ones
    whose expected answer is the language notice)."""
    out: list[str] = []
    for suite in sorted(root.glob("*/tests.yaml")):
        for conversation in yaml.safe_load(suite.read_text(encoding="utf-8")).get("conversations", []) or []:
            for turn in conversation.get("turns", []) or []:
                expect = str((turn.get("expect") or {}).get("response_contains", ""))
                if isinstance(turn.get("user"), str) and "only help in" not in expect:
                    out.append(turn["user"])
    return out


def answer_scores(read: Callable[..., str | None]) -> tuple[int, int, int]:
    """(English answers flagged, foreign clauses found, of which in the right language)."""
    flagged = sum(bool(language.foreign_parts(text, read=read)) for text in ENGLISH_ANSWERS)
    found = [(name, language.foreign_parts(text, read=read)) for name, text in FOREIGN_ANSWERS]
    return flagged, sum(bool(f) for _, f in found), sum(bool(f) and f[0][0] == name for name, f in found)


def per_call_us(call: Callable[[str], object], texts: list[str], repeat: int) -> float:
    started = time.process_time()
    for _ in range(repeat):
        for text in texts:
            call(text)
    return (time.process_time() - started) / (repeat * len(texts)) * 1e6


def _as_english_agent(reader: Reader) -> Callable[[str], object]:
    return lambda text: reader(text, ["en"])


def _answer_reader(read: Callable[..., str | None]) -> Callable[[str], object]:
    return lambda text: language.foreign_parts(text, read=read)


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.1%})" if b else "-"


def report(repeat: int = 5) -> str:
    messages = [t for texts in MESSAGES.values() for t in texts]
    suite = suite_messages()
    counts = ", ".join(f"{k or 'none'} {len(v)}" for k, v in MESSAGES.items())
    loaded = _langid()
    readers: list[tuple[str, Reader, Callable[..., str | None]]] = [("stopwords (shipped)", language.foreign, language.written_in)]
    if loaded is not None:
        readers.append((f"langid (p >= {LANGID_MIN_PROBABILITY})", langid_foreign, langid_part))
    lines = [f"focal bench language: {len(messages)} labelled messages ({counts}), each read as the message of an agent "
             f"speaking {', '.join(AGENTS)}; short = {SHORT_WORDS} words or fewer; {len(suite)} English messages of the "
             "example suites",
             f"{'messages':<24}{'size':<8}{'own/none left alone':>22}{'foreign named right':>22}{'suites flagged':>16}{'µs/call':>9}"]
    for name, reader, _ in readers:
        cost = per_call_us(_as_english_agent(reader), messages, repeat)
        flagged = sum(reader(t, ["en"]) is not None for t in suite)
        for size, (own, own_n, hit, hit_n) in sorted(message_scores(reader).items(), reverse=True):
            lines.append(f"{name:<24}{size:<8}{_pct(own, own_n):>22}{_pct(hit, hit_n):>22}"
                         f"{_pct(flagged, len(suite)):>16}{cost:>9.1f}")
    answers = ENGLISH_ANSWERS + [t for _, t in FOREIGN_ANSWERS]
    lines.append(f"{'answers':<32}{'English flagged':>22}{'foreign found (right language)':>33}{'µs/answer':>11}")
    for name, _, read in readers:
        flagged_answers, found, right = answer_scores(read)
        cost = per_call_us(_answer_reader(read), answers, repeat)
        lines.append(f"{name:<32}{_pct(flagged_answers, len(ENGLISH_ANSWERS)):>22}"
                     f"{f'{_pct(found, len(FOREIGN_ANSWERS))} ({right})':>33}{cost:>11.1f}")
    lines.append(f"langid model load: {loaded[1]:.2f} s CPU, once per process" if loaded is not None
                 else "langid is not installed (pip install langid==1.1.6 to compare)")
    return "\n".join(lines)


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    s = bsub.add_parser("language", help="messages and answers placed in a language: accuracy and CPU per call")
    s.add_argument("--repeat", type=int, default=5, help="timing passes over the texts")
    s.set_defaults(func=lambda a: print(report(a.repeat)) or 0)
