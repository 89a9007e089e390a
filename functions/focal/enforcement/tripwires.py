"""Cheap offline tripwires for the default checks every model draft gets; each only raises a verification.

- `no_credential_request`: the draft names a payment or login secret (card number, CVV, password, PIN,
  one-time code) in English, Spanish, German or French. Naming one is not asking for it ("never share your
  PIN"), so the verification call decides — unless the draft asks the customer for a secret, as a question or a
  request (`secret_asked_for`, focal.enforcement.secret_requests): that is a request for it whatever a judge says (a
  small model's judge was seen clearing "¿Cuál es tu número de tarjeta completo y el CVV?" as naming no card
  number), so it blocks with no judge. A warning and a question about a part of a number the agent may ask for
  (its last four digits) are left to the judge.
- `no_unbacked_agreement`: the customer's message asks for something the hard rules in scope would not allow
  (an amount of a capped kind, in any language, or a value the offline reader reads, that a rule would not
  allow), or it was read as asking for a flow that runs a guarded action while the turn is outside that flow. A short "Yes." or
  "comp it" to that demand states no figure, so the verification call reads it beside the message.

Both are judged like subjective hard rules, batched with the agent's own; unjudged, they block.
"""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.enforcement.facts import marked_figures
from focal.enforcement.reading import offline_reading
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule
from focal.text.draft_view import as_checked

DEFAULT_RULES: dict[str, Rule] = {
    "no_credential_request": Rule(
        id="no_credential_request", is_hard_constraint=True, subjective=True,
        condition_text="The answer mentions a card number, security code, password, PIN or one-time code.",
        action_text="Never ask the customer to type or send a card number, CVV or security code, password, PIN or "
                    "one-time code in this chat (warning them never to share one is fine).",
        fallback_text="For your security, please never share card numbers, security codes, passwords or PINs in this "
                      "chat. Is there anything else I can help with?"),
    "no_unbacked_agreement": Rule(
        id="no_unbacked_agreement", is_hard_constraint=True, subjective=True,
        condition_text="The customer asks for something the agent's rules limit, or that only an action may do.",
        action_text="Never agree to, confirm or promise what the customer asks for (money back, a waiver, a change, a "
                    "cancellation) unless the agent's rules allow it and the turn's task says it was done; saying what "
                    "the rules allow, or that the team will review it, is fine."),
}


def holds_for(rules: list[Rule], name: str, value: Any, known: dict[str, Any]) -> bool:
    """Every deterministic hard rule reading `name` holds with `value` (an expression that errors does not)."""
    for rule in rules:
        expr = rule.enforcement_expression
        if rule.subjective or not rule.is_hard_constraint or not expr:
            continue
        try:
            if name not in expressions.names(expr):
                continue
            if expressions.decide(expr, {**known, name: value}) is not True:
                return False
        except ExpressionError:
            return False
    return True


def runs_guarded_action(agent: AgentConfig, scenario_id: str | None) -> bool:
    """The scenario's steps run a side-effecting tool that a hard rule guards."""
    scenario = agent.scenario(scenario_id) if scenario_id else None
    if scenario is None:
        return False
    used = {t for step in scenario.steps for t in step.action}
    guarded = {t for r in agent.rules if r.enabled for t in r.guarded_tool_ids} & used
    return any(tool.side_effect and tool.id in guarded for tool in agent.tools)


def demands_forbidden(agent: AgentConfig, rules: list[Rule], names: set[str], message: str, known: dict[str, Any],
                      requested: str | None = None) -> bool:
    """The customer's message asks for what a rule in scope limits (an amount of a capped kind, in any language,
    that the rule would not allow), or it was read as asking for `requested`, a flow that runs a guarded action (the
    caller passes it only when the turn is outside that flow)."""
    if not message.strip():
        return False
    text = as_checked(message)
    for name in names:
        f = agent.field(name)
        if f is None or f.field_type not in ("money", "percentage"):
            continue
        if any(not holds_for(rules, name, v, known) for v in marked_figures(text, f.field_type)):
            return True
    amounts = {n for n in names if (f := agent.field(n)) is not None and f.field_type in ("money", "percentage", "number")}
    if amounts:  # an amount asked for in words the reader places ("pay me back the whole booking")
        reading, _ = offline_reading(agent, text, amounts, known=known, model_written=False)
        if any(not holds_for(rules, n, v, known) for n, v in reading.values.items()):
            return True
    return runs_guarded_action(agent, requested)
