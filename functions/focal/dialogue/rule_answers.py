"""Rules answer questions, flows do what is asked: which of the two a message gets, by its dialogue act.

A question about how things are in general (focal.sensing.inquiry.information_request) is answered by the
soft rule retrieval matched for it, even when its words resemble a flow's entry examples more ("what is
your cancellation limit?" names the cancellation flow's topic, but only the rule says what the limit
is); an unmistakable request (a flow scoring ≥ exit_intent_threshold) still starts its flow.

The other way round, a rule whose every example is a question answers questions: inside a flow (or as
one starts), a message that asks nothing — a request the flow serves, a value, a yes — or that asks to
have something done is not answered with it ("change the date of booking B-12" does not get the rule about changing a date after paying: the
flow looks the booking up and says what applies to it). A message that states the situation a rule's questions ask
about ("my credit hasn't shown up yet", "I forgot how much my booking cost me") asks it without a question mark: the
GLOBAL rule is kept when it explains the message clearly better than every flow (STATES_ITS_QUESTION_BY, in margins).
"""

from __future__ import annotations

from focal.dialogue.rule_filter import Applies, filter_rules
from focal.models.agent import AgentConfig, Rule, Scope
from focal.models.context import Command
from focal.models.session import Session
from focal.models.turn import ScoredRule
from focal.sensing.inquiry import asks_anything, asks_for_its_own_sake, asks_to_know, information_request, sentences
from focal.sensing.reply_words import indirect_question

_VALUE_COMMANDS = ("SetSlot", "CorrectSlot")
# How many `rule_match_margin`s a question-answering rule must score above every other flow's best entry example for a
# message that asks nothing to count as asking the rule's question. Measured with `focal bench retrieval` on the
# examples' labelled sets and tests/data/retrieval_held_out (dev): three recover three such statements for one more
# rule said where none was expected; one or two margins add more of those.
STATES_ITS_QUESTION_BY = 3
SIMILARITY = "similarity"  # a candidate matched by its own keys (not entailed, not always included)


def asks_about_rules(agent: AgentConfig, message: str, commands: list[Command]) -> bool:
    """The message only asks how things are in general: no request to act, nothing of the customer's own
    case — which includes an identifier the message gives ("is booking B-12 refundable?" is about that one;
    "can I add more than 2 GB?" asks about a limit)."""
    identifies = any(c.name in _VALUE_COMMANDS and (f := agent.field(c.slot or "")) is not None and f.field_type == "id"
                     for c in commands)
    return information_request(message, states_values=identifies)


def answers_questions(rule: Rule) -> bool:
    """Every key of the rule a customer writes (its examples, else its condition) is a question."""
    keys = rule.examples or [rule.condition_text]
    return all(asks_to_know(k) for k in keys)


def takes_requests_put_as_questions(rule: Rule) -> bool:
    """Some question of the rule's own keys asks the agent to act ("can you waive my late fee?", "which plan would you
    recommend?"): the rule is written for messages of that form too."""
    keys = rule.examples or [rule.condition_text]
    return any(asks_to_know(s) and not asks_for_its_own_sake(s) for k in keys for s in sentences(k))


def states_its_question(agent: AgentConfig, rule: Rule, match: ScoredRule) -> bool:
    """The message voices the rule's question without asking it: the rule explains it clearly better than every flow.
    Only a GLOBAL rule is measured against every flow (a SCENARIO or STEP rule's own flow does not compete with it, so
    "change the address on my booking", inside the flow that changes it, would keep the rule on addresses after
    dispatch); without a flow to compare there is nothing to tell a statement of the rule's case from a value or a
    yes. Either way the rule is set aside as before."""
    margin = agent.retrieval.rule_match_margin
    return rule.scope == Scope.GLOBAL and match.flow_score is not None \
        and match.score >= match.flow_score + STATES_ITS_QUESTION_BY * margin


def asked_rules(agent: AgentConfig, session: Session, message: str, commands: list[Command], matched: list[ScoredRule],
                notes: list[str]) -> list[ScoredRule]:
    """`matched` without the soft rules that answer questions, inside a flow (or as one starts), when the
    message asks no question of its own: a request (also one put as a question: "can you change it?"), a
    value, a yes. "I want to cancel, where does the money go?" asks one, and keeps its rule; so does an indirect
    question in any language ("quiero saber si puedo cancelar", "ich möchte wissen, ob…"). A request put as a question
    keeps a rule whose own keys ask that way too ("would you drop the late fine?" for a rule that voices "can you
    waive my late fee?"): the rule was written for that form.

    Only rules matched by their own similarity are set aside: a rule another one pulls in (entails_rule_ids)
    comes with it."""
    in_flow = session.active_scenario_id is not None or any(c.name == "StartFlow" for c in commands)
    if not in_flow or asks_for_its_own_sake(message) or indirect_question(message) is not None:
        return matched
    put_as_question = asks_anything(message)  # "would you drop the fine?": a request in the form of a question
    gives_value = any(c.name in _VALUE_COMMANDS for c in commands)  # "a vaccination": the answer to the flow's question
    kept = []
    for m in matched:
        rule = agent.rule(m.rule_id)
        if rule is not None and not rule.is_hard_constraint and m.reason == SIMILARITY and answers_questions(rule) \
                and not (put_as_question and takes_requests_put_as_questions(rule)) \
                and (gives_value or not states_its_question(agent, rule, m)):
            notes.append(f"rule {m.rule_id} not said: it answers questions, and the message asks for none")
            continue
        kept.append(m)
    return kept


def matched_rules(agent: AgentConfig, session: Session, message: str, commands: list[Command], candidates: list[ScoredRule],
                  notes: list[str], applies: Applies | None = None) -> list[ScoredRule]:
    """The rules a turn matches among its candidates: the rule filter (a flow's resemblance set aside for a message
    that only asks how things are), then without the rules that answer questions when the message asks none.
    The route stage and `focal bench retrieval` both decide with it."""
    matched = filter_rules(agent, session, candidates, notes, applies,
                           flows_compete=not asks_about_rules(agent, message, commands))
    return asked_rules(agent, session, message, commands, matched, notes)
