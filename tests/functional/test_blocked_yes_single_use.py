"""A yes is spent on the attempt it met (newcomer finding, a card-support agent with a goodwill credit capped at €20).

After a guard blocked the confirmed credit, every later message — "danke", "ok", another "ja" — attempted the same
action again with the spent yes (`customer_confirmed` true on a turn where nobody said yes): a blocked tool call, an
`action_blocked` event and "ACTION BLOCKED" in the trace each time. And "Ja, bitte, 15 Euro" after the refusal was no
correction of the refused €30, so the customer could not go on with a smaller amount. Now a later message attempts
nothing (the guards are only previewed to say why it is still refused), a changed amount is offered afresh, and only a
new yes to that offer runs the tool, once. Likewise, an offer a hard rule stopped keeps its flow waiting for a changed
amount instead of dropping it. English and German, through the real pipeline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.models.turn import TurnRequest, TurnResult
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps

AGENT = """
id: credits
name: Card goodwill credits
description: Goodwill credits to a bank customer's card.
persona: You are a bank's card-support assistant.
greeting: Hi, I can credit a goodwill amount to your card.
out_of_scope_message: I can credit a goodwill amount to your card. What would you like to do?
languages: [en, de]
profile_field_definitions:
  - {field_name: credit_amount, display_name: Credit amount, description: The goodwill credit asked for in euros.,
     field_type: money, sources: [message]}
  - {field_name: credit_ref, field_type: string, description: The reference of an issued credit., sources: [tool]}
tools:
  - id: issue_credit
    kind: python
    entrypoint: 'tools.py:issue_credit'
    description: Credit an amount to the customer's card.
    input: {credit_amount: {type: money}}
    output: {reference: credit_ref}
    side_effect: true
scenarios:
  - id: goodwill
    name: Goodwill credit
    entry_examples: [I want a goodwill credit, Can you credit my card for the trouble, I'd like compensation on my card]
    entry_step_id: ask_amount
    steps:
      - id: ask_amount
        slots: [{name: credit_amount, type: money, prompt: "How much should I credit to your card?"}]
        transitions: [{target: confirm_credit}]
      - id: confirm_credit
        requires_confirmation: true
        confirmation_prompt: "I'll credit €{credit_amount} to your card. Shall I go ahead?"
        action: [issue_credit]
        transitions: [{target: credited}]
      - {id: credited, response_template: "Done: €{credit_amount} is credited to your card (reference {credit_ref})."}
rules:
  - id: credit_cap
    condition_text: A goodwill credit is about to be issued
    action_text: Credit at most €20.
    is_hard_constraint: true
    guarded_tool_ids: [issue_credit]
    enforcement_expression: credit_amount <= 20
    response_template: I can credit at most €20, so I haven't credited €{credit_amount}. Tell me a smaller amount if you like.
  - id: confirm_first
    condition_text: A goodwill credit is about to be issued
    action_text: Only with the customer's explicit yes.
    is_hard_constraint: true
    guarded_tool_ids: [issue_credit]
    enforcement_expression: customer_confirmed
    response_template: I haven't done anything yet. Please confirm with a clear yes.
translations:
  de:
    greeting: Hallo, ich kann Ihrer Karte eine Kulanzgutschrift gutschreiben.
    out_of_scope_message: Ich kann Ihrer Karte eine Kulanzgutschrift gutschreiben. Was möchten Sie tun?
    scenarios:
      goodwill:
        name: Kulanzgutschrift
        entry_examples: [Ich möchte eine Kulanzgutschrift, Können Sie mir etwas für den Ärger gutschreiben]
        steps:
          ask_amount: {slots: {credit_amount: "Wie viel soll ich Ihrer Karte gutschreiben?"}}
          confirm_credit: {confirmation_prompt: "Ich schreibe Ihrer Karte {credit_amount} € gut. Soll ich fortfahren?"}
          credited: {response_template: "Erledigt: {credit_amount} € sind Ihrer Karte gutgeschrieben (Referenz {credit_ref})."}
    rules:
      credit_cap: {response_template: "Ich kann höchstens 20 € gutschreiben, daher habe ich {credit_amount} € nicht
        gutgeschrieben. Nennen Sie mir gern einen kleineren Betrag."}
      confirm_first: {response_template: "Ich habe noch nichts getan. Bitte bestätigen Sie mit einem klaren Ja."}
"""
# The same agent with a hard rule on what its answers offer: its own offer of €30 is stopped before the customer sees it.
OFFERED_FIELD = """  - {field_name: credit_offered, description: The goodwill credit an answer offers., field_type: money,
     extraction_hints: [credit], sources: [response], default: 0}
"""
OFFER_RULE = """  - id: offer_cap
    condition_text: The answer offers a goodwill credit
    action_text: Never offer more than €20 of goodwill credit.
    is_hard_constraint: true
    enforcement_expression: credit_offered <= 20
    fallback_text: I can offer at most €20 of goodwill credit. Tell me a smaller amount if you like.
"""
OFFER_CAPPED = AGENT.replace("  - {field_name: credit_ref,", OFFERED_FIELD + "  - {field_name: credit_ref,").replace(
    "  - id: confirm_first", OFFER_RULE + "  - id: confirm_first")
TOOLS = """
from pathlib import Path
LOG = Path(__file__).with_name("credits.log")
def issue_credit(credit_amount, customer_id=None):
    with LOG.open("a") as f:
        f.write(f"{float(credit_amount):g}\\n")
    return {"reference": "GC-" + str(len(LOG.read_text().split()))}
"""
# language → (start, over the cap, its yes, messages that are no yes, a smaller amount with more than a yes, its yes)
CONVERSATIONS = {
    "en": ("I want a goodwill credit", "30 euros", "yes", ("thanks", "ok", "yes"), "Yes please, 15 euros", "yes"),
    "de": ("Ich möchte eine Kulanzgutschrift", "30 Euro", "ja", ("danke", "ok", "ja"), "Ja, bitte, 15 Euro", "ja"),
}
REFUSED = {"en": "I can credit at most €20", "de": "Ich kann höchstens 20 € gutschreiben"}
OFFER = {"en": "I'll credit €{}.00 to your card. Shall I go ahead?", "de": "Ich schreibe Ihrer Karte {},00 € gut. Soll ich fortfahren?"}
DONE = {"en": "Done: €15.00 is credited", "de": "Erledigt: 15,00 € sind Ihrer Karte gutgeschrieben"}


class Desk:
    """One customer's conversation with the credits agent, turn by turn, over the real pipeline."""

    def __init__(self, tmp_path: Path, agent: str = AGENT) -> None:
        (tmp_path / "agent.yaml").write_text(agent)
        (tmp_path / "tools.py").write_text(TOOLS)
        self.log = tmp_path / "credits.log"
        self.deps = local_deps(tmp_path / "agent.yaml", tmp_path / "focal.db")
        self.runner = LocalRunner(self.deps)
        self.turns = 0

    def say(self, message: str) -> TurnResult:
        self.turns += 1
        result = self.runner.turn(TurnRequest(tenant_id="t1", agent_id="credits", session_id="s1", customer_id="c-1",
                                              turn_id=f"t{self.turns}", message=message))
        return result

    def record(self) -> dict[str, Any]:
        return self.deps.turns.list_for_session("t1", "credits", "s1")[-1].state

    def session(self) -> Any:
        return self.deps.sessions.get("t1", "credits", "s1")

    def credited(self) -> list[str]:
        """What the tool itself did (not what the engine reports): one line per credit it issued."""
        return self.log.read_text().split() if self.log.exists() else []


def calls(result: TurnResult, status: str) -> list[str]:
    return [c["tool_id"] for c in result.tool_calls if c["status"] == status]


def blocked_at_30(desk: Desk, lang: str) -> None:
    start, over, yes, *_ = CONVERSATIONS[lang]
    desk.say(start)
    assert OFFER[lang].format("30") in desk.say(over).response
    refusal = desk.say(yes)
    assert calls(refusal, "blocked") == ["issue_credit"] and REFUSED[lang] in refusal.response
    assert desk.session().flow_state == "blocked" and desk.session().confirmed_step is None


@pytest.mark.parametrize("lang", ["en", "de"])
def test_after_a_blocked_credit_a_later_message_attempts_nothing(tmp_path: Path, lang: str):
    desk = Desk(tmp_path)
    blocked_at_30(desk, lang)
    for message in CONVERSATIONS[lang][3]:
        later = desk.say(message)
        assert later.tool_calls == []  # not run, and not attempted either: no blocked call in the result
        record = desk.record()
        assert record["tools"]["tool_calls"] == [] and "AffirmConfirmation" not in record["route"]["decision"]["executed"]
        assert REFUSED[lang] in later.response  # the customer hears why again
        assert desk.session().confirmed_step is None and desk.session().flow_state == "blocked"
    assert desk.credited() == []


@pytest.mark.parametrize("lang", ["en", "de"])
def test_after_a_blocked_credit_a_smaller_amount_is_offered_then_credited_once(tmp_path: Path, lang: str):
    desk = Desk(tmp_path)
    blocked_at_30(desk, lang)
    *_, smaller, yes = CONVERSATIONS[lang]
    offer = desk.say(smaller)
    assert offer.tool_calls == [] and OFFER[lang].format("15") in offer.response  # offered afresh, nothing attempted
    assert REFUSED[lang] not in offer.response
    assert desk.session().flow_state == "confirming" and desk.session().slots["credit_amount"] == 15
    done = desk.say(yes)
    assert calls(done, "ok") == ["issue_credit"] and done.tool_calls[0]["arguments"] == {"credit_amount": 15}
    assert DONE[lang] in done.response
    assert desk.credited() == ["15"]


def test_an_offer_a_hard_rule_stopped_keeps_its_flow_for_a_smaller_amount(tmp_path: Path):
    """The offer of €30 broke `offer_cap`: the customer heard the rule's fallback and the flow was dropped, so a smaller
    amount next met the out-of-scope text. Now the flow waits at the offer (no question open) for a changed amount."""
    desk = Desk(tmp_path, OFFER_CAPPED)
    desk.say("I want a goodwill credit")
    stopped = desk.say("30 euros")
    assert "I can offer at most €20" in stopped.response and stopped.tool_calls == []
    session = desk.session()
    assert (session.active_step_id, session.flow_state, session.confirmed_step) == ("confirm_credit", "blocked", None)
    unanswered = desk.say("yes")  # no question was open: nothing runs
    assert calls(unanswered, "ok") == [] and desk.credited() == []
    offer = desk.say("Yes please, 15 euros")
    assert offer.tool_calls == [] and OFFER["en"].format("15") in offer.response
    done = desk.say("yes")
    assert calls(done, "ok") == ["issue_credit"] and desk.credited() == ["15"]
