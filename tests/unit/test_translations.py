"""An agent's texts in its other languages (`translations:`, focal.models.translations): the agent a turn in a
language sees (focal.models.localized), what `focal validate` says about them, the engine's own notices in each
language (focal.dialogue.notices), the generation prompt asking for the customer's language, and the schema."""

from __future__ import annotations

import re

import pytest
from pydantic import ValidationError

from focal.config.validate import semantic_problems, semantic_warnings
from focal.dialogue.notices import answer_language_line, buttons_in_language, in_language
from focal.generation.prompt import generation_messages
from focal.models.agent import AgentConfig, agent_json_schema
from focal.models.engine_texts import table
from focal.models.localized import localized
from focal.models.session import Session
from focal.models.turn import TurnRequest, TurnState


def library(**extra) -> AgentConfig:
    doc = {
        "id": "lib", "name": "Library", "languages": ["en", "es", "de"],
        "greeting": "Hi, this is the library.", "out_of_scope_message": "I only renew books.",
        "profile_field_definitions": [{"field_name": "card", "field_type": "id", "prompt": "Your card number?"}],
        "scenarios": [{"id": "renew", "name": "Renew a loan", "entry_examples": ["renew my book"], "entry_step_id": "ask",
                       "steps": [{"id": "ask", "slots": [{"name": "weeks", "type": "integer", "prompt": "How many weeks?"}],
                                  "requires_confirmation": True, "confirmation_prompt": "Renew for {weeks} weeks?"}]}],
        "rules": [{"id": "hours", "condition_text": "opening hours", "action_text": "say them",
                   "response_template": "We open at 9.", "fallback_text": "Ask at the desk."}],
        "translations": {"es": {
            "greeting": "Hola, aquí la biblioteca.", "out_of_scope_message": "Solo renuevo libros.",
            "fields": {"card": {"prompt": "¿Su número de carné?"}},
            "scenarios": {"renew": {"name": "Renovar un préstamo", "steps": {"ask": {
                "slots": {"weeks": "¿Cuántas semanas?"}, "confirmation_prompt": "¿Renuevo {weeks} semanas?"}}}},
            "rules": {"hours": {"response_template": "Abrimos a las 9.", "fallback_text": "Pregunte en el mostrador."}},
        }},
    }
    doc.update(extra)
    return AgentConfig.model_validate(doc)


def test_a_turn_in_a_language_sees_the_agent_with_its_texts_in_that_language():
    agent = library()
    es = localized(agent, "es")
    assert (es.greeting, es.out_of_scope_message) == ("Hola, aquí la biblioteca.", "Solo renuevo libros.")
    step = es.step("renew", "ask")
    assert (step.slots[0].prompt, step.confirmation_prompt) == ("¿Cuántas semanas?", "¿Renuevo {weeks} semanas?")
    assert es.scenario("renew").name == "Renovar un préstamo"
    assert (es.rule("hours").response_template, es.rule("hours").fallback_text) == ("Abrimos a las 9.",
                                                                                  "Pregunte en el mostrador.")
    assert es.field("card").prompt == "¿Su número de carné?"
    assert agent.greeting == "Hi, this is the library." and agent.step("renew", "ask").slots[0].prompt == "How many weeks?"
    assert localized(agent, "es") is es  # one view per config: the caches keyed by config see the same object
    assert localized(agent, "de") is agent and localized(agent, "en") is agent and localized(agent, None) is agent


def test_the_file_without_translations_reads_as_before():
    agent = AgentConfig(id="a", name="a")
    assert agent.translations == {} and localized(agent, "es") is agent


def test_validate_reports_unknown_ids_undeclared_languages_and_new_placeholders():
    agent = library(translations={
        "es": {"scenarios": {"renw": {"name": "x"}, "renew": {"steps": {"ask": {
            "slots": {"days": "x"}, "confirmation_prompt": "¿Renuevo {semanas} semanas?"}}}},
            "rules": {"hour": {"response_template": "x"}}},
        "fr": {"greeting": "Bonjour"}, "en": {"greeting": "Hi"}})
    problems = {p.path: p.message for p in semantic_problems(agent)}
    assert "did you mean 'renew'" in problems["translations.es.scenarios.renw"]
    assert "slot 'days' does not exist" in problems["translations.es.scenarios.renew.steps.ask.slots.days"]
    assert "did you mean 'hours'" in problems["translations.es.rules.hour"]
    assert "{semanas} is not in the original" in problems["translations.es.scenarios.renew.steps.ask.confirmation_prompt"]
    assert "not one of languages" in problems["translations.fr"]
    assert "the language the file is written in" in problems["translations.en"]


def test_validate_warns_about_each_missing_text_and_a_language_with_none():
    agent = library()
    agent.translations["es"].rules["hours"].fallback_text = None
    warnings = {p.path: p.message for p in semantic_warnings(agent)}
    assert "no Spanish text" in warnings["rules[0].fallback_text"]
    assert "'de' is declared but translations has no 'de'" in warnings["languages"]
    assert not any(path.startswith(("greeting", "scenarios")) for path in warnings)
    assert semantic_problems(library()) == []


def test_a_translated_refusal_takes_only_the_refusal_placeholders():
    with pytest.raises(ValidationError, match="only the placeholders"):
        library(translations={"es": {"refusal_messages": {"too_long": "Más de {max_length:>99} caracteres"}}})


def test_the_engines_notices_are_said_in_the_customers_language_and_nothing_else_is_touched():
    said = in_language("Okay, I've stopped that (Renovar un préstamo). Is there anything else I can help with?", "es")
    assert said == "De acuerdo, lo he detenido (Renovar un préstamo). ¿Puedo ayudarle en algo más?"
    assert in_language("Just to be sure I help with the right thing: do you mean Renovar or Multas?", "de") == \
        "Damit ich Ihnen bei der richtigen Sache helfe, meinen Sie: Renovar oder Multas?"
    assert in_language("That doesn't look right. ¿Cuántas semanas?", "es") == "Eso no parece correcto. ¿Cuántas semanas?"
    assert in_language("Is there anything else I can help with?", "en") == "Is there anything else I can help with?"
    assert in_language("No, thanks", "de") == "No, thanks"  # a button's word inside a text is not a button
    assert buttons_in_language(["Yes", "No", "renovar un libro"], "fr") == ["Oui", "Non", "renovar un libro"]
    for section in table().values():
        for versions in section.values():  # every translation keeps the English template's placeholders
            for text in versions.values():
                assert sorted(re.findall(r"\{(\w+)\}", text)) == sorted(re.findall(r"\{(\w+)\}", versions["en"]))


def test_the_generation_prompt_asks_for_the_customers_language():
    agent = library()
    state = TurnState(request=TurnRequest(tenant_id="t", agent_id="lib", session_id="s", turn_id="t1", message="hola"),
                      session=Session(tenant_id="t", agent_id="lib", session_id="s", customer_id="c", language="es"))
    system = generation_messages(localized(agent, "es"), state, {})[0]["content"]
    assert "write your whole answer in Spanish" in system
    assert answer_language_line(["en"], "en") is None


def test_the_schema_describes_translations():
    schema = agent_json_schema()
    assert "translations" in schema["properties"]
    assert "LanguageTexts" in schema["$defs"] and "slots" in schema["$defs"]["StepTexts"]["properties"]
