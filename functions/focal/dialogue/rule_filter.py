"""Which retrieved candidates truly apply.

1. calibrated similarity (focal.retrieval.matching): at least the rule's threshold (`rule_match_threshold`, lower
   for a rule nothing else comes near), clear of the message's crowd (the rules it comes near alike), within the
   margin (`rule_match_margin`, or a share of a high best score: focal.dialogue.match_bounds) of the best rule of
   its search (the whole message's, or one part's when the message carries several concerns,
   focal.retrieval.message_parts), and not beaten by more than the margin by another flow's entry example (the
   message asks for that flow, not what the rule answers) nor, for a soft rule, by the value the message gives the
   variable asked last turn (the message is that answer, focal.retrieval.slot_answer); then `enabled`,
   fire limits and cooldowns — counted in the session, decided in code: a model never decides how
   often a rule has fired;
2. optionally one batched model call that judges which soft candidates truly apply (`applies`);
3. relationships, off unless used and deterministic: `entails_rule_ids` pulls rules in (bounded
   depth), then `excludes_rule_ids` drops lower-priority conflicts, in priority order.

Every rule that is in or out for a reason other than similarity says why in the notes, and a
pulled-in rule carries its cause ("entailed by refund_cap") as its reason.
"""

from __future__ import annotations

from collections.abc import Callable

from focal.dialogue.match_bounds import best_margin, crowd_floor, rule_threshold
from focal.models.agent import AgentConfig
from focal.models.session import Session
from focal.models.turn import ScoredRule

Applies = Callable[[list[ScoredRule]], set[str] | None]


def may_fire(rule_id: str, agent: AgentConfig, session: Session) -> str | None:
    """None if the rule may fire this turn, else why not. Fire limits and cooldowns bind soft rules
    only: a hard constraint is enforced by its scope, whatever it fired before (stages/enforce.py)."""
    rule = agent.rule(rule_id)
    if rule is None or not rule.enabled:
        return "disabled"
    if rule.is_hard_constraint:
        return None
    fired = session.rule_fire_counts.get(rule_id, 0)
    if rule.max_fires_per_session and fired >= rule.max_fires_per_session:
        return f"fired {fired} of {rule.max_fires_per_session} times"
    last = session.rule_last_fired_turn.get(rule_id)
    # cooldown_turns = N: after firing, the rule stays quiet for the next N turns.
    if rule.cooldown_turns and last is not None and session.turn_count - last <= rule.cooldown_turns:
        return f"cooling down ({session.turn_count - last} of {rule.cooldown_turns} turns)"
    return None


def _entailed(agent: AgentConfig, session: Session, matched: list[ScoredRule], notes: list[str]) -> list[ScoredRule]:
    """Breadth-first over `entails_rule_ids`, at most `max_expansion_depth` hops, each rule once."""
    seen = {m.rule_id for m in matched}
    frontier, added = list(matched), []
    for _ in range(agent.retrieval.max_expansion_depth):
        nxt = []
        for parent in frontier:
            for child_id in agent.rule(parent.rule_id).entails_rule_ids:  # type: ignore[union-attr]
                if child_id in seen:
                    continue
                seen.add(child_id)
                why = may_fire(child_id, agent, session)
                if why:
                    notes.append(f"rule {child_id} entailed by {parent.rule_id} but skipped: {why}")
                    continue
                child = agent.rule(child_id)
                assert child is not None
                hit = ScoredRule(rule_id=child_id, score=parent.score, scope=child.scope.value,
                                 reason=f"entailed by {parent.rule_id}")
                notes.append(f"rule {child_id} {hit.reason}")
                nxt.append(hit)
        added += nxt
        frontier = nxt
        if not frontier:
            break
    return added


def _without_conflicts(agent: AgentConfig, ranked: list[ScoredRule], notes: list[str]) -> list[ScoredRule]:
    """In priority order: a kept rule's `excludes_rule_ids` drop later (lower or equal priority) soft
    rules; a hard constraint is never excluded."""
    kept: list[ScoredRule] = []
    excluded_by: dict[str, str] = {}
    for cand in ranked:
        if cand.rule_id in excluded_by and not agent.rule(cand.rule_id).is_hard_constraint:  # type: ignore[union-attr]
            notes.append(f"rule {cand.rule_id} excluded by {excluded_by[cand.rule_id]} (higher priority)")
            continue
        kept.append(cand)
        for other in agent.rule(cand.rule_id).excludes_rule_ids:  # type: ignore[union-attr]
            excluded_by.setdefault(other, cand.rule_id)
    return kept


def below(agent: AgentConfig, candidates: list[ScoredRule], cand: ScoredRule, flows_compete: bool = True) -> str | None:
    """None if the candidate's similarity lets it match; else why not ('' below the threshold: no note).
    `flows_compete` False: the message only asks how things are (focal.dialogue.rule_answers), which no flow
    answers, so a flow's resemblance is no reason to set the rule aside."""
    cfg = agent.retrieval
    if cand.score < rule_threshold(agent, cand.nearest_other):
        return ""
    if (floor := crowd_floor(cand.crowd_score)) is not None and cand.score < floor:
        return f"{cand.score:.2f} does not stand out of the rules the message comes near alike ({cand.crowd_score:.2f})"
    if cand.best_score is not None:  # measured against the best rule of its own search (focal.retrieval.message_parts)
        # not below a best rule whose every example the agent wrote as this one's too (focal.retrieval.rule_overlap)
        if not cand.overlaps_best and cand.score < cand.best_score - (margin := best_margin(agent, cand.best_score)):
            return f"{cand.score:.2f} is more than {margin:.2f} below the best rule for that part of the " \
                   f"message ({cand.best_score:.2f})"
    elif cand.score < (best := max(candidates, key=lambda c: c.score)).score - (margin := best_margin(agent, best.score)):
        return f"{cand.score:.2f} is more than {margin:.2f} below rule {best.rule_id} ({best.score:.2f})"
    if flows_compete and cand.flow_score is not None and cand.score < cand.flow_score - cfg.rule_match_margin:
        return f"the message fits flow {cand.flow_id} better ({cand.flow_score:.2f} vs {cand.score:.2f})"
    if cand.answer_score is not None and cand.score < cand.answer_score - cfg.rule_match_margin \
            and (rule := agent.rule(cand.rule_id)) is not None and not rule.is_hard_constraint:
        return f"the message answers the question asked ({cand.answer_slot}: {cand.answer_score:.2f} vs {cand.score:.2f})"
    return None


def filter_rules(
    agent: AgentConfig, session: Session, candidates: list[ScoredRule], notes: list[str], applies: Applies | None = None,
    flows_compete: bool = True,
) -> list[ScoredRule]:
    matched: list[ScoredRule] = []
    for cand in candidates:
        if (why := below(agent, candidates, cand, flows_compete)) is not None:
            if why:
                notes.append(f"rule {cand.rule_id} not matched: {why}")
            continue
        why = may_fire(cand.rule_id, agent, session)
        if why:
            notes.append(f"rule {cand.rule_id} skipped: {why}")
            continue
        matched.append(cand)
    soft = [m for m in matched if not agent.rule(m.rule_id).is_hard_constraint]  # type: ignore[union-attr]
    verdict = applies(soft) if applies and soft else None
    if verdict is not None:
        for m in soft:
            if m.rule_id not in verdict:
                notes.append(f"rule {m.rule_id} judged not to apply by the model")
        matched = [m for m in matched if m not in soft or m.rule_id in verdict]
    matched += _entailed(agent, session, matched, notes)
    matched.sort(key=lambda c: (-agent.rule(c.rule_id).priority, -c.score))  # type: ignore[union-attr]
    return _without_conflicts(agent, matched, notes)


def record_fires(session: Session, matched: list[ScoredRule]) -> None:
    for cand in matched:
        session.rule_fire_counts[cand.rule_id] = session.rule_fire_counts.get(cand.rule_id, 0) + 1
        session.rule_last_fired_turn[cand.rule_id] = session.turn_count
