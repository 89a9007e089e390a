"""The agent's declared knowledge as texts, the same on every turn: what an answer may rest on besides the turn
itself (`focal.enforcement.grounding`)."""

from __future__ import annotations

from focal.models.agent import AgentConfig


def agent_texts(agent: AgentConfig) -> list[str]:
    """The agent's declared knowledge, the same on every turn: rules, field definitions, steps, fixed texts.

    Templates are taken unrendered: the values they would show are sources themselves (variables)."""
    texts = [agent.name, agent.description or "", agent.persona or "", agent.greeting, agent.out_of_scope_message,
             agent.enforcement.fallback_message, agent.pre_validation.refusal_message]
    texts += _rule_texts(agent) + _field_texts(agent) + _scenario_texts(agent)
    return [t for t in texts if t and t.strip()]


def _rule_texts(agent: AgentConfig) -> list[str]:
    """The enabled rules' condition, action, template and fallback."""
    texts: list[str] = []
    for rule in agent.rules:
        if rule.enabled:
            texts += [rule.condition_text, rule.action_text, rule.response_template or "", rule.fallback_text or ""]
    return texts


def _field_texts(agent: AgentConfig) -> list[str]:
    """Each field's names, description and hints, and an enum's allowed values."""
    texts: list[str] = []
    for f in agent.profile_field_definitions:
        texts += [f.display_name or "", f.description or "", " ".join(f.extraction_hints or [])]
        if f.field_type == "enum":
            texts += [str(v) for v in f.allowed_values or []]
    return texts


def _scenario_texts(agent: AgentConfig) -> list[str]:
    """Each scenario's name, and its steps' instructions, hints, prompts and templates."""
    texts: list[str] = []
    for scenario in agent.scenarios:
        texts.append(scenario.name)
        for step in scenario.steps:
            texts += [step.instructions, step.clarification_hint or "", step.confirmation_prompt or "",
                      step.response_template or ""]
            texts += [s.prompt for s in step.slots if s.prompt]
    return texts
