"""Warnings of `focal validate` about soft rules (`is_hard_constraint: false`): guidance that acts, or that
offers what a hard rule or an action guard limits.

- A soft rule that attaches a side-effecting tool: a soft rule is matched by how close a message is to its
  condition_text (focal.retrieval), so the tool runs whenever a message reads like it, with no step that
  asks the customer first.
- A soft rule that offers what a hard rule limits. The heuristic is structural: it compares the variables
  the soft rule touches with the variables the hard rules' expressions read, where the soft rule touches
  * through its attached tools: a tool an action guard guards (each call is checked by the guard), or a
    side-effecting tool that takes or sets a variable a hard answer rule reads;
  * through its texts: its action_text and response_template, read by the engine's own offline draft reader
    (focal.enforcement.reading, with the agent's declared extraction_hints and amount words, as the
    deterministic lane reads an answer) as stating a value of a variable a hard rule reads, that the rule
    rejects in some situation where it otherwise holds (the other names at their defaults and probes, as
    for a rule's own texts: focal.config.validate_rules). A soft rule that states the limit ("up to 10%
    off") or does not speak of the variable is not reported; no word list is involved.
  Rules scoped to different scenarios never meet and are not compared.
"""

from __future__ import annotations

from focal import expressions
from focal.config.collector import Collector, resolve_step_scope
from focal.config.hints import quoted
from focal.config.validate_rules import answer_rules, breaking_texts, what_is_read
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, Rule, Scope


def _scenarios(agent: AgentConfig, rule: Rule) -> set[str] | None:
    """The scenarios a rule applies in (None: everywhere)."""
    if rule.scope == Scope.GLOBAL:
        return None
    if rule.scope == Scope.SCENARIO:
        return {rule.scope_id or ""}

    return {scenario for scenario, _ in resolve_step_scope(agent, rule.scope_id or "")}


def _meet(agent: AgentConfig, a: Rule, b: Rule) -> bool:
    first, second = _scenarios(agent, a), _scenarios(agent, b)
    return first is None or second is None or bool(first & second)


def _names(rule: Rule) -> set[str]:
    try:
        return expressions.names(rule.enforcement_expression or "")
    except ExpressionError:
        return set()  # an error of semantic_problems


def _tool_warnings(c: Collector, agent: AgentConfig, i: int, soft: Rule, hard: list[Rule]) -> None:
    for j, tool_id in enumerate(soft.attached_tool_ids):
        tool = agent.tool(tool_id)
        if tool is None:
            continue  # an error of semantic_problems
        where = ("rules", i, "attached_tool_ids", j)
        if tool.side_effect:
            c.add(where, f"soft rule '{soft.id}' attaches '{tool_id}', which has side effects (side_effect: true): a soft "
                  "rule is matched by how close a message is to its condition_text, so the tool runs whenever a message "
                  f"reads like it, with no step that asks the customer first; put '{tool_id}' in a scenario step's "
                  "action with requires_confirmation: true", "warning")
        touched = set(tool.input) | set(tool.output.values())
        for rule in hard:
            if not _meet(agent, soft, rule):
                continue
            if tool_id in rule.guarded_tool_ids:
                c.add(where, f"soft rule '{soft.id}' runs '{tool_id}', which action guard '{rule.id}' limits "
                      f"({quoted(rule.enforcement_expression or '')}): each time the soft rule matches, the call is "
                      "blocked unless the guard holds; run the tool from a scenario step whose flow gathers what the "
                      "guard reads", "warning")
            elif tool.side_effect and not rule.guarded_tool_ids and (shared := sorted(touched & _names(rule))):
                c.add(where, f"soft rule '{soft.id}' runs '{tool_id}', which takes or sets {', '.join(shared)}, which "
                      f"hard rule '{rule.id}' limits ({quoted(rule.enforcement_expression or '')}); an answer after "
                      "the call is checked against it", "warning")


def _text_warnings(c: Collector, agent: AgentConfig, i: int, soft: Rule) -> None:
    for _, rule, names in answer_rules(agent):
        if not _meet(agent, soft, rule):
            continue
        for key, _, replies, _, reading in breaking_texts(agent, rule, names, soft, ("action_text", "response_template")):
            read = what_is_read(key, reading, replies).replace(f"this {key} as", f"this {key}, as it reads an answer, as")
            c.add(("rules", i, key), f"soft rule '{soft.id}' offers what hard rule '{rule.id}' forbids: {read}, "
                  f"which fails {quoted(rule.enforcement_expression or '')}; an answer that follows the soft rule "
                  "is blocked. Say in the soft rule what the hard rule allows, or scope the two apart", "warning")


def soft_rule_warnings(c: Collector, agent: AgentConfig) -> None:
    hard = [r for r in agent.rules if r.enabled and r.is_hard_constraint and r.enforcement_expression and not r.subjective]
    for i, soft in enumerate(agent.rules):
        if soft.is_hard_constraint or not soft.enabled:
            continue
        _tool_warnings(c, agent, i, soft, hard)
        _text_warnings(c, agent, i, soft)
