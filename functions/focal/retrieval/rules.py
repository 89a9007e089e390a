"""Keeping the rule index in step with the agent config, and the scope a turn may see."""

from __future__ import annotations

import hashlib

from focal.config.validate import resolve_step_scope
from focal.models.agent import AgentConfig, Rule, Scope
from focal.models.session import Session
from focal.pipeline.deps import Deps
from focal.ports import IndexedRule, ScopeFilter


def indexed_scope_id(agent: AgentConfig, rule: Rule) -> str | None:
    """STEP rules are indexed as 'scenario_id.step_id' so a bare step id cannot match another scenario."""
    if rule.scope == Scope.STEP and rule.scope_id:
        found = resolve_step_scope(agent, rule.scope_id)
        return f"{found[0][0]}.{found[0][1]}" if len(found) == 1 else rule.scope_id
    return rule.scope_id


def rules_digest(agent: AgentConfig) -> str:
    parts = [f"{r.id}\x1e{r.scope.value}\x1e{r.scope_id}\x1e{r.enabled}\x1e{r.condition_text}" for r in agent.rules]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


def ensure_indexed(deps: Deps, tenant_id: str, agent: AgentConfig) -> None:
    """Embed and upsert the agent's enabled rules when they changed since the last upsert."""
    key = (tenant_id, agent.id)
    digest = rules_digest(agent)
    if deps.indexed.get(key) == digest:
        return
    rules = [r for r in agent.rules if r.enabled]
    rows = [IndexedRule(r.id, r.scope.value, indexed_scope_id(agent, r), r.condition_text) for r in rules]
    vectors = deps.embedder.embed([r.condition_text for r in rules])
    deps.rule_index.upsert(tenant_id, agent.id, rows, vectors)
    deps.indexed[key] = digest


def turn_scope(tenant_id: str, agent: AgentConfig, session: Session, entering: list[str]) -> ScopeFilter:
    """GLOBAL + the active scenario and step, plus any scenario the message is entering (its entry step)."""
    scenarios, steps = [], []
    if session.active_scenario_id:
        scenarios.append(session.active_scenario_id)
        if session.active_step_id:
            steps.append(f"{session.active_scenario_id}.{session.active_step_id}")
    for scenario_id in entering:
        scenario = agent.scenario(scenario_id)
        if scenario and scenario_id not in scenarios:
            scenarios.append(scenario_id)
            steps.append(f"{scenario_id}.{scenario.entry_step_id}")
    return ScopeFilter(tenant_id, agent.id, "|".join(scenarios) or None, "|".join(steps) or None)
