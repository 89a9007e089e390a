"""Variable resolution: what a turn is about to say must be known first.

The variables a turn needs — the slot the current step asks for, the placeholders of the text it is
about to say (confirmation prompt, response template) and, for matched soft rules, their
`required_variables` plus the names of their expression and template — are resolved in order:

1. the session (slots and variables) and the profile (with field defaults) — `known_variables`;
2. the customer's current message, when it holds a value for that variable or for a tool input;
3. read-only tools whose `output` provides the variable and whose required inputs are known, run
   through the tools stage's own `call_tool` path (trigger "resolve <variable>"), for at most
   `MAX_ROUNDS` rounds: one tool's output may unlock another tool's input. A side-effecting tool is
   never run to find a value (it would act, not look up), so the approval gate never comes into it;
4. else the customer is asked with the field's `prompt` (or "Could you tell me your {display_name}?"),
   for the variable itself when it may come from a message, otherwise for the missing input of a
   tool that could provide it. The ask is remembered in the session, and the next message's value
   is read into the session and the rules that waited for it are answered.

Every needed variable gets one trace note ("order_total: from tool lookup_order (round 1)",
"order_id: asked").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from focal import expressions
from focal.dialogue.decision import apply_progress
from focal.dialogue.flow import end_flow, progress
from focal.errors import ExpressionError
from focal.flow_reading import scenario_slot_names
from focal.models.agent import AgentConfig, Rule, Tool
from focal.models.engine_texts import english
from focal.models.turn import ScoredRule, ToolCall, TurnState
from focal.sensing.extraction import coerce
from focal.tool_inputs import read_variables
from focal.variables import PENDING, known_variables, placeholders, render, unknown

MAX_ROUNDS = 3
FREE_ACTIONS = ("respond", "out_of_scope", "clarify", "chitchat")  # no flow is waiting on the customer

RunTool = Callable[[str, str], ToolCall]  # (tool id, trigger) → the recorded call


@dataclass
class Outcome:
    sources: dict[str, str] = field(default_factory=dict)  # variable → where its value came from
    asked: str | None = None
    unresolved: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


# --- what a turn needs ------------------------------------------------------------------------

def _resolvable(agent: AgentConfig, name: str) -> bool:
    """A variable read only from the agent's own answer (`sources: [response]`) is checked, not resolved."""
    f = agent.field(name)
    return f is None or bool(set(f.sources) - {"response"})


def rule_variables(agent: AgentConfig, rule: Rule) -> list[str]:
    names = list(rule.required_variables)
    if rule.enforcement_expression:
        try:
            names += sorted(expressions.names(rule.enforcement_expression))
        except ExpressionError:
            pass
    names += sorted(placeholders(rule.response_template or ""))
    return [n for n in dict.fromkeys(names) if _resolvable(agent, n)]


def soft_rules(agent: AgentConfig, state: TurnState) -> list[Rule]:
    rules = [agent.rule(m.rule_id) for m in state.route.matched_rules]
    return [r for r in rules if r is not None and not r.is_hard_constraint]


def step_text_variables(agent: AgentConfig, state: TurnState) -> list[str]:
    """The placeholders of the step text the route decided to say."""
    d = state.route.decision
    step = agent.step(d.scenario_id, d.step_id)
    if step is None:
        return []
    text = step.confirmation_prompt if d.action == "confirm" else step.response_template if d.action == "complete" else ""
    return [n for n in sorted(placeholders(text or "")) if _resolvable(agent, n)]


# --- the loop ---------------------------------------------------------------------------------

def _missing(variables: dict[str, Any], name: str) -> bool:
    return variables.get(name) in (None, "")


def providers(agent: AgentConfig, name: str) -> list[Tool]:
    """Read-only tools that declare they provide `name` (never a side-effecting one)."""
    return [t for t in agent.tools if name in t.output.values() and not t.side_effect]


def _missing_inputs(tool: Tool, variables: dict[str, Any]) -> list[str]:
    """What a call still waits for; an empty string is an argument's value (an address's blank second line)."""
    return [n for n in read_variables(tool, required_only=True) if variables.get(n) is None]


def _closure(agent: AgentConfig, names: list[str], inputs: Callable[[Tool], list[str]]) -> list[str]:
    """`names` and, transitively, the `inputs` of every tool that could provide one of them."""
    out: list[str] = []
    todo = list(names)
    while todo:
        name = todo.pop(0)
        if name in out:
            continue
        out.append(name)
        for tool in providers(agent, name):
            todo += [i for i in inputs(tool) if i not in out]
    return out


def _wanted(agent: AgentConfig, names: list[str], variables: dict[str, Any]) -> list[str]:
    """The missing variables and, transitively, the missing inputs of the tools that could provide them."""
    return _closure(agent, [n for n in names if _missing(variables, n)], lambda t: _missing_inputs(t, variables))


def _inputs_closure(agent: AgentConfig, names: list[str]) -> list[str]:
    """`names` and, transitively, every input of a tool that could provide one of them."""
    return _closure(agent, names, read_variables)


def _replace_from_message(agent: AgentConfig, state: TurnState, needed: list[str], known: dict[str, Any]) -> list[str]:
    """Outside a flow, a value the message states for a needed variable or a providing tool's input that
    differs from the session's ("how much did I pay for B1002?" after B1001) replaces it, and what the
    tools read from the old one is forgotten so they run again. In a flow a changed value is the route's
    correction (CorrectSlot). Returns the replaced names."""
    session = state.session
    assert session is not None
    if session.active_scenario_id or state.sensor.context is None:
        return []
    entities = state.sensor.context.extracted_entities
    relevant = _inputs_closure(agent, needed)
    replaced = []
    for name in relevant:
        f = agent.field(name)
        if f is None or "message" not in f.sources or f.privileged or entities.get(name) in (None, "", []):
            continue
        value = coerce(f.field_type, entities[name])
        if not _missing(known, name) and known[name] != value:
            session.variables[name] = value
            replaced.append(name)
    for tool in {t.id: t for n in relevant for t in providers(agent, n)}.values():
        if set(read_variables(tool)) & set(replaced):
            for output in tool.output.values():
                if output not in replaced:
                    session.variables.pop(output, None)
    return replaced


def _origin(agent: AgentConfig, state: TurnState, name: str) -> str:
    s, p = state.session, state.profile
    if s is not None and (s.slots.get(name) not in (None, "") or s.variables.get(name) not in (None, "")):
        return "session"
    if p is not None and p.fields.get(name) is not None:
        return "profile"
    return "default"


def ask_target(agent: AgentConfig, name: str, variables: dict[str, Any], seen: set[str] | None = None) -> str | None:
    """What to ask the customer so that `name` becomes known: the variable itself when a message
    may carry it, else (depth first) a missing input of a tool that could provide it."""
    seen = seen if seen is not None else set()
    if name in seen:
        return None
    seen.add(name)
    f = agent.field(name)
    if f is not None and "message" in f.sources:
        return name
    for tool in providers(agent, name):
        for i in _missing_inputs(tool, variables):
            if (target := ask_target(agent, i, variables, seen)) is not None:
                return target
    return None


def _slot_prompt(agent: AgentConfig, name: str, variables: dict[str, Any]) -> str | None:
    """The question a step of the agent asks for the value `name`, when it can be said here (every name it reads
    known): the agent's own words, in the conversation's language when the agent translated them."""
    for scenario in agent.scenarios:
        for step in scenario.steps:
            for slot in step.slots:
                if slot.name == name and slot.prompt and not unknown(slot.prompt, variables):
                    return render(slot.prompt, variables)
    return None


def ask_prompt(agent: AgentConfig, name: str | None, variables: dict[str, Any] | None = None) -> str:
    """How to ask for `name`: the field's own prompt, else a step's question for it, else the engine's question
    around the field's display name (never the bare identifier when the agent wrote a question for it)."""
    f = agent.field(name or "")
    if f is not None and f.prompt:
        return render(f.prompt, variables or {})
    if name and (asked := _slot_prompt(agent, name, variables or {})) is not None:
        return asked
    label = (f.display_name if f and f.display_name else (name or "details").replace("_", " ")).strip()
    return english("ask_field").replace("{label}", label[:1].lower() + label[1:])


def resolve(agent: AgentConfig, state: TurnState, needed: list[str], run_tool: RunTool, may_ask: bool = True) -> Outcome:
    """Resolve `needed` in order session → profile → message → tools (≤ MAX_ROUNDS) → ask."""
    out = Outcome()
    needed = list(dict.fromkeys(needed))
    known = _from_conversation(agent, state, needed, out)
    if all(name in out.sources for name in needed):
        out.notes = [f"{n}: from {out.sources[n]}" for n in needed]
        return out
    _from_message(agent, state, needed, known, out)
    _from_tools(agent, state, needed, run_tool, out)
    _ask_for_the_rest(agent, state, needed, may_ask, out)
    return out


def _from_conversation(agent: AgentConfig, state: TurnState, needed: list[str], out: Outcome) -> dict[str, Any]:
    """The needed variables the session or profile already holds (or a changed value in the message replaced);
    returns the known variables."""
    session = state.session
    assert session is not None
    replaced = _replace_from_message(agent, state, needed, known_variables(agent, session, state.profile))
    known = known_variables(agent, session, state.profile)
    for name in replaced:
        if name in needed:
            out.sources[name] = "message"
    for name in needed:
        if name not in out.sources and not _missing(known, name):
            out.sources[name] = _origin(agent, state, name)
    return known


def _from_message(agent: AgentConfig, state: TurnState, needed: list[str], known: dict[str, Any], out: Outcome) -> None:
    """A value the customer just gave for a needed variable or a tool input, into the session."""
    session = state.session
    assert session is not None
    entities = state.sensor.context.extracted_entities if state.sensor.context else {}
    for name in _wanted(agent, needed, known):
        f = agent.field(name)
        if entities.get(name) not in (None, "", []) and (f is None or "message" in f.sources):
            session.variables[name] = coerce(f.field_type, entities[name]) if f else entities[name]
            if name in needed:
                out.sources[name] = "message"


def _runnable(agent: AgentConfig, wanted: list[str], known: dict[str, Any], ran: set[str]) -> list[tuple[Tool, str]]:
    """The providing tools not run yet whose required inputs are known, each with the variable it is run for."""
    runnable: list[tuple[Tool, str]] = []
    for name in wanted:
        for tool in providers(agent, name):
            if tool.id not in ran and tool.id not in {t.id for t, _ in runnable} and not _missing_inputs(tool, known):
                runnable.append((tool, name))
    return runnable


def _from_tools(agent: AgentConfig, state: TurnState, needed: list[str], run_tool: RunTool, out: Outcome) -> None:
    """Read-only providers, round after round (one tool's output may unlock another's input), ≤ MAX_ROUNDS."""
    ran = {c.tool_id for c in state.tools.tool_calls if c.status == "ok"}  # outputs of this turn are final
    for round_ in range(1, MAX_ROUNDS + 1):
        known = known_variables(agent, state.session, state.profile)
        runnable = _runnable(agent, _wanted(agent, needed, known), known, ran)
        if not runnable:
            break
        for tool, name in runnable:
            ran.add(tool.id)
            call = run_tool(tool.id, f"resolve {name}")
            if call.status != "ok":
                out.notes.append(f"{name}: tool {tool.id} {call.status} ({call.error})")
            for var, value in call.outputs.items():
                if var in needed and value not in (None, "") and var not in out.sources:
                    out.sources[var] = f"tool {tool.id} (round {round_})"


def _ask_for_the_rest(agent: AgentConfig, state: TurnState, needed: list[str], may_ask: bool, out: Outcome) -> None:
    """What is still missing is asked for (when the turn may ask); every needed variable gets its note."""
    known = known_variables(agent, state.session, state.profile)
    still = [n for n in needed if _missing(known, n)]
    if still and may_ask:
        out.asked = next((t for n in still if (t := ask_target(agent, n, known)) is not None), None)
    for name in needed:
        if name in out.sources:
            out.notes.append(f"{name}: from {out.sources[name]}")
        elif name == out.asked:
            out.notes.append(f"{name}: asked")
        elif name in still:
            out.unresolved.append(name)
            waiting = f" (waiting for {out.asked})" if out.asked else ""
            out.notes.append(f"{name}: unresolved{waiting}")
    if out.asked and out.asked not in needed:
        out.notes.append(f"{out.asked}: asked")


# --- the tools stage's two hooks ---------------------------------------------------------------

def _matched(state: TurnState, rule: Rule) -> None:
    if all(m.rule_id != rule.id for m in state.route.matched_rules):
        state.route.matched_rules.append(ScoredRule(rule_id=rule.id, score=1.0, scope=rule.scope.value, reason="resolution"))


def _given(state: TurnState, agent: AgentConfig, name: str) -> Any:
    f = agent.field(name)
    value = (state.sensor.context.extracted_entities if state.sensor.context else {}).get(name)
    if value in (None, "", []) and f is not None and f.field_type == "string" and not f.pattern:
        value = state.request.message.strip()  # a free-text answer is the whole message
    if value in (None, "", []):
        return None
    return coerce(f.field_type, value) if f else value


def _undo_weak_start(state: TurnState, agent: AgentConfig) -> None:
    """A bare answer ("B-123") may resemble a flow's examples; as with `_prefer_rule_answers`, only an
    unmistakable request (≥ exit_intent_threshold) starts a flow instead of answering the question."""
    session, d = state.session, state.route.decision
    assert session is not None
    start = next((c for c in state.sensor.commands if c.name == "StartFlow"), None)
    score = float(start.value) if start is not None and isinstance(start.value, int | float) else 1.0
    if start is None or not session.active_scenario_id or session.flow_stack or score >= agent.navigation.exit_intent_threshold:
        return
    for name in scenario_slot_names(agent.scenario(session.active_scenario_id)):
        session.slots.pop(name, None)
    end_flow(session)
    d.action, d.pending_tools, d.scenario_id, d.step_id, d.asked_slot = "respond", [], None, None, None
    d.notes.append(f"answered the question asked last turn rather than starting {start.flow} ({score:.2f})")


def _answer_pending(state: TurnState, agent: AgentConfig) -> None:
    """Last turn asked the customer for a variable: read it from this message, then answer the rules
    that waited for it. Anything else (another flow, no value given) drops the question."""
    session, d = state.session, state.route.decision
    assert session is not None
    pending = session.variables.pop(PENDING, None)
    if not isinstance(pending, dict):
        return
    name = str(pending.get("variable"))
    value = _given(state, agent, name)
    if value is None:
        d.notes.append(f"{name}: asked, but the message gave no value")
        return
    _undo_weak_start(state, agent)
    if d.action not in FREE_ACTIONS or session.active_scenario_id:
        return
    session.variables[name] = value
    d.notes.append(f"{name}: from message (asked last turn)")
    rules = [r for rid in pending.get("rules", []) if (r := agent.rule(str(rid))) is not None and r.enabled]
    for rule in rules:
        _matched(state, rule)
    if rules:
        d.action = "respond"


def before_actions(state: TurnState, agent: AgentConfig, run_tool: RunTool) -> None:
    """Before the step's actions: an answer to last turn's question, and a slot the step is about
    to ask for that a read-only tool can provide (then the flow moves on)."""
    session, d = state.session, state.route.decision
    assert session is not None
    if PENDING in session.variables:
        _answer_pending(state, agent)
    if d.action != "ask_slot" or not d.asked_slot or not session.active_scenario_id:
        return
    slot = d.asked_slot
    if not any(providers(agent, slot)):
        d.notes.append(f"{slot}: asked")  # no tool provides it: the step's own prompt asks
        return
    outcome = resolve(agent, state, [slot], run_tool, may_ask=False)
    d.notes.extend(outcome.notes)
    if slot in outcome.sources:
        d.action, d.asked_slot = "respond", None
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    else:
        d.notes.append(f"{slot}: asked")


def after_actions(state: TurnState, agent: AgentConfig, run_tool: RunTool) -> None:
    """Before composing: what the answer will say — the step's text and the matched soft rules."""
    session, d = state.session, state.route.decision
    assert session is not None
    if d.action not in FREE_ACTIONS + ("confirm", "complete"):
        return
    per_rule = {r.id: rule_variables(agent, r) for r in soft_rules(agent, state)}
    needed = step_text_variables(agent, state) + [n for names in per_rule.values() for n in names]
    if not needed:
        return
    free = d.action in FREE_ACTIONS and not session.active_scenario_id  # a flow is not waiting on the customer
    outcome = resolve(agent, state, needed, run_tool, may_ask=free)
    d.notes.extend(outcome.notes)
    if outcome.asked:
        waiting = [rid for rid, names in per_rule.items() if set(names) & (set(outcome.unresolved) | {outcome.asked})]
        session.variables[PENDING] = {"variable": outcome.asked, "rules": waiting}
        d.action, d.asked_slot, d.scenario_id, d.step_id = "ask_slot", outcome.asked, None, None
