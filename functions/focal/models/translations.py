"""The agent's customer-facing texts in its other languages: the `translations:` section of an agent file.

The file is written in its first declared language; `translations` gives the texts in each other one, by the ids
the file already uses, so a text is never far from its original and the file without the section reads as before:

    languages: [en, es]
    translations:
      es:
        greeting: Hola, …
        scenarios:
          renew:
            name: Renovar un préstamo
            entry_examples: [Quiero renovar un libro]          # added to the multilingual intent index
            steps:
              identify: {slots: {card_number: "¿Cuál es su número de carné?"}}
              confirm: {confirmation_prompt: "Renovaré '{loan_title}' {weeks} semanas. ¿Lo hago?"}
        rules:
          fines: {response_template: "Las multas son…", examples: [¿Cuánto es la multa?]}
        fields: {card_number: {prompt: …, display_name: Número de carné}}

How a turn uses them: focal.models.localized.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field, field_validator

REFUSAL_PLACEHOLDER = re.compile(r"\{(max_length|min_length|kinds)\}")


def plain_refusal_placeholders(texts: dict[str, str]) -> dict[str, str]:
    """Only `{max_length}`, `{min_length}` and `{kinds}`, filled as plain text: a brace anywhere else (a format spec
    such as `{max_length:>9999}`, an attribute `{kinds.__class__}`) is refused at load."""
    for key, text in texts.items():
        rest = REFUSAL_PLACEHOLDER.sub("", text)
        if "{" in rest or "}" in rest:
            raise ValueError(f"refusal_messages.{key}: only the placeholders {{max_length}}, {{min_length}} and "
                             f"{{kinds}} may appear in braces, got {text!r}")
    return texts


class _Texts(BaseModel):
    model_config = ConfigDict(extra="forbid")


class StepTexts(_Texts):
    slots: dict[str, str] = Field(default_factory=dict, description="slot name → its prompt in this language")
    confirmation_prompt: str | None = Field(default=None, description="the step's confirmation question")
    response_template: str | None = Field(default=None, description="what the offline composer says at this step")
    clarification_hint: str | None = Field(default=None, description="how to ask again at this step")


class ScenarioTexts(_Texts):
    name: str | None = Field(default=None, description="the scenario's name, as a clarifying question says it")
    entry_examples: list[str] = Field(
        default_factory=list, description="customer messages in this language that start it (added to the originals in "
                                          "the multilingual intent index)")
    steps: dict[str, StepTexts] = Field(default_factory=dict, description="step id → its texts")


class RuleTexts(_Texts):
    response_template: str | None = Field(default=None, description="what the offline composer says for this rule")
    fallback_text: str | None = Field(default=None, description="what to say when this rule blocks an answer")
    examples: list[str] = Field(default_factory=list, description="messages in this language that meet the condition "
                                                                  "(added to the rule's keys in the multilingual index)")


class FieldTexts(_Texts):
    prompt: str | None = Field(default=None, description="how to ask the customer for this variable")
    display_name: str | None = Field(default=None, description="the variable's human-readable name")
    value_labels: dict[str, str] = Field(
        default_factory=dict, description="an enum's allowed value → the words it is said in, in this language (a customer "
                                          "who answers in them gives the value)")
    value_synonyms: dict[str, list[str]] = Field(
        default_factory=dict, description="an allowed value → more of this language's words for it (added to the file's)")


class ToolTexts(_Texts):
    description: str | None = Field(default=None, description="what the tool does (a confirmation without a prompt "
                                                              "says it; the model reads it)")


class LanguageTexts(_Texts):
    """An agent's customer-facing texts in one language, by the ids of the agent file."""

    greeting: str | None = Field(default=None, description="the agent's first message")
    out_of_scope_message: str | None = Field(default=None, description="the answer to a message nothing covers")
    fallback_message: str | None = Field(default=None, description="enforcement.fallback_message in this language")
    refusal_message: str | None = Field(default=None, description="pre_validation.refusal_message in this language")
    refusal_messages: dict[str, str] = Field(default_factory=dict,
                                             description="pre_validation.refusal_messages in this language, by check")
    context_questions: list[str] = Field(default_factory=list,
                                         description="pre_validation.context_questions in this language")
    scenarios: dict[str, ScenarioTexts] = Field(default_factory=dict, description="scenario id → its texts")
    rules: dict[str, RuleTexts] = Field(default_factory=dict, description="rule id → its texts")
    fields: dict[str, FieldTexts] = Field(default_factory=dict, description="field name → its texts")
    tools: dict[str, ToolTexts] = Field(default_factory=dict, description="tool id → its texts")

    _refusals = field_validator("refusal_messages", mode="after")(plain_refusal_placeholders)
