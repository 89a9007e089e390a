"""The engine's own customer-facing texts: one table, shipped as data (focal/models/data/engine_texts.json).

The engine says a few things no agent file words: a hand-off, a tool error, "I didn't quite understand.", a
clarifying question, a refusal, its defaults for the agent's texts. Each has a key and a version per language
(en, es, de, fr). The code says the English version (`english`); the answer is put into the customer's language
after the turn is decided (focal.dialogue.notices), with the agent's own wording first where its file gives one:

    engine_texts:
      es:
        not_understood: Perdone, no le he entendido.
      en:
        unplaced_reply: "Before I change anything:"

Three sections: `texts` are said inside answers, `buttons` are whole suggested replies, `words` are the pieces a
text's `{placeholder}` may hold ("something else", the "or" that joins scenario names).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

SECTIONS = ("texts", "buttons", "words")
LANGUAGES = ("en", "es", "de", "fr")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=1)
def table() -> dict[str, dict[str, dict[str, str]]]:
    """section → key → language → text. A table missing a language or a section is a packaging fault: it fails
    loudly here, never by saying nothing."""
    raw = json.loads(resources.files("focal.models").joinpath("data", "engine_texts.json").read_text(encoding="utf-8"))
    for section in SECTIONS:
        for key, versions in raw[section].items():
            missing = [lang for lang in LANGUAGES if not versions.get(lang)]
            if missing:
                raise ValueError(f"engine text {section}.{key} has no {', '.join(missing)} version")
    return {section: raw[section] for section in SECTIONS}


@lru_cache(maxsize=1)
def all_keys() -> dict[str, dict[str, str]]:
    """key → its versions, across the sections (a key is unique in the table)."""
    return {key: versions for section in SECTIONS for key, versions in table()[section].items()}


def english(key: str) -> str:
    """The text the engine's code says: its English version (translated afterwards, focal.dialogue.notices)."""
    return all_keys()[key]["en"]


def placeholders(text: str) -> set[str]:
    return set(PLACEHOLDER.findall(text))


def override_problems(given: dict[str, dict[str, str]]) -> list[str]:
    """What is wrong with an agent file's `engine_texts` (language → key → text): a key the table does not have
    (named, with the known ones), a `{placeholder}` the English text has not (nothing would fill it), an empty text."""
    known = all_keys()
    problems = []
    for lang, texts in given.items():
        for key, text in texts.items():
            where = f"engine_texts.{lang}.{key}"
            if key not in known:
                problems.append(f"{where}: there is no engine text '{key}'; the keys are {', '.join(sorted(known))}")
                continue
            if not text.strip():
                problems.append(f"{where}: empty; leave the key out to keep the engine's text")
                continue
            extra = sorted(placeholders(text) - placeholders(known[key]["en"]))
            if extra:
                problems.append(f"{where}: {', '.join('{' + n + '}' for n in extra)} is not in the engine's text "
                                f"{known[key]['en']!r}, so no value would fill it")
    return problems


def check_overrides(given: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """`override_problems` as a load error (pydantic validator)."""
    problems = override_problems(given)
    if problems:
        raise ValueError("; ".join(problems))
    return given


def version(key: str, lang: str, overrides: dict[str, dict[str, str]] | None = None) -> str | None:
    """The text of `key` in `lang`: the agent's override, else the table's, else None (a language the table does
    not have: the English stays)."""
    given = (overrides or {}).get(lang, {}).get(key)
    return given if given and given.strip() else all_keys()[key].get(lang)
