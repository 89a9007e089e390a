"""The agent as a turn in one language sees it, and the agent the multilingual indexes are built from.

`localized(agent, lang)`: the same config with the `translations` of `lang` (focal.models.translations) in place of
the originals (a text with no translation stays as written; `focal validate` warns about it). `matching_view(agent)`:
the original examples plus every translation's. Each view is made once per config object.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable

from focal.models.agent import AgentConfig
from focal.models.translations import LanguageTexts


def _put(target: object, name: str, value: str | None) -> None:
    if value is not None and value.strip():
        setattr(target, name, value)


def _apply_flows(copy: AgentConfig, texts: LanguageTexts) -> None:
    for scenario in copy.scenarios:
        given = texts.scenarios.get(scenario.id)
        if given is None:
            continue
        _put(scenario, "name", given.name)
        for step in scenario.steps:
            step_texts = given.steps.get(step.id)
            if step_texts is None:
                continue
            for name in ("confirmation_prompt", "response_template", "clarification_hint"):
                _put(step, name, getattr(step_texts, name))
            for slot in step.slots:
                _put(slot, "prompt", step_texts.slots.get(slot.name))


def _ordinary(copy: AgentConfig, texts: LanguageTexts) -> None:
    """The translation's examples are ordinary requests of this agent in its language: the injection check contrasts
    a message with them as with `extra_ordinary_exemplars` (an ordinary message in another language than the shipped
    ordinary set sits nearer an attack exemplar in that language than to any English request)."""
    examples = [e for s in texts.scenarios.values() for e in s.entry_examples]
    examples += [e for r in texts.rules.values() for e in r.examples]
    have = copy.pre_validation.extra_ordinary_exemplars
    copy.pre_validation.extra_ordinary_exemplars = have + [e for e in dict.fromkeys(examples) if e not in have]


def _apply(copy: AgentConfig, texts: LanguageTexts) -> None:
    _put(copy, "greeting", texts.greeting)
    _put(copy, "out_of_scope_message", texts.out_of_scope_message)
    _put(copy.enforcement, "fallback_message", texts.fallback_message)
    _put(copy.pre_validation, "refusal_message", texts.refusal_message)
    copy.pre_validation.refusal_messages = {**copy.pre_validation.refusal_messages, **texts.refusal_messages}
    if texts.context_questions:
        copy.pre_validation.context_questions = list(texts.context_questions)
    _apply_flows(copy, texts)
    _ordinary(copy, texts)
    for rule in copy.rules:
        if (rule_texts := texts.rules.get(rule.id)) is not None:
            _put(rule, "response_template", rule_texts.response_template)
            _put(rule, "fallback_text", rule_texts.fallback_text)
    for field in copy.profile_field_definitions:
        if (field_texts := texts.fields.get(field.field_name)) is not None:
            _put(field, "prompt", field_texts.prompt)
            _put(field, "display_name", field_texts.display_name)
            field.value_labels = {**field.value_labels, **{v: w for v, w in field_texts.value_labels.items() if w.strip()}}
            field.value_synonyms = {v: [*field.value_synonyms.get(v, []), *field_texts.value_synonyms.get(v, [])]
                                    for v in dict.fromkeys([*field.value_synonyms, *field_texts.value_synonyms])}
    for tool in copy.tools:
        if (tool_texts := texts.tools.get(tool.id)) is not None:
            _put(tool, "description", tool_texts.description)


_KEPT = 64
_views: OrderedDict[tuple[int, str], tuple[AgentConfig, AgentConfig]] = OrderedDict()
_lock = threading.Lock()


def _cached(agent: AgentConfig, key: str, build: Callable[[], AgentConfig]) -> AgentConfig:
    """One view per config object and key: the indexes and digests cached per config see the same object each turn."""
    with _lock:
        hit = _views.get((id(agent), key))
        if hit is not None and hit[0] is agent:
            _views.move_to_end((id(agent), key))
            return hit[1]
    made = build()
    with _lock:
        _views[(id(agent), key)] = (agent, made)  # holding `agent` keeps its id from being reused while cached
        while len(_views) > _KEPT:
            _views.popitem(last=False)
    return made


def localized(agent: AgentConfig, lang: str | None) -> AgentConfig:
    """The agent with its texts in `lang` (itself when `lang` is its first language or has no translations)."""
    texts = agent.translations.get(lang or "")
    if texts is None:
        return agent

    def build() -> AgentConfig:
        copy = agent.model_copy(deep=True)
        _apply(copy, texts)
        return copy

    return _cached(agent, f"texts:{lang}", build)


def original_of(agent: AgentConfig) -> AgentConfig:
    """The agent a `localized` view was made from (itself when it is no such view)."""
    with _lock:
        return next((source for (_, key), (source, made) in _views.items() if made is agent and key.startswith("texts:")),
                    agent)


def matching_view(agent: AgentConfig) -> AgentConfig:
    """The agent the multilingual indexes are built from: each scenario's and rule's examples, then every
    translation's (itself when no translation adds an example)."""
    if not any(s.entry_examples for t in agent.translations.values() for s in t.scenarios.values()) and \
            not any(r.examples for t in agent.translations.values() for r in t.rules.values()):
        return agent

    def build() -> AgentConfig:
        copy = agent.model_copy(deep=True)
        for texts in agent.translations.values():
            for scenario in copy.scenarios:
                if (given := texts.scenarios.get(scenario.id)) is not None:
                    scenario.entry_examples = scenario.entry_examples + [e for e in given.entry_examples
                                                                         if e not in scenario.entry_examples]
            for rule in copy.rules:
                if (rule_texts := texts.rules.get(rule.id)) is not None:
                    rule.examples = rule.examples + [e for e in rule_texts.examples if e not in rule.examples]
        return copy

    return _cached(agent, "matching", build)


def examples_in(agent: AgentConfig, lang: str) -> AgentConfig | None:
    """The agent with each scenario's entry examples those `lang`'s translation gives (None when it gives none): a
    message in `lang` is scored against them on the same-language scale (focal.sensing.spaces)."""
    texts = agent.translations.get(lang)
    if texts is None or not any(s.entry_examples for s in texts.scenarios.values()):
        return None

    def build() -> AgentConfig:
        copy = agent.model_copy(deep=True)
        for scenario in copy.scenarios:
            given = texts.scenarios.get(scenario.id)
            scenario.entry_examples = list(given.entry_examples) if given is not None else []
        return copy

    return _cached(agent, f"examples:{lang}", build)
