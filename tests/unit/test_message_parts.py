"""A message of several concerns is searched part by part (focal.retrieval.message_parts): which pieces count as
parts, and how a part's best rule joins the whole message's hits."""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.retrieval.matching import ALWAYS_INCLUDED, RuleHit
from focal.retrieval.message_parts import MAX_PARTS, PART_ABOVE_THRESHOLD, merge_parts, message_parts


def agent() -> AgentConfig:
    return AgentConfig.model_validate({"id": "parts", "name": "Parts"})  # retrieval defaults: threshold, margin


def test_parts_are_split_at_sentence_ends_semicolons_and_commas():
    assert message_parts("Can I return worn shoes, and when do you close on Fridays?") == [
        "Can I return worn shoes", "and when do you close on Fridays?"]
    assert message_parts("Do you take cards? My parcel never came either.") == [
        "Do you take cards?", "My parcel never came either."]
    assert message_parts("¿Aceptan tarjetas de crédito? Mi paquete tampoco ha llegado todavía.") == [
        "¿Aceptan tarjetas de crédito?", "Mi paquete tampoco ha llegado todavía."]


def test_pieces_too_short_to_carry_a_topic_are_not_parts():
    assert message_parts("yes, A1003") == []
    assert message_parts("hi, quick question about my account balance today") == []  # one part left: no split
    assert message_parts("What is the return window for shoes?") == []


def test_a_long_message_is_searched_a_bounded_number_of_times():
    message = ", ".join(f"this is part number {n} here" for n in range(10))
    assert len(message_parts(message)) == MAX_PARTS


def hit(rule_id: str, score: float, best: float, reason: str = "similarity", flow: float | None = None) -> RuleHit:
    return RuleHit(rule_id, score, reason, "some_flow" if flow is not None else None, flow, best_score=best)


def test_a_parts_best_rule_stands_in_for_the_whole_messages_hit_it_fails_in():
    a = agent()
    margin = a.retrieval.rule_match_margin
    whole = [hit("hours", 0.50, 0.50), hit("returns", 0.50 - margin - 0.1, 0.50)]  # returns: cut by the margin
    merged = {h.rule_id: h for h in merge_parts(a, whole, [[hit("returns", 0.45, 0.45), hit("hours", 0.2, 0.45)]])}
    assert merged["returns"].score == 0.45 and merged["returns"].best_score == 0.45
    assert merged["hours"].score == 0.50  # passing in the whole message: kept as it was


def test_only_a_parts_best_rule_is_added_and_never_an_always_included_one():
    a = agent()
    whole = [hit("hours", 0.5, 0.5)]
    part = [hit("returns", 0.45, 0.45), hit("shipping", 0.40, 0.45), hit("no_cards", 0.9, 0.45, ALWAYS_INCLUDED)]
    assert {h.rule_id for h in merge_parts(a, whole, [part])} == {"hours", "returns"}


def test_a_part_where_the_rule_does_no_better_changes_nothing():
    a = agent()
    whole = [hit("hours", 0.5, 0.5), hit("returns", 0.2, 0.5)]
    merged = {h.rule_id: h for h in merge_parts(a, whole, [[hit("returns", 0.1, 0.1)]])}
    assert merged["returns"].score == 0.2  # below the threshold in both; the whole message's hit stays


def test_a_part_adds_its_rule_only_when_it_states_it_clearly():
    a = agent()
    floor = a.retrieval.rule_match_threshold + PART_ABOVE_THRESHOLD
    whole = [hit("address_flow_rule", 0.5, 0.5)]
    assert {h.rule_id for h in merge_parts(a, whole, [[hit("damaged", floor - 0.03, floor - 0.03)]])} == {"address_flow_rule"}
    assert "damaged" in {h.rule_id for h in merge_parts(a, whole, [[hit("damaged", floor + 0.01, floor + 0.01)]])}
