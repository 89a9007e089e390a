"""Which retrieved candidates truly apply: threshold, enabled, fire limits, priority, exclusions.

Counted in the session, decided in code: a model never decides how often a rule has fired.
"""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.models.session import Session
from focal.models.turn import ScoredRule


def may_fire(rule_id: str, agent: AgentConfig, session: Session) -> str | None:
    """None if the rule may fire this turn, else why not."""
    rule = agent.rule(rule_id)
    if rule is None or not rule.enabled:
        return "disabled"
    fired = session.rule_fire_counts.get(rule_id, 0)
    if rule.max_fires_per_session and fired >= rule.max_fires_per_session:
        return f"fired {fired} of {rule.max_fires_per_session} times"
    last = session.rule_last_fired_turn.get(rule_id)
    if rule.cooldown_turns and last is not None and session.turn_count - last < rule.cooldown_turns:
        return f"cooling down ({session.turn_count - last} of {rule.cooldown_turns} turns)"
    return None


def filter_rules(agent: AgentConfig, session: Session, candidates: list[ScoredRule], notes: list[str]) -> list[ScoredRule]:
    threshold = agent.retrieval.rule_match_threshold
    kept: list[ScoredRule] = []
    for cand in candidates:
        if cand.score < threshold:
            continue
        why = may_fire(cand.rule_id, agent, session)
        if why:
            notes.append(f"rule {cand.rule_id} skipped: {why}")
            continue
        kept.append(cand)
    kept.sort(key=lambda c: (-agent.rule(c.rule_id).priority, -c.score))  # type: ignore[union-attr]
    excluded: set[str] = set()
    for cand in kept:
        if cand.rule_id in excluded:
            continue
        for other in agent.rule(cand.rule_id).excludes_rule_ids:  # type: ignore[union-attr]
            excluded.add(other)
    for rule_id in sorted(excluded & {c.rule_id for c in kept}):
        notes.append(f"rule {rule_id} excluded by a higher-priority rule")
    return [c for c in kept if c.rule_id not in excluded]


def record_fires(session: Session, matched: list[ScoredRule]) -> None:
    for cand in matched:
        session.rule_fire_counts[cand.rule_id] = session.rule_fire_counts.get(cand.rule_id, 0) + 1
        session.rule_last_fired_turn[cand.rule_id] = session.turn_count
