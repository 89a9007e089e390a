"""Hard constraints that do not do what they say, found by reading them the way the engine does.

- A hard constraint switched off (`enabled: false`): never checked. The author may switch off their own rule,
  but nothing else turns enforcement off, so `focal validate` says so plainly (a warning).
- A rule's own `fallback_text` or `response_template` that the rule rejects: the text is read by the engine's
  draft reader (enforcement.reading `offline_reading`, no model) and checked by the deterministic lane, as an
  answer is. When the rule blocks an answer, its template is composed instead (and blocked again), then its
  fallback_text is said, unchecked: a text the rule rejects is said anyway, or a compliant one is misread, and so
  is every draft in the same words (a warning: the reader may misread what the author meant).
- A field only replies set whose `default` breaks a hard constraint reading it: a reply that states no value
  for it is checked with the default, so the rule blocks every answer it applies to (an error).
- A percentage field compared with a fraction (`discount <= 0.15`): percentages are held in percent (a reply's
  '15%' is read as 15), so the limit is a hundred times smaller than meant (a warning).
"""

from __future__ import annotations

import ast
import copy
import itertools
from collections.abc import Iterator
from typing import Any

from focal import expressions
from focal.config.collector import Collector, agent_expressions
from focal.config.hints import quoted
from focal.config.validate_guards import reply_only_fields
from focal.enforcement.deterministic import deterministic
from focal.enforcement.reading import PROBES, DraftReading, apply_reading, offline_reading
from focal.errors import ExpressionError
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.models.turn import Violation
from focal.variables import render

MAX_SITUATIONS = 64  # combinations of the other names' values tried per text


def answer_rules(agent: AgentConfig) -> list[tuple[int, Rule, set[str]]]:
    """(index, rule, names it reads) of each enabled hard constraint checked on answers by its expression."""
    out = []
    for i, r in enumerate(agent.rules):
        if not (r.enabled and r.is_hard_constraint and r.enforcement_expression) or r.subjective or r.guarded_tool_ids:
            continue
        try:
            out.append((i, r, expressions.names(r.enforcement_expression)))
        except ExpressionError:
            continue  # an error of semantic_problems
    return out


def disabled_warnings(c: Collector, agent: AgentConfig) -> None:
    for i, r in enumerate(agent.rules):
        if r.enabled or not r.is_hard_constraint:
            continue
        if r.guarded_tool_ids:
            what = "calls of " + ", ".join(f"'{t}'" for t in r.guarded_tool_ids) + " run without this guard"
        elif r.enforcement_expression:
            what = f"no answer is checked against {quoted(r.enforcement_expression)}"
        else:
            what = "no answer is checked against it"
        c.add(("rules", i, "enabled"), f"hard constraint '{r.id}' is switched off (enabled: false), so it is never "
              f"checked: {what}. This key is the only switch that turns a hard constraint off (enforcement.enabled "
              "cannot); remove enabled: false to enforce the rule, or remove the rule if it no longer applies", "warning")


# --- a rule's own texts ------------------------------------------------------------------------------


def _values_to_try(f: ProfileFieldDefinition | None) -> list[Any]:
    """The values another name the rule reads may have when the rule blocks: its default, then the engine's
    probes (zero, far below, far above; true and false) or an enum's allowed values."""
    if f is None:
        return []
    out = [] if f.default is None else [f.default]
    out += list(PROBES.get(f.field_type, ())) + (list(f.allowed_values) if f.field_type == "enum" else [])
    return list(dict.fromkeys(out))


def rule_situations(agent: AgentConfig, others: set[str]) -> list[dict[str, Any]]:
    """Values of the rule's other names (not read from the answer) to check a text under."""
    base = {f.field_name: f.default for f in agent.profile_field_definitions if f.default is not None}
    tried = {n: values for n in sorted(others) if (values := _values_to_try(agent.field(n)))}
    combos = itertools.islice(itertools.product(*tried.values()), MAX_SITUATIONS)
    return [{**base, **dict(zip(tried, combo, strict=True))} for combo in combos]


def rule_violations(agent: AgentConfig, rule: Rule, variables: dict[str, Any], reading: DraftReading) -> list[Violation]:
    """What the deterministic lane finds for `rule` on an answer read as `reading`, as stages/enforce.py does."""
    variables = dict(variables)
    keep, out = apply_reading(agent, [rule], variables, reading)
    return out + deterministic(keep, variables)


def shown_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def what_is_read(key: str, reading: DraftReading, names: set[str]) -> str:
    """'the engine reads this fallback_text as stating x = 20', '… cannot read y in this …' (an uncertain
    name is unknown to the lane, whatever value was read beside the doubt)."""
    doubts = [f"{n} ({reading.uncertain[n]})" for n in sorted(names) if n in reading.uncertain]
    said = [f"{n} = {shown_value(reading.values[n])}" for n in sorted(names) if n in reading.values and n not in reading.uncertain]
    if not said:
        return f"the engine cannot read {' or '.join(doubts)} in this {key}"
    head = f"the engine reads this {key} as stating {' and '.join(said)}"
    return head + (f" and cannot read {' or '.join(doubts)} in it" if doubts else "")


def _fix(agent: AgentConfig, text: str, reading: DraftReading, names: set[str]) -> str:
    for n in sorted(names):
        f = agent.field(n)
        if f and f.field_type == "boolean" and reading.values.get(n) is True and f.extraction_hints:
            hit = [h for h in f.extraction_hints if h.lower() in text.lower()]
            if hit:
                return (f"if the text does state this, change what it says; if it only mentions it (a refusal, a "
                        f"condition), note that '{n}' is read as true whenever a text contains one of its "
                        f"extraction_hints, negated or not (here {', '.join(repr(h) for h in hit)}): word it without them")
    if any(n in reading.uncertain for n in names):
        return "state the amount plainly, or say what happens instead without an amount"
    return ("if the text does state this, change it to what the rule allows; if it only names the limit, word it as "
            "one ('up to', 'no more than')")


def _consequence(key: str) -> str:
    if key == "fallback_text":
        return ("a draft in these words is blocked by this rule, and when the rule blocks an answer the customer is told "
                "this text anyway, unchecked")
    return ("a draft in these words is blocked by this rule, so when the rule blocks an answer, the answer composed "
            "from this template is blocked again")


def breaking_texts(agent: AgentConfig, rule: Rule, names: set[str], owner: Rule, keys: tuple[str, ...]
                   ) -> Iterator[tuple[str, str, set[str], dict[str, Any], DraftReading]]:
    """(key, text, the response fields read, situation, reading) for each of `owner`'s texts under `keys` that, read
    as an answer, breaks `rule` in a situation where the rule otherwise holds; the first such situation per text."""
    replies = {n for n in names if (f := agent.field(n)) and "response" in f.sources and not f.privileged}
    if not replies:
        return
    situations = rule_situations(agent, names - replies)
    for key in keys:
        template = getattr(owner, key)
        if not template:
            continue
        text = render(template, {})  # placeholders read 'unknown': no amount is made up for them
        for variables in situations:
            if rule_violations(agent, rule, variables, DraftReading()):
                continue  # the rule fails whatever the answer says here (a default breaking it is its own error)
            reading, _ = offline_reading(agent, text, replies, variables, model_written=False)
            if rule_violations(agent, rule, variables, reading):
                yield key, text, replies, variables, reading
                break


def own_text_warnings(c: Collector, agent: AgentConfig) -> None:
    """A hard constraint's fallback_text or response_template that the rule itself rejects (see the module)."""
    for i, rule, names in answer_rules(agent):
        for key, text, replies, variables, reading in breaking_texts(agent, rule, names, rule,
                                                                 ("response_template", "fallback_text")):
            others = {n: variables[n] for n in sorted(names - replies) if n in variables}
            changed = {n: v for n, v in others.items() if (f := agent.field(n)) is None or v != f.default}
            where = f" (when {', '.join(f'{n} is {shown_value(v)}' for n, v in changed.items())})" if changed else ""
            check = quoted(rule.enforcement_expression or "")
            c.add(("rules", i, key), f"{what_is_read(key, reading, replies)}, which fails the rule's own check "
                  f"{check}{where}: {_consequence(key)}; {_fix(agent, text, reading, replies)}", "warning")


# --- a default that breaks a hard constraint -----------------------------------------------------------


def _allowed_default(f: ProfileFieldDefinition, expr: str) -> Any:
    candidates: list[Any] = {"boolean": [not f.default]}.get(f.field_type, [0] if f.field_type in PROBES else [])
    candidates += list(f.allowed_values)
    return next((v for v in candidates if expressions.decide(expr, {f.field_name: v}) is True), None)


def default_problems(c: Collector, agent: AgentConfig) -> None:
    """A default of a field only replies set that fails a hard constraint reading it, whatever else is known."""
    replies = reply_only_fields(agent)
    index = {f.field_name: k for k, f in enumerate(agent.profile_field_definitions)}
    for _, rule, names in answer_rules(agent):
        expr = rule.enforcement_expression or ""
        for n in sorted(names & replies.keys()):
            f = replies[n]
            if f.default is None or expressions.decide(expr, {n: f.default}) is not False:
                continue
            fine = _allowed_default(f, expr)
            fix = f"write a default the rule allows, e.g. default: {shown_value(fine)}" if fine is not None else \
                "write a default the rule allows"
            c.add(("profile_field_definitions", index[n], "default"),
                  f"default {shown_value(f.default)} of '{n}' breaks hard constraint '{rule.id}' ({quoted(expr)}): only the "
                  f"agent's replies set '{n}' (sources: [{', '.join(f.sources)}]) and an answer that states none is "
                  f"checked with the default, so the rule blocks every answer it applies to that does not state a "
                  f"{n} itself; {fix}")


# --- a percentage compared with a fraction ------------------------------------------------------------


def _value_type(agent: AgentConfig, parts: tuple[Any, ...]) -> str | None:
    """The type of `value` in a field's validation_rules or a slot's validation."""
    if parts[0] == "profile_field_definitions":
        return agent.profile_field_definitions[parts[1]].field_type
    if "slots" in parts:
        return agent.scenarios[parts[1]].steps[parts[3]].slots[parts[5]].type
    return None


def fraction_warnings(c: Collector, agent: AgentConfig) -> None:
    for parts, expr in agent_expressions(agent):
        try:
            tree = expressions.parse(expr)
        except ExpressionError:
            continue
        types = dict(c.types)
        if (kind := _value_type(agent, parts)) is not None:
            types["value"] = kind
        for message in percent_fractions(tree, types):
            c.add(parts, message, "warning")


def _fraction(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool) \
            and 0 < abs(node.value) < 1:
        return float(node.value)
    return None


def percent_fractions(tree: ast.Expression, types: dict[str, str]) -> list[str]:
    """A percentage variable compared with a number between 0 and 1 (both ways round)."""
    out: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            for name, other in ((left, right), (right, left)):
                share = _fraction(other)
                if isinstance(name, ast.Name) and types.get(name.id) == "percentage" and share is not None:
                    shown = ast.unparse(ast.Compare(left=left, ops=[op], comparators=[right]))
                    percent = f"{round(share * 100, 9):g}"
                    out.append(f"'{name.id}' is a percentage field, held in percent (a reply's or a message's '{percent}%' "
                               f"is read as {percent}), so {quoted(shown)} compares it with {share:g}%, not {percent}%; "
                               f"write {quoted(_replaced(tree, other, percent))}")
            left = right
    return list(dict.fromkeys(out))


def _replaced(tree: ast.Expression, constant: ast.AST, percent: str) -> str:
    """The whole expression with `constant` written in percent (the same node of a copy: ast.walk visits both alike)."""
    copied = copy.deepcopy(tree)
    target = next(i for i, n in enumerate(ast.walk(tree)) if n is constant)
    node = next(n for i, n in enumerate(ast.walk(copied)) if i == target)
    assert isinstance(node, ast.Constant)
    node.value = float(percent) if "." in percent else int(percent)
    return ast.unparse(copied)
