"""Stage 6 — enforce: check the draft before the customer sees it.

Rules to enforce = matched hard constraints ∪ every GLOBAL hard constraint (from the config, not the
index, so an off-topic turn is still checked). On a violation: regenerate with the violations as
feedback (jump back to generate) up to `max_retries`, then the rule's or agent's fallback text.

Output checks (`enforcement.relevance_check_enabled`, `grounding_check_enabled`; see
focal.enforcement.relevance and .grounding) run on every draft after the rule lanes. Each verdict,
passed or not, goes to `enforcement.checks` with its draft index, score and threshold; a failing
check is a Violation named after the check (lane relevance / grounding) and takes the same
regenerate → fallback repair. Only a rule violation withdraws a pending confirmation when a later
draft passes: a draft repaired for relevance or grounding still makes the step's offer.
"""

from __future__ import annotations

import os
import time

from focal.dialogue.flow import end_flow
from focal.dialogue.variables import known_variables, render
from focal.enforcement.grounding import check_grounding
from focal.enforcement.lanes import deterministic, judge
from focal.enforcement.relevance import check_relevance
from focal.enforcement.variables import draft_variables, expression_names
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import CheckVerdict, TurnState, Violation
from focal.pipeline.deps import Deps

CHECK_LANES = ("relevance", "grounding")  # output checks: their violations name the check, not a rule


def rules_to_enforce(agent: AgentConfig, state: TurnState) -> list[Rule]:
    rules = [r for m in state.matched_rules if (r := agent.rule(m.rule_id)) and r.is_hard_constraint and r.enabled]
    if agent.enforcement.always_enforce_global:
        rules += [r for r in agent.global_hard_constraints() if r not in rules]
    return rules


def _check(agent: AgentConfig, state: TurnState, deps: Deps, rules: list[Rule], text: str) -> list[Violation]:
    cfg = agent.enforcement
    started = time.perf_counter()  # lane 1 timing includes reading the draft's values
    variables = known_variables(agent, state.session, state.profile)
    llm = deps.llm(agent)
    variables.update(draft_variables(agent, text, expression_names(rules), llm, state.model_calls))
    draft = state.drafts[-1]
    draft.variables = {n: variables[n] for n in sorted(expression_names(rules)) if n in variables}
    violations = deterministic([r for r in rules if not r.subjective], variables) if cfg.deterministic_enabled else []
    _lap(state, "deterministic", started)
    subjective = [r for r in rules if r.subjective]
    if subjective and cfg.llm_judge_enabled:
        started = time.perf_counter()
        llm = deps.llm(agent)
        verdicts = judge(llm, subjective, text, state.model_calls) if llm.available("judge") else None
        if verdicts is not None:
            violations += verdicts
        elif cfg.unverifiable_subjective == "fail_closed":
            violations += [Violation(rule_id=r.id, lane="judge", reason="cannot verify: no judge model") for r in subjective]
        else:
            state.enforcement.unverified += [r.id for r in subjective if r.id not in state.enforcement.unverified]
        _lap(state, "judge", started)
    return violations


def _lap(state: TurnState, lane: str, started: float) -> None:
    timings = state.enforcement.timings  # per lane, added up over the drafts of the turn
    timings[lane] = round(timings.get(lane, 0.0) + (time.perf_counter() - started) * 1000, 3)


def _model_folder(agent: AgentConfig, folder: str | None) -> str | None:
    if folder and agent.base_dir and not os.path.isabs(folder):
        return os.path.join(agent.base_dir, folder)
    return folder


def _output_checks(agent: AgentConfig, state: TurnState, deps: Deps) -> list[Violation]:
    """Relevance and grounding of the latest draft, each behind its flag; every verdict goes to the trace."""
    cfg = agent.enforcement
    if not (cfg.relevance_check_enabled or cfg.grounding_check_enabled):
        return []
    index = len(state.drafts) - 1
    draft = state.drafts[index]
    variables = known_variables(agent, state.session, state.profile)
    violations: list[Violation] = []
    if cfg.relevance_check_enabled:
        started = time.perf_counter()
        folder = _model_folder(agent, cfg.relevance_model_dir)
        model = deps.relevance_model(folder) if folder and deps.relevance_model else None
        rel = check_relevance(agent, state, draft.text, draft.source, deps.embedder, variables, model)
        _lap(state, "relevance", started)
        state.enforcement.checks.append(CheckVerdict(
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
        llm = deps.llm(agent) if draft.source == "model" else None  # the agent's own templates need no second opinion
        ground = check_grounding(agent, state, draft.text, variables, nli, llm)
        _lap(state, "grounding", started)
        state.enforcement.checks.append(CheckVerdict(
            name="grounding", draft=index, passed=ground.passed, score=ground.score, threshold=cfg.grounding_threshold,
            reason=ground.reason, method=ground.method, unsupported=[c.text for c in ground.unsupported],
            ms=round((time.perf_counter() - started) * 1000, 3),
        ))
        if not ground.passed:
            violations.append(Violation(rule_id="grounding", lane="grounding", reason=ground.reason))
    return violations


def _withdraw_confirmation(state: TurnState) -> None:
    """The customer never saw the offer, so there is nothing for them to confirm."""
    if state.decision.action == "confirm" and state.session is not None and state.session.flow_state == "confirming":
        state.decision.notes.append(f"confirmation of {state.session.active_step_id} withdrawn: the offer was blocked")
        state.decision.completed_scenario_id = state.session.active_scenario_id
        end_flow(state.session)


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    draft = state.drafts[-1]
    report = state.enforcement
    if not (agent.features.enabled and agent.enforcement.enabled):
        state.response = draft.text
        return state

    rules = rules_to_enforce(agent, state)
    report.checked = [rule.id for rule in rules]
    draft.violations = _check(agent, state, deps, rules, draft.text)
    draft.violations += _output_checks(agent, state, deps)
    if not draft.violations:
        state.response = draft.text
        state.feedback = []
        if any(v.lane not in CHECK_LANES for v in report.violations):
            # An earlier draft of this turn broke a hard constraint: whatever the compliant draft
            # says, the step's side effect must not run on a "yes" to an offer that was blocked.
            _withdraw_confirmation(state)
        return state

    report.violations += draft.violations
    if report.regenerations < agent.enforcement.max_retries:
        report.regenerations += 1
        state.feedback = [f"{v.rule_id}: {v.reason}" for v in draft.violations]
        state.control.next = "generate"
        return state

    variables = known_variables(agent, state.session, state.profile)
    first = next((agent.rule(v.rule_id) for v in draft.violations if v.lane not in CHECK_LANES), None)
    state.response = render((first.fallback_text if first else None) or agent.enforcement.fallback_message, variables)
    report.fallback_used = True
    state.execution_path = "fallback"
    state.feedback = []
    _withdraw_confirmation(state)
    return state
