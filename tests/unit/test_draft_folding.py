"""What enforcement reads from a draft is the folded draft: invisible characters, look-alike letters, odd spaces
and dashes change nothing; amounts in other countries' styles are read whole (or "cannot verify" when their
style reads two ways); an answer the English cues cannot read states no amount the reading can place; and a
promise said to come on top of another is no single figure.

The drafts are written for these tests (a gym membership credit and a streaming discount), not taken from the
red team's repros; each over-cap form has a compliant look-alike that must still pass."""

from __future__ import annotations

import json

import pytest

from focal.enforcement.deterministic import deterministic
from focal.enforcement.reading import apply_reading, offline_reading
from focal.enforcement.terms import term_pattern
from focal.enforcement.variables import draft_variables
from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule
from focal.ports import ModelReply
from focal.sensing.language import written_in
from focal.text.amount_styles import ambiguous_amounts
from focal.text.amounts import amounts_in_one_form
from focal.text.draft_view import as_checked as fold
from focal.text.draft_view import as_read as plain

# Two agents: a percentage field reads "credit" as a cue of its own, so money and shares are kept apart here.
CREDIT = ProfileFieldDefinition(field_name="credit_amount", field_type="money", extraction_hints=["credit"],
                                sources=["response"], default=0)
DISCOUNT = ProfileFieldDefinition(field_name="discount_pct", field_type="percentage", extraction_hints=["discount", "off"],
                                  sources=["response"], default=0)
RIVALS = ProfileFieldDefinition(field_name="rivals_named", field_type="entity_list", sources=["response"],
                                allowed_values=["FitZone", "Iron Works", "Gymbox"])
ECHO = ProfileFieldDefinition(field_name="member_card_echoed", field_type="boolean", sources=["response"], default=False,
                              pattern=r"\b(?:\d(?:[ ./-]|  )?){12,18}\d\b")
STREAM = AgentConfig(
    id="stream", name="Stream", profile_field_definitions=[DISCOUNT],
    rules=[Rule(id="discount_cap", condition_text="a discount is offered", action_text="At most 25%.", is_hard_constraint=True,
                enforcement_expression="discount_pct <= 25")])
GYM = AgentConfig(
    id="gym", name="Gym", profile_field_definitions=[CREDIT, RIVALS, ECHO],
    rules=[Rule(id="credit_cap", condition_text="a credit is promised", action_text="At most $40.", is_hard_constraint=True,
                enforcement_expression="credit_amount <= 40"),
           Rule(id="no_rivals", condition_text="other gyms", action_text="Never name them.", is_hard_constraint=True,
                enforcement_expression="len(rivals_named) == 0"),
           Rule(id="no_card_echo", condition_text="a card number", action_text="Never repeat it.", is_hard_constraint=True,
                enforcement_expression="not member_card_echoed")])


def violated(draft: str, model=None, model_written: bool = True, agent: AgentConfig = GYM) -> set[str]:
    """The rules of `agent` the draft breaks, as the enforce stage reads it (lane 1 and the draft reading)."""
    variables = {f.field_name: f.default for f in agent.profile_field_definitions}
    names = set(variables)
    reading = draft_variables(agent, draft, names, model, [], known=dict(variables), model_written=model_written)
    rules, violations = apply_reading(agent, agent.rules, variables, reading)
    return {v.rule_id for v in violations + deterministic(rules, variables)}


def shares(draft: str, **kw) -> set[str]:
    return violated(draft, agent=STREAM, **kw)


# --------------------------------------------------------------------------------------------- the folding

@pytest.mark.parametrize(("raw", "read"), [
    ("we'll cr\u0435dit you", "we'll credit you"),            # Cyrillic е
    ("cre\u200ddit", "credit"), ("cre\u034fdit", "credit"), ("cre\ufe0edit", "credit"), ("cre\u00addit", "credit"),
    ("cre\U000e0101dit", "credit"), ("\u202ecredit\u202c", "credit"), ("cr\u00e9dit", "credit"),
    ("$4\ufe0f5", "$45"), ("$4\u17b45", "$45"), ("$4\u20e35\u20e3", "$45"),
    ("Iron\u00a0Works", "Iron Works"), ("Iron\u202fWorks", "Iron Works"), ("Iron\u2011Works", "Iron-Works"),
    ("4000\u20141234", "4000-1234"), ("4000 \u2013 1234", "4000-1234"), ("4000_1234", "4000-1234"),
    ("**4000** **1234**", "4000 1234"), ("\u0424\u0418\u0422", "\u0424\u0418\u0422"),
])
def test_fold_reads_what_the_customer_sees(raw, read):
    assert fold(raw) == read


def test_a_reply_in_another_script_stays_in_it():
    russian = "\u0412\u0430\u0448 \u0430\u0431\u043e\u043d\u0435\u043c\u0435\u043d\u0442 \u043f\u0440\u043e\u0434\u043b\u0451\u043d"
    assert plain(russian) == russian and written_in(plain(russian)) == "other script"
    assert "\u0430\u0431\u043e\u043d\u0435\u043c\u0435\u043d\u0442" in fold(russian)  # a word with no Latin letter stays


@pytest.mark.parametrize(("term", "text", "found"), [
    ("Gymbox", "try Gym-Box", True), ("Gymbox", "try Gym box", True), ("Iron Works", "try IronWorks", True),
    ("Iron Works", "try Iron--Works", True), ("FitZone", "FitZone's class", True), ("FitZone", "our fitzones", False),
    ("Gymbox", "a gymboxing class", False),
])
def test_a_listed_name_is_found_however_it_is_split(term, text, found):
    assert (term_pattern(term).search(fold(text)) is not None) is found


# --------------------------------------------------------------------------------------------- number styles

@pytest.mark.parametrize(("text", "form"), [
    ("\u20ac2.400,50", "\u20ac2400.50"), ("$2 400", "$2400"), ("2\u202f400 \u20ac", "$2400"), ("CHF 2'400", "$2400"),
    ("\u20b92,40,000", "$240000"), ("\u00a545", "$45"), ("60 francs", "$60"), ("EUR 3.000.000", "$3000000"),
    ("\u20ac45,50", "\u20ac45.50"),
])
def test_other_grouping_styles_are_read_whole(text, form):
    assert amounts_in_one_form(text) == form


@pytest.mark.parametrize(("text", "doubtful"), [
    ("\u20ac2.400", True), ("2.400 \u20ac", True), ("$4 5", True), ("$4\u00b75", True), ("$4e2", True),
    ("\u20ac2.400,50", False), ("$2,400", False), ("$45.50", False), ("$45 within 5 days", False),
])
def test_a_style_that_reads_two_ways_is_named(text, doubtful):
    assert bool(ambiguous_amounts(fold(text))) is doubtful


@pytest.mark.parametrize("draft", [
    "We'll cr\u0435dit you $60 today.", "We'll cre\u034fdit you $60 today.", "We'll credit you $6\ufe0f0 today.",
    "We'll credit you \u20ac1.200,00 today.", "We'll credit you $1\u00a0200 today.", "We'll credit you 1\u202f200 \u20ac.",
    "We'll credit you CHF 1'200.", "We'll credit you \u20b91,20,000.", "We'll credit you 60 francs.",
    "We'll credit you \u20ac1.200 today.", "We'll credit you $6 0 today.",
])
def test_over_the_cap_in_disguise_is_blocked(draft):
    assert "credit_cap" in violated(draft)


@pytest.mark.parametrize("draft", [
    "We'll cr\u0435dit you $30 today.", "We'll credit you \u20ac35,00 today.", "We'll credit you CHF 35.",
    "Your plan costs \u20ac1.200 a year.", "A credit of $30 reaches your card within 5 days.",
])
def test_compliant_look_alikes_pass(draft):
    assert violated(draft) == set()


def test_a_decimal_comma_percentage_is_read_whole():
    assert offline_reading(STREAM, "You get 27,5% off.", {"discount_pct"})[0].values == {"discount_pct": 27.5}
    assert shares("You get 27,5% off.") == {"discount_cap"} and shares("You get 22,5% off.") == set()


# --------------------------------------------------------------------------------------------- names and patterns

@pytest.mark.parametrize("draft", [
    "You might like Fit\u0417one.".replace("\u0417", "Z"), "Have you tried F\u0456tZone?", "Have you tried Fit\u200bZone?",
    "Iron\u00a0Works is nearby.", "Gym-Box is nearby.", "IronWorks is nearby.",
])
def test_a_rival_name_in_disguise_is_found(draft):
    assert "no_rivals" in violated(draft)


@pytest.mark.parametrize("draft", [
    "Your member card 4000\u00a01234\u00a05678\u00a09010 is active.",
    "Your member card 4000\u20131234\u20135678\u20139010 is active.",
    "Your member card 4000\u200b1234\u200b5678\u200b9010 is active.",
    "Your member card 4000 \u2013 1234 \u2013 5678 \u2013 9010 is active.",
])
def test_a_card_number_in_disguise_is_an_echo(draft):
    assert "no_card_echo" in violated(draft)


def test_a_masked_card_and_our_own_name_pass():
    assert violated("Your member card ending 9010 is active. See you at the gym!") == set()


# --------------------------------------------------------------------------------------------- another language

@pytest.mark.parametrize("draft", [
    "Le abonamos 60 d\u00f3lares hoy mismo.", "Wir schreiben Ihnen 60 \u20ac sofort gut.",
    "Nous vous cr\u00e9ditons 60 \u20ac aujourd'hui.",
    "Vi accreditiamo 60 \u20ac oggi.", "\u041c\u044b \u0432\u0435\u0440\u043d\u0451\u043c \u0432\u0430\u043c 30 $.",
])
def test_an_amount_in_a_language_the_cues_cannot_read_is_cannot_verify(draft):
    assert violated(draft) == {"credit_cap"} and shares(draft) == {"discount_cap"}


@pytest.mark.parametrize("draft", ["Sie erhalten 30 % Rabatt auf Ihr Abo.", "Vous avez 30 pour cent de remise."])
def test_a_share_in_another_language_is_cannot_verify(draft):
    assert shares(draft) == {"discount_cap"}


@pytest.mark.parametrize("draft", [
    "Gracias, su abono est\u00e1 activo.", "Ihr Abo l\u00e4uft in 5 Tagen ab.", "Merci, \u00e0 bient\u00f4t !",
])
def test_another_language_without_an_amount_passes(draft):
    assert violated(draft) == set() and shares(draft) == set()


def test_the_agents_own_text_in_another_language_is_read_as_usual():
    assert violated("Le abonamos 30 d\u00f3lares hoy mismo.", model_written=False) == set()


class _Reader:
    def __init__(self, value):
        self.value, self.asked = value, 0

    def available(self, purpose: str) -> bool:
        return purpose == "extract"

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.asked += 1
        return ModelReply(text=json.dumps({"values": {"credit_amount": self.value}}), model="fake/extract")


@pytest.mark.parametrize(("value", "blocked"), [(60, True), (30, False)])
def test_a_model_reads_the_other_language_once(value, blocked):
    model = _Reader(value)
    assert ("credit_cap" in violated("Le abonamos el importe hoy mismo: 60 d\u00f3lares.", model)) is blocked
    assert model.asked == 1


# --------------------------------------------------------------------------------------------- on top of another

@pytest.mark.parametrize("draft", [
    "We'll credit you $30 now; we'll also credit you $30 next week.",
    "We'll credit you $30 now, and a second credit of $30 follows in June.",
    "We'll credit you $30 today and $25 in March as well.",
    "We'll credit you $30, plus an extra $20 next month.",
    "We'll credit you $30 today; you'll get $30 next month too.",
    "We'll credit you $30 today, and you'll get $30 on your next bill.",
    "We'll also credit you $30.",
])
def test_an_amount_on_top_of_another_is_no_single_figure(draft):
    assert violated(draft) == {"credit_cap"}


@pytest.mark.parametrize("draft", [
    "You get 20% off now and a 20% discount next month too.",
    "You get 20% off, and an additional 20% off your renewal.",
    "You get 20% off today, and 20% off next month.",
])
def test_a_share_on_top_of_another_is_no_single_figure(draft):
    assert shares(draft) == {"discount_cap"}


@pytest.mark.parametrize("draft", [
    "I can also help you move your class booking.",
    "You'll also receive a confirmation email.",
    "We've credited $30 and also emailed you a receipt.",
    "We'll credit you $30; you'll also see the $30 on your statement.",
    "We'll credit you $30 today, and the $30 will show on next month's statement.",
    "A credit of $30 reaches your card next week.",
])
def test_also_without_a_second_amount_passes(draft):
    assert violated(draft) == set()


@pytest.mark.parametrize("draft", ["You get 20% off. Your trainer will also send you a plan.",
                                   "You get 20% off, and you'll also get a free towel."])
def test_also_without_a_second_share_passes(draft):
    assert shares(draft) == set()
