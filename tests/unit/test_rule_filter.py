"""The rule filter: threshold, fire limits and cooldowns counted in the session, the optional model
verdict, and relationships (entailment bounded in depth, exclusions in priority order), each
decision with its cause in the notes."""

from __future__ import annotations

from focal.dialogue.match_bounds import CROWD_FROM, CROWD_GAP, best_margin, crowd_of
from focal.dialogue.rule_filter import filter_rules, record_fires
from focal.models.agent import AgentConfig, RetrievalConfig, Rule
from focal.models.session import Session
from focal.models.turn import ScoredRule


def agent(*rules: Rule, depth: int = 2) -> AgentConfig:
    return AgentConfig(id="a", name="A", rules=list(rules), retrieval=RetrievalConfig(max_expansion_depth=depth))


def rule(rule_id: str, **kw) -> Rule:
    return Rule(id=rule_id, condition_text=f"c {rule_id}", action_text=f"a {rule_id}", **kw)


def cand(rule_id: str, score: float = 0.8) -> ScoredRule:
    return ScoredRule(rule_id=rule_id, score=score, scope="GLOBAL")


def session() -> Session:
    return Session(tenant_id="t", agent_id="a", session_id="s", customer_id="c")


def ids(matched: list[ScoredRule]) -> list[str]:
    return [m.rule_id for m in matched]


def test_threshold_and_priority_order():
    a = agent(rule("low", priority=1), rule("high", priority=9), rule("weak"))
    notes: list[str] = []
    threshold = a.retrieval.rule_match_threshold
    matched = filter_rules(a, session(), [cand("low", threshold + 0.08), cand("high", threshold + 0.02),
                                          cand("weak", threshold - 0.01)], notes)
    assert ids(matched) == ["high", "low"]


def test_a_rule_far_below_the_turns_best_rule_does_not_match():
    a = agent(rule("best"), rule("near"), rule("far"))
    notes: list[str] = []
    margin = best_margin(a, 0.7)  # the agent's margin, or a share of the best score when larger
    matched = filter_rules(a, session(), [cand("best", 0.7), cand("near", 0.7 - margin + 0.01),
                                          cand("far", 0.7 - margin - 0.05)], notes)
    assert ids(matched) == ["best", "near"]
    assert any(n.startswith("rule far not matched:") and "below rule best" in n for n in notes)


def test_a_rule_must_stand_out_of_the_rules_the_message_comes_near_alike():
    a = agent(rule("voiced"), rule("crowded"))
    crowd = a.retrieval.rule_match_threshold + 0.05  # a message on the agent's subject, near many of its rules
    notes: list[str] = []
    voiced = ScoredRule(rule_id="voiced", score=crowd + CROWD_GAP + 0.01, scope="GLOBAL", crowd_score=crowd)
    crowded = ScoredRule(rule_id="crowded", score=crowd + CROWD_GAP - 0.01, scope="GLOBAL", crowd_score=crowd)
    assert ids(filter_rules(a, session(), [voiced, crowded], notes)) == ["voiced"]
    assert any(n.startswith("rule crowded not matched:") and "does not stand out" in n for n in notes)
    alone = crowded.model_copy(update={"crowd_score": None})  # a search with too few rules has no crowd
    assert ids(filter_rules(a, session(), [alone], [])) == ["crowded"]


def test_the_crowd_is_the_mean_of_the_rules_after_the_best_few():
    best = [0.9, 0.8, 0.7, 0.6, 0.5][:CROWD_FROM]
    assert crowd_of(best) is None
    assert crowd_of([*best, 0.3, 0.1]) == 0.2


def test_a_message_that_asks_for_another_flow_matches_no_rule_of_that_topic():
    a = agent(rule("dispute_time"))
    notes: list[str] = []
    asked = ScoredRule(rule_id="dispute_time", score=0.49, scope="GLOBAL", flow_id="dispute", flow_score=0.9)
    assert filter_rules(a, session(), [asked], notes) == []
    assert "rule dispute_time not matched: the message fits flow dispute better (0.90 vs 0.49)" in notes
    close = ScoredRule(rule_id="dispute_time", score=0.85, scope="GLOBAL", flow_id="dispute", flow_score=0.9)
    assert ids(filter_rules(a, session(), [close], [])) == ["dispute_time"]  # within the margin: both may apply


def test_entailment_pulls_rules_in_with_their_cause_and_stops_at_the_depth():
    a = agent(rule("r1", entails_rule_ids=["r2"]), rule("r2", entails_rule_ids=["r3"]),
              rule("r3", entails_rule_ids=["r4"]), rule("r4"), depth=2)
    notes: list[str] = []
    matched = filter_rules(a, session(), [cand("r1", 0.7)], notes)
    assert ids(matched) == ["r1", "r2", "r3"]  # r4 is three hops away
    reasons = {m.rule_id: m.reason for m in matched}
    assert reasons == {"r1": "similarity", "r2": "entailed by r1", "r3": "entailed by r2"}
    assert "rule r2 entailed by r1" in notes and all(m.score == 0.7 for m in matched)


def test_entailment_cycles_terminate_and_disabled_rules_are_not_pulled_in():
    a = agent(rule("a", entails_rule_ids=["b", "off"]), rule("b", entails_rule_ids=["a"]), rule("off", enabled=False))
    notes: list[str] = []
    assert ids(filter_rules(a, session(), [cand("a")], notes)) == ["a", "b"]
    assert "rule off entailed by a but skipped: disabled" in notes


def test_depth_zero_turns_entailment_off():
    a = agent(rule("r1", entails_rule_ids=["r2"]), rule("r2"), depth=0)
    assert ids(filter_rules(a, session(), [cand("r1")], [])) == ["r1"]


def test_an_exclusion_drops_only_lower_priority_rules_and_says_by_whom():
    a = agent(rule("top", priority=10, excludes_rule_ids=["mid"]), rule("mid", priority=5),
              rule("low", priority=1, excludes_rule_ids=["top"]))
    notes: list[str] = []
    matched = filter_rules(a, session(), [cand("top"), cand("mid"), cand("low")], notes)
    assert ids(matched) == ["top", "low"]  # low cannot exclude the higher-priority top
    assert "rule mid excluded by top (higher priority)" in notes


def test_fire_limit_is_counted_in_the_session():
    a = agent(rule("once", max_fires_per_session=1))
    s = session()
    first = filter_rules(a, s, [cand("once")], [])
    record_fires(s, first)
    s.turn_count += 1
    notes: list[str] = []
    assert filter_rules(a, s, [cand("once")], notes) == []
    assert "rule once skipped: fired 1 of 1 times" in notes


def test_cooldown_keeps_a_rule_quiet_for_the_next_n_turns():
    a = agent(rule("cool", cooldown_turns=2))
    s = session()
    fired_at = []
    for turn in range(6):
        s.turn_count = turn
        matched = filter_rules(a, s, [cand("cool")], [])
        record_fires(s, matched)
        if matched:
            fired_at.append(turn)
    assert fired_at == [0, 3]


def test_the_model_verdict_removes_soft_rules_only():
    a = agent(rule("soft1"), rule("soft2"), rule("hard", is_hard_constraint=True))
    seen: list[list[str]] = []

    def applies(soft: list[ScoredRule]) -> set[str]:
        seen.append(ids(soft))
        return {"soft2"}

    notes: list[str] = []
    matched = filter_rules(a, session(), [cand("soft1"), cand("soft2"), cand("hard")], notes, applies)
    assert seen == [["soft1", "soft2"]]  # one batched call, hard constraints never judged
    assert sorted(ids(matched)) == ["hard", "soft2"]
    assert "rule soft1 judged not to apply by the model" in notes


def test_an_unusable_model_verdict_keeps_every_candidate():
    a = agent(rule("x"), rule("y"))
    assert sorted(ids(filter_rules(a, session(), [cand("x"), cand("y")], [], lambda soft: None))) == ["x", "y"]
