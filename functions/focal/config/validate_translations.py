"""Checks of an agent's `translations` (focal.models.translations).

Errors: a translation for a language `languages` does not declare (or for the agent's own, first, language), an id
that names no scenario, step, slot, rule, field or tool of the file, and a translated text with a `{placeholder}`
its original does not have (it would be said with a value nobody provides).
Warnings: a declared language with no translations at all (one warning: every text is said as written), and each
customer-facing text the file sets that a declared language lacks (it is said in the file's language).
The same for `engine_texts` (focal.models.engine_texts; its keys and placeholders are checked at load): a language
`languages` does not declare is an error; an engine text the file words in one declared language but not in another
is a warning, and so is a declared language the engine's table has no version in (its texts are said in English).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from focal.config.collector import Collector
from focal.config.hints import did_you_mean
from focal.models.agent import AgentConfig, PreValidationConfig
from focal.models.engine_texts import LANGUAGES as ENGINE_LANGUAGES
from focal.models.translations import LanguageTexts
from focal.variables import placeholders

NAMES = {"en": "English", "es": "Spanish", "de": "German", "fr": "French", "it": "Italian", "pt": "Portuguese",
         "nl": "Dutch"}
_DEFAULTS = AgentConfig(id="d", name="d")
Path = tuple[Any, ...]


def _texts(agent: AgentConfig) -> Iterator[tuple[Path, Path, str]]:
    """(path in the file, path in a translation, text) of every customer-facing text the file sets itself."""
    for name in ("greeting", "out_of_scope_message"):
        if getattr(agent, name) != getattr(_DEFAULTS, name):
            yield (name,), (name,), getattr(agent, name)
    if agent.enforcement.fallback_message != _DEFAULTS.enforcement.fallback_message:
        yield ("enforcement", "fallback_message"), ("fallback_message",), agent.enforcement.fallback_message
    pre, default = agent.pre_validation, PreValidationConfig()
    if pre.refusal_message != default.refusal_message:
        yield ("pre_validation", "refusal_message"), ("refusal_message",), pre.refusal_message
    for key, text in pre.refusal_messages.items():
        if text != default.refusal_messages.get(key):
            yield ("pre_validation", "refusal_messages", key), ("refusal_messages", key), text
    for i, s in enumerate(agent.scenarios):
        yield ("scenarios", i, "name"), ("scenarios", s.id, "name"), s.name
        for j, step in enumerate(s.steps):
            at, to = ("scenarios", i, "steps", j), ("scenarios", s.id, "steps", step.id)
            for name in ("confirmation_prompt", "response_template", "clarification_hint"):
                if getattr(step, name).strip():
                    yield (*at, name), (*to, name), getattr(step, name)
            for k, slot in enumerate(step.slots):
                yield (*at, "slots", k, "prompt"), (*to, "slots", slot.name), slot.prompt
    for i, r in enumerate(agent.rules):
        for name in ("response_template", "fallback_text"):
            if (getattr(r, name) or "").strip():
                yield ("rules", i, name), ("rules", r.id, name), getattr(r, name)
    for i, f in enumerate(agent.profile_field_definitions):
        if f.prompt:
            yield ("profile_field_definitions", i, "prompt"), ("fields", f.field_name, "prompt"), f.prompt


def _given(texts: LanguageTexts, path: Path) -> str | None:
    node: Any = texts
    for part in path:
        node = node.get(part) if isinstance(node, dict) else getattr(node, part, None)
        if node is None:
            return None
    return node if isinstance(node, str) and node.strip() else None


def _ids(c: Collector, at: Path, given: dict[str, Any], known: list[str], what: str) -> None:
    for key in given:
        if key not in known:
            c.add((*at, key), f"{what} '{key}' does not exist{did_you_mean(key, known)}")


def _id_problems(c: Collector, agent: AgentConfig, lang: str, texts: LanguageTexts) -> None:
    at = ("translations", lang)
    _ids(c, (*at, "scenarios"), texts.scenarios, [s.id for s in agent.scenarios], "scenario")
    for scenario_id, given in texts.scenarios.items():
        scenario = agent.scenario(scenario_id)
        if scenario is None:
            continue
        _ids(c, (*at, "scenarios", scenario_id, "steps"), given.steps, [st.id for st in scenario.steps], "step")
        for step_id, step_texts in given.steps.items():
            step = agent.step(scenario_id, step_id)
            if step is not None:
                _ids(c, (*at, "scenarios", scenario_id, "steps", step_id, "slots"), step_texts.slots,
                     [slot.name for slot in step.slots], "slot")
    _ids(c, (*at, "rules"), texts.rules, [r.id for r in agent.rules], "rule")
    _ids(c, (*at, "fields"), texts.fields, [f.field_name for f in agent.profile_field_definitions], "field")
    for name, field_texts in texts.fields.items():
        f = agent.field(name)
        for key in ("value_labels", "value_synonyms"):
            if f is not None and getattr(field_texts, key):
                _ids(c, (*at, "fields", name, key), getattr(field_texts, key), list(f.allowed_values), "allowed value")
    _ids(c, (*at, "tools"), texts.tools, [t.id for t in agent.tools], "tool")
    _ids(c, (*at, "refusal_messages"), texts.refusal_messages, list(PreValidationConfig().refusal_messages), "check")


def translation_problems(c: Collector, agent: AgentConfig) -> None:
    own = agent.languages[0] if agent.languages else "en"
    for lang, texts in agent.translations.items():
        if lang == own:
            c.add(("translations", lang), f"'{lang}' is the language the file is written in (the first of languages); "
                  "its texts are the file's own")
            continue
        if lang not in agent.languages:
            c.add(("translations", lang), f"'{lang}' is not one of languages ({', '.join(agent.languages)}); "
                  f"add it there or remove these texts")
            continue
        _id_problems(c, agent, lang, texts)
        for _, to, original in _texts(agent):
            translated = _given(texts, to)
            extra = sorted(placeholders(translated) - placeholders(original)) if translated else []
            if extra:
                c.add(("translations", lang, *to), f"{', '.join('{' + n + '}' for n in extra)} is not in the original "
                      f"text, so no value would fill it; use the original's placeholders")


def translation_warnings(c: Collector, agent: AgentConfig) -> None:
    for lang in agent.languages[1:]:
        name = NAMES.get(lang, lang)
        texts = agent.translations.get(lang)
        if texts is None:
            c.add(("languages",), f"'{lang}' is declared but translations has no '{lang}': a customer writing {name} "
                  "is answered with the file's own texts (the engine's notices are said in "
                  f"{name}); add translations.{lang}", "warning")
            continue
        for path, to, _ in _texts(agent):
            if _given(texts, to) is None:
                c.add(path, f"no {name} text (translations.{lang}.{'.'.join(map(str, to))}): said as written to a "
                      f"customer writing {name}", "warning")
        for i, f in enumerate(agent.profile_field_definitions):
            given = texts.fields.get(f.field_name)
            if f.field_type == "enum" and "message" in f.sources and f.allowed_values and not (given and given.value_labels):
                c.add(("profile_field_definitions", i, "allowed_values"),
                      f"no {name} words for the values of '{f.field_name}' (translations.{lang}.fields.{f.field_name}."
                      f"value_labels): a customer writing {name} must answer with the file's words", "warning")


def engine_text_problems(c: Collector, agent: AgentConfig) -> None:
    for lang in agent.engine_texts:
        if lang not in agent.languages:
            c.add(("engine_texts", lang), f"'{lang}' is not one of languages ({', '.join(agent.languages)}); "
                  "add it there or remove these texts")


def engine_text_warnings(c: Collector, agent: AgentConfig) -> None:
    worded = sorted({key for texts in agent.engine_texts.values() for key in texts})
    for lang in agent.languages:
        name, given = NAMES.get(lang, lang), agent.engine_texts.get(lang, {})
        if lang not in ENGINE_LANGUAGES and not given:
            c.add(("languages",), f"the engine's own texts (a hand-off, a clarification, a refusal) have no {name} "
                  f"version: a customer writing {name} hears them in English; add engine_texts.{lang}", "warning")
        for key in worded:
            if key not in given:
                c.add(("engine_texts", lang, key), f"no {name} text: the file words '{key}' in another language, a "
                      f"customer writing {name} hears the engine's own wording", "warning")
