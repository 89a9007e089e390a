"""Stage 6 — enforce: check the draft before the customer sees it, on what it commits to.

Rules to enforce = every enabled response constraint (a hard constraint that guards no tool) whose
scope is active this turn — GLOBAL, the active scenario and step, a scenario entered or left — taken
from the config, whatever retrieval scored (`enforcement/scope.py`). Action guards are checked
before their tools run (stages/tools.py), not here. No switch turns this off.

The agent's own words (a guard's template, a violated rule's own text) are said as written. Any other draft
is assessed (focal.enforcement.assess): a structured draft's commitments decide; the offline reader and the
default checks' tripwires only raise "needs verification", settled by one model call independent of the
generator, batched with the subjective rules (focal.enforcement.lanes). Whatever nobody could verify — no
model, an error, a timeout, the turn's budget spent, a verdict or a value left out — blocks (`cannot verify`),
unless a subjective rule of the agent's is marked `mark_unverified` (then the trace says UNVERIFIED).

Output checks run on every draft after the rule lanes: unbound facts and internal names always
(focal.enforcement.facts, .internals), relevance and grounding behind their flags. Each verdict goes to
`enforcement.checks` with its draft index, score and threshold; a failing check is a Violation named after
the check. On a violation: regenerate with the violations as feedback (jump back to generate) up to
`max_retries`; then, after a model's drafts, the agent's own words for the turn (the offline path's answer),
checked like any draft; then the violated rule's own text, else the agent's fallback. At once
when a violated rule fails for every value a draft could state (focal.enforcement.repair). Only a rule
violation withdraws a pending confirmation when a later draft passes.

State (focal.models.turn): reads `generate.drafts` (the latest), `route`, `sensor`, `tools.tool_calls`,
`retrieve.episodes`, `session`, `profile`; owns `enforce`. Records its verdicts and the values it read on the
latest draft, sets `response` and `execution_path`, withdraws a blocked confirmation (`route.decision`,
`session`) and jumps back to generate for a regeneration.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime
from typing import Any

from focal.dialogue.flow import hold_blocked
from focal.dialogue.offer_shown import offer_shown
from focal.enforcement.assess import Assessment, assess, settle
from focal.enforcement.conditions import rules_to_judge, still_to_judge
from focal.enforcement.deterministic import deterministic
from focal.enforcement.draft_facts import fact_problems
from focal.enforcement.draft_language import draft_language
from focal.enforcement.grounding import check_grounding
from focal.enforcement.heard_by_meaning import hear_by_meaning, hint_fields
from focal.enforcement.internals import leaked_names
from focal.enforcement.lanes import judge, judge_and_read, verify_values
from focal.enforcement.reading import apply_reading, expression_names
from focal.enforcement.recited import recited_instructions
from focal.enforcement.relevance import check_relevance
from focal.enforcement.repair import hopeless, rules_to_enforce, unraised, unrepairable
from focal.enforcement.tripwires import DEFAULT_RULES
from focal.enforcement.variables import PURPOSE as READ_PURPOSE
from focal.enforcement.variables import draft_variables, field_listing
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import OUTPUT_CHECKS, CheckVerdict, Draft, EnforcementReport, TurnState, Violation
from focal.stages.step_values import own_question_instead, step_text_instead
from focal.turn.budget import SPENT, budget_spent, start_budget
from focal.turn.deps import Deps
from focal.variables import known_variables, render, said_variables, spoken

CHECK_LANES = OUTPUT_CHECKS  # output checks: their violations name the check, not a rule


def _check(agent: AgentConfig, state: TurnState, deps: Deps, rules: list[Rule], text: str) -> list[Violation]:
    draft = state.generate.drafts[-1]
    if draft.agent_text:
        return []  # a guard's or a rule's own template: the business's words, said as written
    started = time.perf_counter()  # lane 1 timing includes reading the draft's values
    variables = known_variables(agent, state.session, state.profile)
    names = expression_names(rules)
    today = datetime.fromtimestamp(deps.clock(), UTC).date()  # "by the end of April": a range from the turn's date
    if (blocked := _blocked_whatever_it_says(agent, state, rules, names, text, dict(variables), today)) is not None:
        _lap(state.enforce.report, "deterministic", started)
        return blocked
    found = _assessed(agent, state, rules, names, variables, today=today)
    if draft.source == "model" and hint_fields(agent, names):  # "we take full responsibility": said in other words
        hear_by_meaning(agent, names, text, found, state.session.language if state.session else None, deps.embedder)
    subjective = rules_to_judge(state, [r for r in rules if r.subjective]) + found.defaults
    llm = deps.llm(agent, state)
    judging = bool(subjective) and agent.enforcement.llm_judge_enabled and llm.available("judge")
    batched, batch_s = _verify(state, llm, found, subjective, judging, text)
    checkable, unverifiable = apply_reading(agent, rules, variables, found.reading)  # uncertain values: "cannot verify"
    _keep_values(state.generate.drafts[-1], names, variables)
    violations = unverifiable + found.broken + deterministic([r for r in checkable if not r.subjective], variables)
    _lap(state.enforce.report, "deterministic", started + batch_s)
    if subjective:
        started = time.perf_counter() - batch_s
        verdicts = batched if found.verify and judging else (
            judge(llm, subjective, text, state.model_calls, state.request.message) if judging else None)
        violations += verdicts if verdicts is not None else _unjudged(agent, state.enforce.report, llm, subjective, judging, found.defaults)
        _lap(state.enforce.report, "judge", started)
    return violations


def _assessed(agent: AgentConfig, state: TurnState, rules: list[Rule], names: set[str], variables: dict[str, Any],
              draft: Draft | None = None, today: date | None = None) -> Assessment:
    """The draft (the latest by default) assessed on what it commits to (focal.enforcement.assess); `today`: the
    turn's date (None: a date named vaguely cannot be read, so it is unknown)."""
    acted = any(c.status == "ok" and (t := agent.tool(c.tool_id)) is not None and t.side_effect for c in state.tools.tool_calls)
    in_flow = state.route.decision.scenario_id is not None  # an action asked for inside a flow is that flow's to guard
    requested = agent.flow_of_intent(state.sensor.context.detected_intent if state.sensor.context else None)
    return assess(agent, rules, names, draft or state.generate.drafts[-1], variables, state.request.message,
                  acted or in_flow, requested, today)


def _own_text_problems(agent: AgentConfig, state: TurnState, rules: list[Rule], draft: Draft) -> list[str]:
    """Why the agent's own text may not replace a passed draft, read with no model call: a hard rule it breaks on
    its values, a value only a model could read (fail closed), a fact nothing supports."""
    variables = known_variables(agent, state.session, state.profile)
    found = _assessed(agent, state, rules, expression_names(rules), variables, draft)
    if found.needs_verification:
        return [f"{f.field_name} needs a model to read" for f in found.verify] + [r.id for r in found.defaults]
    checkable, unverifiable = apply_reading(agent, rules, variables, found.reading)
    broken = unverifiable + deterministic([r for r in checkable if not r.subjective], variables)
    return [v.rule_id for v in broken] + fact_problems(agent, state, draft)


def _verify(state: TurnState, llm: Any, found: Assessment, subjective: list[Rule], judging: bool,
            text: str) -> tuple[list[Violation] | None, float]:
    """The verification call: the fields the reader raised, read by a model that did not write the draft — with the
    subjective rules' verdicts in the same call when there are any. The verdicts it gave (None: not asked, or not
    batched) and how long it took; a failed call leaves the raised fields uncertain ("cannot verify")."""
    if not found.verify or not (judging or llm.available(READ_PURPOSE)):
        return None, 0.0
    started = time.perf_counter()
    message = state.request.message
    batched: list[Violation] | None = None
    if judging:
        batched, values = judge_and_read(llm, subjective, field_listing(found.verify), text, state.model_calls, message)
    else:
        values = verify_values(llm, field_listing(found.verify), text, state.model_calls, message)
    took = time.perf_counter() - started
    if values is not None:
        settle(found.reading, found.verify, values)
    return batched, took


def _unjudged(agent: AgentConfig, report: EnforcementReport, llm: Any, subjective: list[Rule], judging: bool,
              defaults: list[Rule]) -> list[Violation]:
    """Subjective rules nobody could judge: blocked, unless the agent (or the rule) marks them unverified; the
    default checks always block."""
    cfg = agent.enforcement
    marked = [r for r in subjective
              if r not in defaults and (r.unverifiable or cfg.unverifiable_subjective) == "mark_unverified"]
    report.unverified += [r.id for r in marked if r.id not in report.unverified]
    why = ("cannot verify: the judge gave no valid verdict" if judging
           else SPENT if budget_spent(llm)
           else "cannot verify: no judge model available (none configured, or a test script's verdicts ran out)")
    return [Violation(rule_id=r.id, lane="judge", reason=why) for r in subjective if r not in marked]


def _blocked_whatever_it_says(agent: AgentConfig, state: TurnState, rules: list[Rule], names: set[str], text: str,
                              variables: dict[str, Any], today: date) -> list[Violation] | None:
    """The draft's violations, read offline, when a rule no draft can satisfy blocks it: then no judge and no
    extraction call could change the verdict (enforcement/repair.py). None: check the draft as usual."""
    blocker = hopeless(agent, rules, variables)
    if blocker is None:
        return None
    reading = draft_variables(agent, text, names, None, known=variables, model_written=state.generate.drafts[-1].source == "model",
                              today=today)
    checkable, unverifiable = apply_reading(agent, rules, variables, reading)
    violations = unverifiable + deterministic([r for r in checkable if not r.subjective], variables)
    if blocker.id not in {v.rule_id for v in violations}:
        return None  # this draft's own value satisfies it after all: judged and read as any other
    _keep_values(state.generate.drafts[-1], names, variables)
    why = f"the draft is blocked by {blocker.id}, which no draft can satisfy"
    state.enforce.report.not_judged.update({r.id: why for r in rules if r.subjective})
    return violations


def _keep_values(draft: Draft, names: set[str], variables: dict[str, Any]) -> None:
    """The values the expressions read, on the draft they were read for (the trace shows them)."""
    draft.variables = {n: variables[n] for n in sorted(names) if n in variables}


def _lap(report: EnforcementReport, lane: str, started: float) -> None:
    timings = report.timings  # per lane, added up over the drafts of the turn
    timings[lane] = round(timings.get(lane, 0.0) + (time.perf_counter() - started) * 1000, 3)


def _model_folder(agent: AgentConfig, folder: str | None) -> str | None:
    if folder and agent.base_dir and not os.path.isabs(folder):
        return os.path.join(agent.base_dir, folder)
    return folder


def _internal_names(agent: AgentConfig, state: TurnState, index: int) -> list[Violation]:
    draft = state.generate.drafts[index]
    if draft.source != "model":
        return []  # the business's own texts say what they say
    started = time.perf_counter()
    leaks = leaked_names(agent, draft.text)
    recited = recited_instructions(agent, draft.text, state.request.message)
    reason = ("the answer writes the agent's internal names " + ", ".join(leaks) + "; say it in the customer's words"
              if leaks else f"the answer recites the agent's instructions (\"{recited[0]}\"…)" if recited
              else "no internal names")
    leaks += recited
    state.enforce.report.checks.append(CheckVerdict(
        name="internals", draft=index, passed=not leaks, score=float(len(leaks)), threshold=0.0, reason=reason,
        method="names", ms=round((time.perf_counter() - started) * 1000, 3)))
    return [Violation(rule_id="internals", lane="internals", reason=reason)] if leaks else []


def _language(agent: AgentConfig, state: TurnState, index: int) -> list[Violation]:
    """A model's draft in another language than the conversation's (focal.enforcement.draft_language), always."""
    draft = state.generate.drafts[index]
    if draft.source != "model":
        return []  # the agent's own texts, localized to the turn's language
    started = time.perf_counter()
    session = state.session
    said = [h.text for h in session.history if h.role == "user"] if session is not None else []
    said += [state.request.message] if said[-1:] != [state.request.message] else []
    found = draft_language(agent, draft.text, session.language if session is not None else None, said)
    state.enforce.report.checks.append(CheckVerdict(
        name="language", draft=index, passed=found.passed, score=float(not found.passed), threshold=0.0, reason=found.reason,
        method="words", ms=round((time.perf_counter() - started) * 1000, 3)))
    return [] if found.passed else [Violation(rule_id="language", lane="language", reason=found.reason)]


def _unbound(agent: AgentConfig, state: TurnState, deps: Deps, index: int) -> list[Violation]:
    """Facts nothing supports (focal.enforcement.facts), always: all kinds on a model's draft — a figure only the
    agent's texts write said for the fact they write it for (focal.enforcement.figure_context) —, links, e-mails and
    phones on every draft (a tool's text reaches the customer through the agent's templates too)."""
    draft = state.generate.drafts[index]
    started = time.perf_counter()
    problems = fact_problems(agent, state, draft, deps.embedder, deps.multilingual_embedder)
    reason = "; ".join(problems) or "every figure, id, link and phone is bound"
    state.enforce.report.checks.append(CheckVerdict(
        name="unbound", draft=index, passed=not problems, score=float(len(problems)), threshold=0.0, reason=reason,
        method="bindings", ms=round((time.perf_counter() - started) * 1000, 3)))
    return [Violation(rule_id="unbound", lane="unbound", reason=reason)] if problems else []


def _output_checks(agent: AgentConfig, state: TurnState, deps: Deps) -> list[Violation]:
    """Internal names and the draft's language (always), relevance and grounding (each behind its flag) of the latest
    draft; every verdict goes to the trace."""
    cfg = agent.enforcement
    index = len(state.generate.drafts) - 1
    draft = state.generate.drafts[index]
    violations = _internal_names(agent, state, index) + _language(agent, state, index)
    if not (cfg.relevance_check_enabled or cfg.grounding_check_enabled):
        return violations
    variables = known_variables(agent, state.session, state.profile)
    if cfg.relevance_check_enabled:
        started = time.perf_counter()
        folder = _model_folder(agent, cfg.relevance_model_dir)
        model = deps.relevance_model(folder) if folder and deps.relevance_model else None
        rel = check_relevance(agent, state, draft.text, draft.source, deps.embedder, spoken(agent, variables), model,
                              deps.multilingual_embedder)
        _lap(state.enforce.report, "relevance", started)
        state.enforce.report.checks.append(CheckVerdict(
            name="relevance", draft=index, passed=rel.passed, score=rel.score,
            threshold=rel.threshold if rel.threshold is not None else cfg.relevance_threshold,
            reason=rel.reason, method=rel.method, ms=round((time.perf_counter() - started) * 1000, 3),
        ))
        if not rel.passed:
            violations.append(Violation(rule_id="relevance", lane="relevance", reason=rel.reason))
    if cfg.grounding_check_enabled:
        started = time.perf_counter()
        folder = _model_folder(agent, cfg.grounding_model_dir)
        nli = deps.grounding_model(folder) if folder and deps.grounding_model else None
        llm = deps.llm(agent, state) if draft.source == "model" else None  # the agent's own templates need no second opinion
        ground = check_grounding(agent, state, draft.text, variables, nli, llm)
        _lap(state.enforce.report, "grounding", started)
        state.enforce.report.checks.append(CheckVerdict(
            name="grounding", draft=index, passed=ground.passed, score=ground.score, threshold=cfg.grounding_threshold,
            reason=ground.reason, method=ground.method, unsupported=[c.text for c in ground.unsupported],
            ms=round((time.perf_counter() - started) * 1000, 3),
        ))
        if not ground.passed:
            violations.append(Violation(rule_id="grounding", lane="grounding", reason=ground.reason))
    return violations


_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="focal-enforce")
    return _POOL


def _calls_may_overlap(agent: AgentConfig, state: TurnState, deps: Deps, rules: list[Rule]) -> bool:
    """Whether both the grounding judge and a rule-lane call (judge or draft reading) may be made on
    this draft; only then are the two run in parallel (otherwise a thread buys nothing)."""
    cfg = agent.enforcement
    if not (cfg.grounding_check_enabled and cfg.grounding_judge_enabled and state.generate.drafts[-1].source == "model"):
        return False
    start_budget(state, agent, deps.clock)  # the turn's deadline set before either side reads it
    llm = deps.llm(agent)  # asked without the budget: asking must not mark the turn degraded
    if not llm.available("grounding"):
        return False
    subjective = still_to_judge(state.sensor, [r for r in rules if r.subjective])
    judged = cfg.llm_judge_enabled and bool(subjective) and llm.available("judge")
    return judged or (bool(expression_names(rules)) and llm.available(READ_PURPOSE))


def _is_fallback_text(agent: AgentConfig, state: TurnState, text: str) -> bool:
    variables = said_variables(agent, state.session, state.profile)
    texts = {render(r.fallback_text, variables) for v in state.enforce.report.violations
             if (r := agent.rule(v.rule_id)) is not None and r.fallback_text and not r.response_template}
    return text in texts


def _offer_still_shown(agent: AgentConfig, state: TurnState, text: str) -> bool:
    session = state.session
    if session is None or state.route.decision.action != "confirm":
        return False
    step = agent.step(session.active_scenario_id, session.active_step_id)
    known = known_variables(agent, session, state.profile)
    return offer_shown(step, known, text, spoken(agent, known))


def _withdraw_confirmation(state: TurnState) -> None:
    """The customer never saw the offer, so there is nothing for them to confirm. The flow is not dropped: it waits
    at the step as after a guard's refusal (`flow.hold_blocked`), so a changed value offers again ("then 15 euros"
    after a blocked €30 offer), a "no" leaves, and a yes answers no open question."""
    session = state.session
    if state.route.decision.action == "confirm" and session is not None and session.flow_state == "confirming":
        state.route.decision.notes.append(
            f"confirmation of {session.active_step_id} withdrawn: the offer was blocked; the flow waits there for a changed value")
        hold_blocked(session)


def _violations(agent: AgentConfig, state: TurnState, deps: Deps, rules: list[Rule]) -> list[Violation]:
    """Every violation of the latest draft: the rule lanes, the output checks, then unbound facts."""
    draft = state.generate.drafts[-1]
    if _calls_may_overlap(agent, state, deps, rules):
        # The grounding judge and the rule lanes' call read the same draft independently: side by side.
        checks = _pool().submit(_output_checks, agent, state, deps)
        try:
            found = _check(agent, state, deps, rules, draft.text)
        finally:
            outputs = checks.result()
        found += outputs
    else:
        found = _check(agent, state, deps, rules, draft.text)
        found += _output_checks(agent, state, deps)
    return found + _unbound(agent, state, deps, len(state.generate.drafts) - 1)  # after the rule lanes: it reads their values


def _accept(agent: AgentConfig, state: TurnState, draft: Draft, rules: list[Rule]) -> TurnState:
    """A draft that passed every check is the answer."""
    report = state.enforce.report

    def problems(own: Draft) -> list[str]:
        return _own_text_problems(agent, state, rules, own)

    draft = step_text_instead(agent, state, draft, problems) or draft
    asked, offered = own_question_instead(agent, state, draft, problems)
    draft = asked or draft
    state.response = draft.text
    state.enforce.feedback = []
    if draft.agent_text and _is_fallback_text(agent, state, draft.text):
        report.fallback_used = True  # the violated rule's own fallback text is what the customer hears
        state.execution_path = "fallback"
    if not offered or (any(v.lane not in CHECK_LANES for v in report.violations)
                       and not _offer_still_shown(agent, state, draft.text)):
        # An earlier draft of this turn broke a hard constraint (or the agent's own question could not be said):
        # unless the draft said puts the same offer to the customer, the step's side effect must not run on a "yes"
        # to an offer that was blocked.
        _withdraw_confirmation(state)
    return state


def _asks(state: TurnState) -> bool:
    """The turn's own answer asks the flow's question (a confirmation or a slot)."""
    return state.route.decision.action in ("confirm", "ask_slot")


def _fall_back(agent: AgentConfig, state: TurnState, draft: Draft, variables: dict[str, Any]) -> TurnState:
    """No draft can be said: after a model's drafts the agent's own words once, else the violated rule's text or the
    fallback."""
    report = state.enforce.report
    first = next((agent.rule(v.rule_id) for v in draft.violations if agent.rule(v.rule_id) is not None), None)
    if draft.source == "model" and not report.own_words and (first is None or _asks(state) or unraised(state, draft)):
        # The model's drafts failed: the agent's own words for this turn, checked like any draft, before the generic
        # fallback — and before a violated rule's bare text when the turn has a flow's question to ask: the offline
        # path's answer (the matched rules' texts, the step's question) keeps the question the customer's yes
        # answers, as with no model; and before the texts of rules nobody could check the draft on and the message did
        # not raise (`repair.unraised`). Empty feedback: the composer says the turn's ordinary answer.
        report.own_words = True
        state.enforce.feedback = []
        state.control.next = "generate"
        return state
    first = first or next((DEFAULT_RULES.get(v.rule_id) for v in draft.violations if v.rule_id in DEFAULT_RULES), None)
    state.response = render((first.fallback_text if first else None) or agent.enforcement.fallback_message,
                            spoken(agent, variables))
    report.fallback_used = True
    state.execution_path = "fallback"
    state.enforce.feedback = []
    _withdraw_confirmation(state)
    return state


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    draft = state.generate.drafts[-1]
    report = state.enforce.report
    rules = rules_to_enforce(agent, state)
    report.checked = [rule.id for rule in rules]
    draft.violations = _violations(agent, state, deps, rules)
    if not draft.violations:
        return _accept(agent, state, draft, rules)

    report.violations += draft.violations
    variables = known_variables(agent, state.session, state.profile)
    blocker = unrepairable(agent, draft.violations, variables)
    if blocker is not None:
        report.not_regenerated = f"{blocker.id}: no draft can satisfy it (it fails for every value a draft could state)"
    elif report.regenerations < agent.enforcement.max_retries:
        report.regenerations += 1
        state.enforce.feedback = [f"{v.rule_id}: {v.reason}" for v in draft.violations]
        state.control.next = "generate"
        return state
    return _fall_back(agent, state, draft, variables)
