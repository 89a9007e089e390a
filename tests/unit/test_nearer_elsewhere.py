"""The relevance check's two-sided test on a turn off the business (focal.enforcement.domain_fit.nearer_elsewhere and
relevance_verdict.cosine_verdict): a draft nearer the off-domain side than the business and the declines by the margin
fails; the same closeness on a turn about the business, or a decline, passes."""

from __future__ import annotations

import pytest

from focal.enforcement.domain_fit import ELSEWHERE_MARGIN, FLOOR_SHARE, nearer_elsewhere
from focal.enforcement.off_domain_bank import OFF_DOMAIN_TEXTS, elsewhere_texts
from focal.enforcement.relevance_closeness import Closeness
from focal.enforcement.relevance_verdict import cosine_verdict
from focal.enforcement.topic import UNRELATED_TEXTS
from focal.models.agent import AgentConfig

SCALE = 0.5  # the agent's own scale: the floor is FLOOR_SHARE * SCALE = 0.2
AGENT = AgentConfig(id="a", name="A")


def _closeness(fit: float, elsewhere: float, courtesy: float = 0.0, message_fit: float = 0.6,
               message_elsewhere: float = 0.1) -> Closeness:
    return Closeness(0.7, "the message", 0.7, 0.1, "trivia", fit, message_fit, SCALE, None, elsewhere,
                     message_elsewhere, courtesy)


def test_the_shipped_margin_and_floor():
    assert ELSEWHERE_MARGIN == pytest.approx(0.05) and FLOOR_SHARE == pytest.approx(0.4)


@pytest.mark.parametrize(("out_of_scope", "message_fit", "message_elsewhere", "off_turn"), [
    (True, 0.6, 0.1, True),     # the route put the turn out of scope
    (False, 0.1, 0.0, True),    # the message sits below the floor
    (False, 0.3, 0.4, True),    # the message sits nearer the off-domain side than the business
    (False, 0.6, 0.1, False),   # a turn about the business
])
def test_only_a_turn_off_the_business_is_read_two_sided(out_of_scope, message_fit, message_elsewhere, off_turn):
    assert nearer_elsewhere(0.25, 0.0, 0.45, message_fit, message_elsewhere, SCALE, out_of_scope) is off_turn


def test_the_margin_the_floor_and_the_declines_decide():
    assert nearer_elsewhere(0.25, 0.0, 0.25 + ELSEWHERE_MARGIN + 0.01, 0.1, 0.0, SCALE, True)
    assert not nearer_elsewhere(0.25, 0.0, 0.25 + ELSEWHERE_MARGIN - 0.01, 0.1, 0.0, SCALE, True)  # within the margin
    assert not nearer_elsewhere(0.05, 0.0, 0.15, 0.1, 0.0, SCALE, True)  # below the floor: close to nothing
    assert not nearer_elsewhere(0.25, 0.5, 0.4, 0.1, 0.0, SCALE, True)   # nearer a decline that steers back


def test_the_verdict_rejects_a_draft_above_the_floor_nearer_the_off_domain_side():
    rejected = cosine_verdict(AGENT, _closeness(0.25, 0.45), None, 0.3, out_of_scope=True)
    assert not rejected.passed and "nearer the off-domain side" in rejected.reason
    assert cosine_verdict(AGENT, _closeness(0.25, 0.45), None, 0.3, out_of_scope=False).passed
    assert cosine_verdict(AGENT, _closeness(0.25, 0.45, courtesy=0.5), None, 0.3, out_of_scope=True).passed


def test_the_off_domain_side_holds_the_drafts_language_and_english_with_their_pair_kinds():
    spanish = dict(elsewhere_texts("es", "intent"))
    assert all(spanish[t] == "intent_same" for t in OFF_DOMAIN_TEXTS["es"])
    assert all(spanish[t] == "intent" for t in OFF_DOMAIN_TEXTS["en"] + UNRELATED_TEXTS if t not in OFF_DOMAIN_TEXTS["es"])
    assert not set(OFF_DOMAIN_TEXTS["de"]) & set(spanish)
    assert {k for _, k in elsewhere_texts("en", "intent_same")} == {"intent_same"}
