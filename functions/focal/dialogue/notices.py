"""The engine's own texts in the customer's language (the table: focal.models.engine_texts).

The engine's code says its fixed texts in English (a hand-off, a tool error, "That doesn't look right.", a clarifying
question, its defaults for the agent's texts). `in_language` puts them into an answer after the turn is decided:
every occurrence of a table text's English version, its `{placeholders}` filled by whatever the answer says there
(the agent's own words, already in the customer's language), is replaced by the version in the reply's language —
the agent's `engine_texts` for that language first, else the table's. Any other text of the answer — the agent's
own translated texts, a model's wording — is left as it is.

The reply's language is the conversation's; before it is known (a turn that stopped before the sensor read it), the
message's own reading among the agent's declared languages (focal.sensing.turn_language).
`{names}` and `{listed}` hold scenario names joined by " or ": they are joined again with the language's own word.
"""

from __future__ import annotations

import re
from functools import lru_cache

from focal.models.agent import AgentConfig
from focal.models.engine_texts import PLACEHOLDER, table, version
from focal.models.session import Session
from focal.models.turn import TurnState
from focal.sensing.turn_language import turn_language as read_turn_language

JOINED = ("names", "listed")  # placeholders holding names joined by the `or` word
Overrides = dict[str, dict[str, str]]


def _pattern(english: str, anchored: bool) -> re.Pattern[str]:
    parts, at = [], 0
    for m in PLACEHOLDER.finditer(english):
        parts.append(re.escape(english[at:m.start()]))
        parts.append(rf"(?P<{m.group(1)}>.+?)")
        at = m.end()
    parts.append(re.escape(english[at:]))
    body = "".join(parts)
    if anchored:
        return re.compile(rf"\A{body}\Z")
    edge = r"(?<![\w'])" if english[0].isalnum() else ""
    return re.compile(edge + body + (r"(?![\w'])" if english[-1].isalnum() else ""))


@lru_cache(maxsize=1)
def _compiled(section: str) -> list[tuple[re.Pattern[str], str]]:
    """(pattern of the English version, key), longer texts first where one contains another."""
    entries = sorted(table()[section].items(), key=lambda kv: -len(kv[1]["en"]))
    return [(_pattern(versions["en"], anchored=section == "buttons"), key) for key, versions in entries]


def _word(english: str, lang: str, overrides: Overrides | None) -> str:
    for key, versions in table()["words"].items():
        if versions["en"] == english:
            return version(key, lang, overrides) or english
    return english


def _fill(template: str, values: dict[str, str], lang: str, overrides: Overrides | None) -> str:
    def value(m: re.Match[str]) -> str:
        found = values.get(m.group(1), "")
        if m.group(1) in JOINED:
            joiner = version("or", lang, overrides) or " or "
            return joiner.join(_word(part, lang, overrides) for part in found.split(table()["words"]["or"]["en"]))
        return _word(found, lang, overrides)

    return PLACEHOLDER.sub(value, template)


def _says(lang: str | None, overrides: Overrides | None) -> bool:
    """Whether anything is to be replaced: another language than English, or the agent's own English wording."""
    return bool(lang) and (lang != "en" or bool((overrides or {}).get(lang)))


def _replace(text: str, section: str, lang: str, overrides: Overrides | None) -> str:
    for pattern, key in _compiled(section):
        said = version(key, lang, overrides)
        if said is not None:
            text = pattern.sub(lambda m, t=said: _fill(t, m.groupdict(), lang, overrides), text)  # type: ignore[misc]
    return text


def in_language(text: str, lang: str | None, overrides: Overrides | None = None) -> str:
    """`text` with the engine's fixed texts said in `lang` (the agent's `engine_texts` first): unchanged for English
    without overrides, or a language neither the table nor the agent words."""
    if not text or not lang or not _says(lang, overrides):
        return text
    return _replace(text, "texts", lang, overrides)


def buttons_in_language(texts: list[str], lang: str | None, overrides: Overrides | None = None) -> list[str]:
    """Suggested replies: an engine button in `lang` (whole texts only); an agent's own example stays as written."""
    if not lang or not _says(lang, overrides):
        return texts
    out = []
    for t in texts:
        said = _replace(t, "buttons", lang, overrides)
        out.append(said if said != t else in_language(t, lang, overrides))
    return out


LANGUAGE_NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French", "it": "Italian",
                  "pt": "Portuguese", "nl": "Dutch"}


def answer_language_lines(languages: list[str], session: Session | None) -> list[str]:
    """The generation prompt's lines about the answer's language: none for an agent of one language."""
    line = answer_language_line(languages, session.language if session is not None else None)
    return [line] if line else []


def answer_language_line(languages: list[str], lang: str | None) -> str | None:
    """The generation prompt's line asking for the customer's language, for an agent that speaks several."""
    if not lang or len(languages) < 2:
        return None
    name = LANGUAGE_NAMES.get(lang, lang)
    return (f"The customer writes in {name}: write your whole answer in {name}, whatever language the rules, texts "
            "and facts above are written in; keep ids, amounts and names as they are.")


def turn_language(state: TurnState) -> str | None:
    """The conversation's language (focal.sensing.turn_language), once the sensor has read it."""
    return state.session.language if state.session is not None else None


def reply_language(state: TurnState, agent: AgentConfig | None) -> str | None:
    """The language the reply is said in: the conversation's, else (a turn stopped before the sensor read it) the
    message's own among the agent's declared languages."""
    lang = turn_language(state)
    if lang is None and agent is not None:
        lang = read_turn_language(agent, state.request.message, None)
    return lang


def say_in_language(state: TurnState, agent: AgentConfig | None) -> None:
    """The answer's engine texts and suggested replies in the reply's language, in the agent's words where its
    `engine_texts` give them (persist, before the answer is written anywhere)."""
    lang = reply_language(state, agent)
    overrides = agent.engine_texts if agent is not None else None
    if state.response:
        state.response = in_language(state.response, lang, overrides)
    state.suggested_questions = buttons_in_language(list(state.suggested_questions), lang, overrides)
