"""Action guards: hard constraints that name the tools they guard (`guarded_tool_ids`), reads included
(reading a customer's data is an action too).

A guard is about the action, not the answer's text. Before a guarded tool runs — a step action, a
rule-attached tool, a lookup, an approved request being resumed — every guard in scope is evaluated on the
call's exact arguments: the expression reads the turn's variables (field defaults < profile <
session < slots) overridden by the call's arguments by their input names, plus the built-in
`customer_confirmed` (the customer said yes to the confirmation that leads to this call).

Fail closed: a false expression, a name with no value that the result depends on, or an expression that
raises (a type error at run time) blocks the call; an agent with `tools_without_guard: deny` also blocks every call no guard in
scope permits. Nothing here runs the tool; the caller stops it.
"""

from __future__ import annotations

from typing import Any

from focal import expressions
from focal.enforcement.scope import ActiveScope
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import GuardVerdict

CONFIRMED = "customer_confirmed"  # built-in guard variable
UNVERIFIED = "cannot verify"  # how a verdict that could not be decided on known values begins


def is_guard(rule: Rule) -> bool:
    return bool(rule.is_hard_constraint and rule.guarded_tool_ids)


def guards_for(agent: AgentConfig, tool_id: str, scope: ActiveScope) -> list[Rule]:
    """The enabled guards of `tool_id` whose scope is active."""
    return [r for r in agent.rules if r.enabled and is_guard(r) and tool_id in r.guarded_tool_ids and scope.contains(r)]


def guard_variables(variables: dict[str, Any], arguments: dict[str, Any], confirmed: bool) -> dict[str, Any]:
    return {**variables, **{k: v for k, v in arguments.items() if v is not None}, CONFIRMED: confirmed}


def evaluate(rule: Rule, values: dict[str, Any]) -> GuardVerdict:
    expression = rule.enforcement_expression
    if not expression:
        return GuardVerdict(rule_id=rule.id, passed=False, reason=f"{UNVERIFIED}: the guard has no expression")
    try:
        names = expressions.names(expression)
        shown = {n: values[n] for n in sorted(names) if n in values}
        unknown = sorted(names - {n for n in values if values[n] is not None})
        if unknown:
            # `not is_gift_card or balance >= diff` holds when is_gift_card is false, whatever balance is: the logic
            # decides without the unknown names, or nothing does and the call is blocked
            decided = expressions.decide(expression, {k: v for k, v in values.items() if v is not None})
            if decided is None:
                return GuardVerdict(rule_id=rule.id, passed=False, variables=shown,
                                    reason=f"{UNVERIFIED}: {', '.join(unknown)} unknown")
            whatever = f"whatever {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'}"
            return GuardVerdict(rule_id=rule.id, passed=decided, variables=shown,
                                reason=f"holds {whatever}" if decided else f"{expression} is false for {shown}, {whatever}")
        holds = expressions.evaluate(expression, values)
    except ExpressionError as exc:
        return GuardVerdict(rule_id=rule.id, passed=False, reason=f"{UNVERIFIED}: {exc}")
    if holds is True:
        return GuardVerdict(rule_id=rule.id, passed=True, reason="holds", variables=shown)
    why = "is false" if holds is False or holds is None else f"gave {type(holds).__name__} {holds!r}, not true"
    return GuardVerdict(rule_id=rule.id, passed=False, variables=shown, reason=f"{expression} {why} for {shown}")


def check_call(
    agent: AgentConfig, tool_id: str, arguments: dict[str, Any], variables: dict[str, Any], scope: ActiveScope,
    confirmed: bool,
) -> list[GuardVerdict]:
    """Every guard in scope of one call, evaluated on its exact arguments (empty: the tool has no guard)."""
    values = guard_variables(variables, arguments, confirmed)
    rules = guards_for(agent, tool_id, scope)
    if not rules and agent.tools_without_guard == "deny":
        return [GuardVerdict(rule_id="tools_without_guard", passed=False,
                             reason=f"no guard in scope permits {tool_id} (the agent's tools are deny-by-default)")]
    return [evaluate(rule, values) for rule in rules]


def both(own: list[GuardVerdict], summed: list[GuardVerdict]) -> list[GuardVerdict]:
    """Each guard's verdict on the call's own arguments, replaced by its verdict on the conversation's totals when
    only that one fails (focal.dialogue.running_totals): a guard holds only if it holds on both."""
    failing = {v.rule_id: v for v in summed if not v.passed}
    return [failing[v.rule_id].model_copy(update={"reason": f"{failing[v.rule_id].reason} (the conversation's total "
                                                            f"with the earlier calls)"})
            if v.passed and v.rule_id in failing else v for v in own]


def blocked(verdicts: list[GuardVerdict]) -> list[GuardVerdict]:
    return [v for v in verdicts if not v.passed]


def unverified(verdict: GuardVerdict) -> bool:
    """The guard failed because it could not be decided (a value unknown, an error), not on known values."""
    return not verdict.passed and verdict.reason.startswith(UNVERIFIED)
