"""What amount a draft states for a constrained money, percentage or number field — read so that it fails closed.

The draft is cut into sentences and clauses (";", ", and/but/while…", "but"). A *cue* says that an amount
moves to the customer: the field's `extraction_hints` and `amount_words.verbs` plus built-in value-movement
words (money: credited, back, receive, give you, reimburse, pay out, compensation, issue, transfer, "off",
where the money ends up — "in your bank", "on your statement" — unless the clause is about a charge;
percentages: off, discount, save, reduction…). A clause that opens with "it's", "that is", "the
amount:" goes on about the cue just before it. Then, amount by amount:

- in a clause with a cue, an amount is the field's value — even when it equals a known value ("you'll
  get the full $75 back" promises $75) — unless it is a threshold that restates a policy figure
  ("reimbursements above $50 need a review");
- a clause whose cue is refused ("I can't credit $75"), reported ("you asked for a reimbursement of $120") or
  sent to a review ("a credit of $75 needs a review") promises nothing: its amounts are attributed to
  the refusal, the customer's request or the review;
- in a clause without a cue, an amount that equals a known value (a booking total from a tool) or a
  policy figure (written in the agent's rules, steps or field descriptions), or that the clause gives
  another role (a price, a fee, a total, one of the field's `amount_words.other_roles`), is attributed to that; any other amount, in a draft
  that talks about the field at all, cannot be attributed: *uncertain*;
- a cue that promises an unstated whole ("reimburse it in full", "fully credited", "the whole amount") is
  the largest known or stated amount, and uncertain when there is none; one whose object is a purchase
  ("shall I reimburse booking B-123?", with `purchases: [booking]`) is that amount when one is known; a percentage of a base ("half of
  your $120 purchase", "80% of the total") is that share.

A clause whose cue is only built-in money talk and that names what another answer field of the agent holds (its
`extraction_hints`: "I'll issue a voucher of €40" read for a credit field beside a voucher field) promises that
field's amount, not this one's: its amounts are stated. A clause with one of the field's own hints is read as above.

The largest value wins when several are the field's (the conservative reading for caps). Nothing of the
type stated: no value, the field keeps its default.
"""


from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from focal.enforcement.amount_attribution import Tally, read_clause
from focal.enforcement.amount_clauses import SENTENCE, Clause, cue_patterns, sentences
from focal.enforcement.amount_cues import DISCOUNT_CUES, EXCEPTION, STRONG_EXCEPTION, Lexicon, cue_words, lexicon
from focal.enforcement.amount_forms import added_on_top, names_quantity, repeated, stray_figures
from focal.enforcement.amount_known import names_in
from focal.enforcement.amount_repeats import Site, said_again_of, sites_of
from focal.enforcement.amount_tokens import MONEY, normalised, number, show, tokens
from focal.enforcement.linear_scan import CloseValues, close
from focal.enforcement.terms import joined
from focal.enforcement.whole_quantity import whole_of_field
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.text.amount_styles import ambiguous_amounts
from focal.text.amounts import GIVEN_AWAY_MARK
from focal.text.draft_view import as_checked

NUMERIC = ("money", "percentage", "number", "integer")
_I = re.IGNORECASE
_PRONOUN_START = re.compile(r"^\s*(?:it|that|this|which|(?:the\s+)?(?:amount|sum|figure))(?:'s|\s+is|\s+will|'ll|\s+comes|\s+should|"
                            r"\s+would|\s*:)", _I)
_ROLE_PRONOUN = re.compile(r"^\s*(?:it|this|that|this\s+fee|that\s+fee)\b", _I)


@dataclass
class AmountReading:
    value: float | None = None
    uncertain: str | None = None
    cue: bool = False                                 # the draft talks about the field
    unexplained: list[float] = field(default_factory=list)  # amounts no known value explains
    repeated: bool = False  # promised more than once: the total is unread, no amount the draft writes bounds it


@lru_cache(maxsize=64)
def _figures(texts: tuple[str, ...], kind: str) -> frozenset[float]:
    return frozenset(number(m) for t in texts for m in tokens(kind, normalised(kind, t)))


def policy_figures(agent: AgentConfig, kind: str) -> frozenset[float]:
    """Amounts or percentages written in the agent's own texts: rules, steps, field descriptions."""
    texts: list[str] = []
    for r in agent.rules:
        texts += [r.condition_text, r.action_text, r.response_template or "", r.fallback_text or ""]
    for s in agent.scenarios:
        for step in s.steps:
            texts += [step.instructions, step.response_template, step.confirmation_prompt, step.clarification_hint]
    texts += [f.description for f in agent.profile_field_definitions]
    return _figures(tuple(t for t in texts if t), kind)


def _given_away_roles(text: str, lex: Lexicon) -> str:
    """A sentence that gives away one of the field's declared other roles ("the cancellation fee is waived",
    "Fee charged: $0.00" for a discount on the room rate) gives away that role, not the field's share."""
    if not lex.other_roles or GIVEN_AWAY_MARK not in text:
        return text
    role = re.compile(rf"\b(?:{lex.other_roles})s?\b", _I)
    named = [False]  # "A $25 fee applies. It can be waived.": the pronoun is the role the sentence before named

    def unmark(m: re.Match[str]) -> str:
        sentence = m.group(0)
        mine = role.search(sentence) is not None or (named[0] and _ROLE_PRONOUN.match(sentence) is not None)
        named[0] = role.search(sentence) is not None
        return sentence.replace(GIVEN_AWAY_MARK, "") if mine else sentence

    return SENTENCE.sub(unmark, text)


def read_amount(field_def: ProfileFieldDefinition, draft: str, known: list[float], policy: frozenset[float],
                names: tuple[str, ...] = (), noun_roles: tuple[str, ...] = (),
                others: tuple[str, ...] = ()) -> AmountReading:
    """`known`: the turn's amounts of the field's kind; `names`: its names of a purchase; `noun_roles`: the names of
    the agent's own amounts that hold a built-in cue word; `others`: the hints of the agent's other answer fields of
    the kind (all three: focal.enforcement.amount_known)."""
    reader = _Reader(field_def, draft, known, policy, names, noun_roles, others)
    for clauses in reader.sentences:
        reader.read_sentence(clauses)
    return reader.settle()


class _Sentence:
    """A sentence's clauses, and the known purchases it names (read once, when a clause asks)."""

    def __init__(self, clauses: list[Clause], names: tuple[str, ...]):
        self.clauses, self._names = clauses, names
        self._named: list[str] | None = None

    def states_amount(self) -> bool:
        """Any clause states an amount or a share."""
        return any(tokens(kind, c.text) for c in self.clauses for kind in ("money", "percentage"))

    def purchases_named(self) -> list[str]:
        if self._named is None:
            self._named = names_in(self._names, " ".join(c.text for c in self.clauses))
        return self._named


@dataclass
class _Step:
    """One clause being read: how much the tally held before it, and its amounts."""
    clause: Clause
    cue: bool
    amounts: list[re.Match[str]]
    before: int             # promised amounts and shares before the clause
    promised_before: int
    unexplained_before: int
    limit: bool = False

    def added_nothing(self, tally: Tally) -> bool:
        return len(tally.promised) + len(tally.shares) == self.before


class _Reader:
    """The clause-by-clause reading of one draft for one field, then its verdict (`settle`)."""

    def __init__(self, field_def: ProfileFieldDefinition, draft: str, known: list[float], policy: frozenset[float],
                 names: tuple[str, ...], noun_roles: tuple[str, ...] = (), others: tuple[str, ...] = ()):
        self.field, self.kind, self.draft = field_def, field_def.field_type, draft
        self.known, self.policy, self.names = known, policy, names
        self.lex = lexicon(field_def, noun_roles)
        # "re-imburse", "c r e d i t"
        self.text = _given_away_roles(joined(normalised(self.kind, draft), cue_words(field_def)), self.lex)
        self.cues = cue_patterns(self.kind, field_def.extraction_hints, self.lex)
        self.hints = self.cues.patterns[:self.cues.own]  # the field's own hints, without the built-in cues
        self.sentences = sentences(self.text, self.cues)
        self.elsewhere = self._others_clauses(others)
        self.cue = any(c.cue or c.neutral for s in self.sentences for c in s)
        self.tally = Tally()
        self.promised = CloseValues()  # the promised amounts so far, by value
        self.sites: list[Site] = []  # where each amount was promised: the same amount said again may be a second promise
        self.site_values = CloseValues()
        self.wholes: list[str] = []  # "whole" (in full), "named" (a known purchase given back) or "object" (reimburse the purchase)
        self.repeats: list[str] = []
        self.unread: list[str] = []
        self.cue_texts: list[str] = []
        self.bare_promise, self.whole_of, self.previous_cue = False, "", False

    # ------------------------------------------------------------------ the clauses

    def _others_clauses(self, others: tuple[str, ...]) -> set[int]:
        """The clauses (by id) that hold another answer field's amount: a cue of built-in money talk only, beside
        that field's hint and none of this field's. They are set to no cue, so that the draft does not talk about
        this field there."""
        if not others:
            return set()
        theirs = re.compile(r"\b(?:" + "|".join(re.escape(h) for h in others) + r")(?:s|es|en|n)?\b", _I)
        out: set[int] = set()
        for clauses in self.sentences:
            for i, clause in enumerate(clauses):
                if clause.cue and theirs.search(clause.text) and not any(h.search(clause.text) for h in self.hints):
                    clauses[i] = Clause(clause.text, cue=False, neutral=False)
                    out.add(id(clauses[i]))
        return out

    def read_sentence(self, clauses: list[Clause]) -> None:
        sentence = _Sentence(clauses, self.names)
        for i, clause in enumerate(clauses):
            # "Your reimbursement is approved. It's $75." — the second sentence goes on about the first one's cue
            # "Let me reimburse you - it's $75": a clause that goes on about the previous clause's cue (a
            # question only within the same sentence: "…reimbursement. It was $75, right?" asks about the total)
            before_cue = clauses[i - 1].cue if i else self.previous_cue and not clause.text.endswith("?")
            cue = clause.cue or (before_cue and not clause.neutral and _PRONOUN_START.search(clause.text) is not None)
            self._read_clause(clause, cue, sentence)
        self.previous_cue = any(c.cue for c in clauses)

    def _read_clause(self, clause: Clause, cue: bool, sentence: _Sentence) -> None:
        t = self.tally
        if id(clause) in self.elsewhere:
            t.stated += [number(m) for m in tokens(self.kind, clause.text)]  # another answer field's amount
            return
        step = _Step(clause, cue, tokens(self.kind, clause.text), len(t.promised) + len(t.shares), len(t.promised),
                     len(t.unexplained))
        if cue:
            self.cue_texts.append(clause.text)
        step.limit = read_clause(self.kind, self.lex, clause, cue, self.known, self.policy, t, step.amounts)
        added = t.promised[step.promised_before:]
        for value in added:
            self.promised.add(value)
        self._note_repeat(step, added)
        if cue and step.added_nothing(t) and not clause.text.rstrip().endswith("?") and not step.limit:
            self.bare_promise = True  # "Credit approved." — its amount may be stated elsewhere ("capped at $X" is a limit)
        for found in sites_of(added, clause.text):
            self.sites.append(found)
            self.site_values.add(found.value)
        if cue and self.kind == "money" and step.added_nothing(t):
            self._note_whole(clause.text, sentence)

    def _note_repeat(self, step: _Step, added: list[float]) -> None:
        """An amount promised more than once, or a promise in words the reading cannot place."""
        text, t = step.clause.text, self.tally
        grew = len(t.promised) > step.promised_before or len(t.unexplained) > step.unexplained_before
        if len(added) > len({round(v, 2) for v in added}):
            self.repeats.append(f"{show(self.kind, added[0])} twice in one sentence")  # "$50 on AC100 and $50 on AC200"
        elif (len(t.promised) + len(t.shares) > step.before or grew or self._restates(step.amounts)) and (
                again := repeated(text, self.field.extraction_hints, self.kind)):
            self.repeats.append(again)  # "I'll credit $40. Another $40 comes with your next bill."
        elif grew and (more := added_on_top(text, [m.span() for m in step.amounts], self.field.extraction_hints, step.before > 0)):
            self.repeats.append(more)  # "I'll also credit you $40", "…and $40 next month"
        elif not step.clause.neutral and (again := said_again_of(text, self._restated(step), self._earlier_sites)):
            self.repeats.append(again)  # "$40 for the lamp, and $40 for the desk", "15% off today. Additionally, 15% off…"
        elif step.cue and step.added_nothing(t) and self._unplaced(text):
            self.unread.append(text)  # "…the cost of it", "$6 instead of $12" (not "$30 back": no share of a price)

    def _restates(self, amounts: list[re.Match[str]]) -> bool:
        """The clause states an amount already promised (in it or before it)."""
        return any(self.promised.has_close(number(m)) for m in amounts)

    def _restated(self, step: _Step) -> list[tuple[float, int]]:
        """(value, position) of the clause's amounts that equal one promised before it."""
        return [(number(m), m.start()) for m in step.amounts
                if any(rank < step.promised_before for rank, _ in self.promised.close_to(number(m)))]

    def _earlier_sites(self, value: float) -> list[Site]:
        return [self.sites[rank] for rank, _ in self.site_values.close_to(value)]

    def _unplaced(self, text: str) -> bool:
        """A promise whose amount is in words ("…the cost of it"), or for a percentage a price beside a discount cue
        ("$6 instead of $12")."""
        return names_quantity(text) or (self.kind == "percentage" and MONEY.search(text) is not None and (
            DISCOUNT_CUES.search(text) is not None or any(h.search(text) for h in self.hints)))

    def _note_whole(self, text: str, sentence: _Sentence) -> None:
        """A money cue with no amount: the whole ("in full"), a known purchase named, or the purchase as its object."""
        if self.lex.whole.search(text) or self.lex.charge_back.search(text) or (
                whole_of_field(text, self.field) and not sentence.states_amount()):
            # "in full", "I'll reverse the charge", "all your overdue fines" (in a sentence with no amount: "every
            # fine can be waived, up to $5" is a limit): the whole, or cannot verify
            self.wholes.append("whole")
        elif (named := sentence.purchases_named()) and (self.lex.gives_back.search(text) or any(h.search(text) for h in self.hints)):
            # "I'll reimburse B-123", "the Oak suite will be credited", "B-123 qualifies, and the credit is
            # underway": a known purchase named in the sentence of a cue that gives money back — its whole
            self.wholes.append("named")
            self.whole_of = self.whole_of or named[0]
        elif self.lex.object.search(text):
            self.wholes.append("object")

    # ------------------------------------------------------------------ the verdict

    def settle(self) -> AmountReading:
        """The value promised (the largest), or why it cannot be read: each later reason replaces an earlier one."""
        t, kind = self.tally, self.kind
        reading = AmountReading(cue=self.cue, unexplained=t.unexplained)
        candidates = [*self.known, *t.stated]
        reading.uncertain = self._settle_shares(candidates)
        reading.uncertain = self._settle_wholes(candidates) or reading.uncertain
        reading.unexplained = self._unexplained()
        if kind == "money" and reading.cue and (doubtful := ambiguous_amounts(as_checked(self.draft))):
            # "€1.000": a thousand, or one with three decimals — never the smaller reading
            reading.uncertain = f"the answer writes \"{doubtful[0]}\", a figure that reads two ways"
        if reading.unexplained and reading.cue:
            shown = ", ".join(show(kind, v) for v in reading.unexplained)
            reading.uncertain = f"the answer states {shown}, which no known value explains"
        else:
            reading.unexplained = []
        restated = [v for v in t.stated if any(close(v, k) for k in self.known)]
        if self.bare_promise and restated and not t.promised:
            t.promised.append(max(restated))  # "Credit approved. Total: $75." — what it promises is the amount beside it
        if self.unread and not t.promised and not reading.uncertain:
            # "I'll send you the cost of it": a promise whose amount is in words the reading cannot place
            reading.uncertain = f"the answer promises an amount the offline reading cannot place (\"{self.unread[0].strip()}\")"
        reading.uncertain = self._several() or reading.uncertain
        reading.repeated = self._total_unread()
        reading.uncertain = reading.uncertain or self._exception(reading.cue)
        if t.promised:
            reading.value = max(t.promised)
        return reading

    def _unexplained(self) -> list[float]:
        """The amounts no known value explains, but those a promise says again ("I'll credit $40. The $40 reaches your
        card in 5 days.", "half of the $40 charge, so $20": a share worked out included); for a percentage, with the
        figures written without their sign in a clause about the field ("a discount of 25")."""
        t = self.tally
        promised = CloseValues(t.promised)
        unexplained = [v for v in t.unexplained if not promised.has_close(v)]
        if self.kind == "percentage":
            accounted = [*t.promised, *t.stated, *self.known, *self.policy, *unexplained]
            unexplained += stray_figures(" . ".join(self.cue_texts), accounted, self.lex.purchases)
        return unexplained

    def _settle_shares(self, candidates: list[float]) -> str | None:
        """Each share promised, worked out on its base (written, or the largest known or stated amount)."""
        why = None
        for share, base in self.tally.shares:
            base = base if base is not None else max(candidates, default=None)
            if base is None:
                why = f"the answer promises {share:g}% of an amount no known value gives"
            else:
                self.tally.promised.append(round(share * base / 100, 2))
        return why

    def _settle_wholes(self, candidates: list[float]) -> str | None:
        """A promise of the whole is the largest known or stated amount; without one it cannot be read."""
        if self.wholes and candidates:
            self.tally.promised.append(max(candidates))
        elif "whole" in self.wholes:
            return "the answer promises the whole amount, which no known value gives"
        elif "named" in self.wholes:
            return f"the answer promises the whole of {self.whole_of}, whose amount no known value gives"
        return None

    def _several(self) -> str | None:
        promised = self.tally.promised
        if len({round(v, 2) for v in promised}) > 1:
            shown = ", ".join(show(self.kind, v) for v in sorted(set(promised)))
            return f"the answer promises several amounts ({shown}): their total is not read"
        if self.repeats:
            return f"the answer promises an amount more than once (\"{self.repeats[0]}\"): the total is not read"
        return None

    def _total_unread(self) -> bool:
        """One amount promised more than once ("€60 each day"): no amount the draft writes bounds the total."""
        return bool(self.repeats) and len({round(v, 2) for v in self.tally.promised}) <= 1

    def _exception(self, cue: bool) -> str | None:
        """"I can't credit $75... but for you, $75, done": a refusal or a limit with an exception is no refusal."""
        exception = EXCEPTION.search(self.text)
        if exception and (cue or (tokens(self.kind, self.text) and STRONG_EXCEPTION.search(self.text))):
            return f"the answer makes an exception to what it refuses or limits (\"{exception.group(0)}\")"
        return None
