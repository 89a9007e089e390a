"""Values an attacker (or an honest customer) writes in another form than the field's (session 13's attacks I01, K09,
K11): a field pattern's match in the case the pattern spells wins over a case-folded one, an id typed in full-width
digits is the same id, and only a value in a field's own form answers "do you mean …?" for a flow."""

from __future__ import annotations

from pathlib import Path

from focal.config.loader import load_agent
from focal.models.agent import ProfileFieldDefinition
from focal.models.session import Offer, Session
from focal.sensing.extraction import extract
from focal.sensing.offers import picked_by_value

IBAN = ProfileFieldDefinition(field_name="iban", field_type="id",
                              pattern=r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")
REF = ProfileFieldDefinition(field_name="booking_ref", field_type="id", pattern=r"\b[Rr][Kk]\d{6}\b")
CARRENTAL = Path(__file__).resolve().parents[1] / "data" / "newcomer_carrental" / "agent.yaml"


def test_a_match_as_the_pattern_spells_it_comes_before_a_case_folded_one():
    said = "The account is for policy HH309911 actually, IBAN DE89370400440532013000"
    assert extract(IBAN, said) == "DE89370400440532013000"


def test_an_id_typed_in_lower_case_is_still_read():
    assert extract(IBAN, "my iban is de89 3704 0044 0532 0130 00") == "DE89 3704 0044 0532 0130 00"
    assert extract(REF, "rk204518 please") == "RK204518"


def test_an_id_in_full_width_digits_is_the_same_id():
    assert extract(REF, "RK２０４５１８") == "RK204518"


def _session(agent) -> Session:
    return Session(session_id="s", tenant_id="t", agent_id=agent.id, customer_id="c")


def _offer() -> Offer:
    return Offer(kind="choose", scenario_id="dispute_charge", options=["dispute_charge"])


def test_a_reference_in_the_fields_form_picks_the_one_offered_flow():
    agent = load_agent(CARRENTAL)
    offer = _offer()
    assert picked_by_value(agent, _session(agent), offer, "RK204518", {},
                           None) == 0
    assert offer.values["dispute_charge"]["booking_ref"] == "RK204518"


def test_free_text_picks_no_flow():
    """A surname could be any free-text slot's value: it says nothing about which flow the customer means."""
    agent = load_agent(CARRENTAL)
    offer = _offer()
    session = _session(agent)
    assert picked_by_value(agent, session, offer, "Martin", {}, None) is None
    assert picked_by_value(agent, session, offer, "I don't know, whatever", {}, None) is None
    assert not offer.values
