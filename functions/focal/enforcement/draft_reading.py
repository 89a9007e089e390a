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

The largest value wins when several are the field's (the conservative reading for caps). Nothing of the
type stated: no value, the field keeps its default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from focal.enforcement.amount_cues import (
    BASE_OF,
    CHARGE,
    DESTINATION,
    DISCOUNT_CUES,
    EXCEPTION,
    NEGATION,
    NUM,
    PERCENT_CUES,
    REFUSED_AFTER,
    REPORTED,
    REVIEW,
    SHARES,
    STRONG_EXCEPTION,
    THRESHOLD_AFTER,
    THRESHOLD_BEFORE,
    TURNAROUND,
    Lexicon,
    cue_words,
    lexicon,
)
from focal.enforcement.amount_forms import (
    GIVEN_AWAY_MARK,
    STATISTIC,
    added_on_top,
    names_quantity,
    normalise,
    normalise_percent,
    repeated,
    spell_out,
    stray_figures,
)
from focal.enforcement.amount_known import names_in
from focal.enforcement.amount_repeats import Site, said_again, site
from focal.enforcement.amount_styles import ambiguous_amounts
from focal.enforcement.normalise import fold, joined
from focal.models.agent import AgentConfig, ProfileFieldDefinition

NUMERIC = ("money", "percentage", "number", "integer")
_I = re.IGNORECASE
_MONEY = re.compile(
    rf"(?:[$€£]\s?|\b(?:usd|us\$|eur|gbp)\s?)(?P<a>{NUM})(?![\d%])"
    rf"|\b(?P<b>{NUM})\s?(?:dollars?|bucks|usd|euros?|eur|pounds|quid|gbp)\b"
    r"|(?<![\w.$€£,/-])(?P<c>\d+\.\d{2})(?![\w.%/-])(?!\s?percent)", _I)
_PERCENT = re.compile(r"(?<![\w.])(?P<p>\d+(?:\.\d+)?)\s?(?:%|percent\b|per\s?cent\b|pct\b)", _I)
_BARE = re.compile(r"(?<![\w.$€£/-])(?P<n>\d+(?:\.\d+)?)(?![\w./-])")

_DISCOUNT = re.compile(r"\s*(?:off|discount|savings?|reduction|markdown|cheaper|lower)\b", _I)
_PRONOUN_START = re.compile(r"^\s*(?:it|that|this|which|(?:the\s+)?(?:amount|sum|figure))(?:'s|\s+is|\s+will|'ll|\s+comes|\s+should|"
                            r"\s+would|\s*:)", _I)
_NOUN_USE = re.compile(r"\w*\s+(?:requests?|claims?|applications?|polic(?:y|ies)|process|eligibility|reviews?|status|forms?|"
                       r"window|period|rules?|terms)\b", _I)
_YOU_PAID = re.compile(r"\s*(?:that\s+)?(?:you|it)\s+(?:paid|spent|cost|were\s+charged)\b", _I)
_LIMIT_NOUN = re.compile(r"\b(?:limit|cap|maximum|ceiling|threshold)\s+(?:of|is|at)\s+(?:a\s+|the\s+)?$", _I)
_GRANTED = re.compile(r"\b(?:accepted|approved|granted|processed|confirmed|issued|completed)\b", _I)
_SENTENCE = re.compile(r"(?:\d\.\d|[^.!?\n])+[.!?]?")
_SUBJECT = r"(?=(?:i|i'll|i've|i'm|we|we'll|we've|we're|you|you'll|you've|you're|it|it'll|it's|they|our|your|this|that|the|a|an)\b)"
_CLAUSE = re.compile(
    rf"\s*;\s*|\s+[—–-]{{1,2}}\s+{_SUBJECT}|,?\s+but\s+|,\s*(?:and|while|whereas|although|though|however|yet|so)\s+"
    rf"|\s+and\s+{_SUBJECT}", _I)


@dataclass
class AmountReading:
    value: float | None = None
    uncertain: str | None = None
    cue: bool = False                                 # the draft talks about the field
    unexplained: list[float] = field(default_factory=list)  # amounts no known value explains


@dataclass
class _Clause:
    text: str
    cue: bool          # a cue that is not refused, reported or sent to review
    neutral: bool      # a cue that is


def _close(a: float, b: float) -> bool:
    return abs(a - b) < 0.005


def _cues(kind: str, hints: list[str], lex: Lexicon) -> list[re.Pattern[str]]:
    out = [re.compile(rf"\b{re.escape(h)}(?:s|es|ed|d|ing)?\b", _I) for h in hints]
    if kind == "money":
        out += [lex.money_cues, DESTINATION]
    elif kind == "percentage":
        out.append(PERCENT_CUES)
    return out


def _clauses(text: str, cues: list[re.Pattern[str]]) -> list[list[_Clause]]:
    out = []
    turned = TURNAROUND.search(text) is not None  # "…needs a review, and I've approved it": no review spares it
    for sentence in (s.strip() for s in _SENTENCE.findall(text)):
        if not sentence:
            continue
        clauses = []
        for part in filter(None, (p.strip() for p in _CLAUSE.split(sentence))):
            found = [m for c in cues for m in c.finditer(part) if c is not DESTINATION or not CHARGE.search(part)]
            starts = [m.start() for m in found]
            # refused ("I can't credit"), reported ("you asked for a reimbursement") or a noun ("the reimbursement policy")
            denied = [m.start() for m in found if NEGATION.search(part[:m.start()]) or REPORTED.search(part[:m.start()])]
            # a refusal governs the rest of its clause: "I won't be able to issue the $75 credit"
            # …unless the noun is granted: "your reimbursement request has been approved" promises it
            refused = [m.start() for m in found if (denied and m.start() >= min(denied))
                       or (_NOUN_USE.match(part, m.end()) and not _GRANTED.search(part, m.end()))]
            # refused, reported, sent to review, or refused after the amount — with a cue or without one ("the
            # remaining $25 needs a review"): its amounts promise nothing
            neutral = (bool(starts) and len(refused) == len(starts)) or not turned and (
                REVIEW.search(part) is not None or REFUSED_AFTER.search(part) is not None)
            clauses.append(_Clause(part, bool(starts) and not neutral, neutral))
        out.append(clauses)
    return out


def _tokens(kind: str, text: str) -> list[re.Match[str]]:
    if kind == "money":
        return list(_MONEY.finditer(text))
    if kind == "percentage":
        return list(_PERCENT.finditer(text))
    money = [m.span() for m in _MONEY.finditer(text)]  # "$1,500.00" is no count of 1 or 500
    return [m for m in _BARE.finditer(text) if not any(a < m.end() and m.start() < b for a, b in money)]


def _number(m: re.Match[str]) -> float:
    raw = next(g for g in m.groups() if g is not None)
    return float(raw.replace(",", ""))


def _share(m: re.Match[str]) -> float:
    raw = m.group("share").lower()
    digits = re.match(r"\d+(?:\.\d+)?", raw)
    return float(digits.group(0)) if digits else SHARES[raw]


@lru_cache(maxsize=64)
def _figures(texts: tuple[str, ...], kind: str) -> frozenset[float]:
    return frozenset(_number(m) for t in texts for m in _tokens(kind, _normalised(kind, t)))


def _normalised(kind: str, text: str) -> str:
    if kind == "money":
        return spell_out(normalise(text))
    if kind == "percentage":
        return spell_out(normalise_percent(text))
    return fold(text)


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


_ROLE_PRONOUN = re.compile(r"^\s*(?:it|this|that|this\s+fee|that\s+fee)\b", _I)


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

    return _SENTENCE.sub(unmark, text)


def _names_purchase(lex: Lexicon, after: str) -> bool:
    """The amount is the purchase's own, written before it: "a $700 claim", "your $75 booking"."""
    return bool(lex.purchases) and re.match(rf"\s*(?:{lex.purchases})s?\b", after, _I) is not None


def _names_role(lex: Lexicon, after: str) -> bool:
    """The amount is what the customer paid ("of the $75 you paid") or one of the roles the field declares
    (`amount_words.other_roles`), named right after it: "$1,080 stay total", "a $25 resort fee". Built-in role
    words do not count here: "$75 in total" may be the promise's own total."""
    if _YOU_PAID.match(after):
        return True
    return bool(lex.other_roles) and re.match(rf"\s*(?:{lex.other_roles})s?\b", after, _I) is not None


def _restates(kind: str, text: str, promised: list[float]) -> bool:
    """The clause states an amount already promised."""
    return any(_close(_number(m), p) for m in _tokens(kind, text) for p in promised)


def _show(kind: str, value: float) -> str:
    shown = f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    return f"${shown}" if kind == "money" else f"{shown}%" if kind == "percentage" else shown


def read_amount(field_def: ProfileFieldDefinition, draft: str, known: list[float], policy: frozenset[float],
                names: tuple[str, ...] = ()) -> AmountReading:
    """`known`: the turn's amounts of the field's kind; `names`: its names of a purchase (focal.enforcement.amount_known)."""
    kind = field_def.field_type
    lex = lexicon(field_def)
    text = _given_away_roles(joined(_normalised(kind, draft), cue_words(field_def)), lex)  # "re-imburse", "c r e d i t"
    hints = _cues(kind, field_def.extraction_hints, lex)
    sentences = _clauses(text, hints)
    reading = AmountReading(cue=any(c.cue or c.neutral for s in sentences for c in s))
    promised: list[float] = []
    stated: list[float] = []  # attributed to a known value or another role: what "the whole amount" can be
    wholes: list[str] = []    # "whole" (in full), "named" (a known purchase given back) or "object" (reimburse the purchase)
    sites: list[Site] = []    # where each amount was promised: the same amount said again may be a second promise
    shares: list[tuple[float, float | None]] = []
    previous_cue, repeats, unread, cue_texts, bare_promise, whole_of = False, [], [], [], False, ""
    for clauses in sentences:
        for i, clause in enumerate(clauses):
            # "Your reimbursement is approved. It's $75." — the second sentence goes on about the first one's cue
            # "Let me reimburse you - it's $75": a clause that goes on about the previous clause's cue (a
            # question only within the same sentence: "…reimbursement. It was $75, right?" asks about the total)
            before_cue = clauses[i - 1].cue if i else previous_cue and not clause.text.endswith("?")
            cue = clause.cue or (before_cue and not clause.neutral and _PRONOUN_START.search(clause.text) is not None)
            before, promised_before, unexplained_before = len(promised) + len(shares), len(promised), len(reading.unexplained)
            if cue:
                cue_texts.append(clause.text)
            limit = _read_clause(kind, lex, clause, cue, known, policy, promised, stated, shares, reading.unexplained)
            added = promised[promised_before:]
            tokens = _tokens(kind, clause.text)
            restates = [(_number(m), m.start()) for m in tokens if any(_close(_number(m), p) for p in promised[:promised_before])]
            if len(added) > len({round(v, 2) for v in added}):
                repeats.append(f"{_show(kind, added[0])} twice in one sentence")  # "$50 on AC100 and $50 on AC200"
            elif (len(promised) + len(shares) > before or len(reading.unexplained) > unexplained_before
                  or _restates(kind, clause.text, promised)) and (again := repeated(clause.text, field_def.extraction_hints, kind)):
                repeats.append(again)  # "I'll credit $40. Another $40 comes with your next bill."
            elif (len(promised) > promised_before or len(reading.unexplained) > unexplained_before) and (more := added_on_top(
                    clause.text, [m.span() for m in _tokens(kind, clause.text)], field_def.extraction_hints, before > 0)):
                repeats.append(more)  # "I'll also credit you $40", "…and $40 next month"
            elif not clause.neutral and (again := said_again(clause.text, restates, sites)):
                repeats.append(again)  # "$40 for the lamp, and $40 for the desk", "15% off today. Additionally, 15% off…"
            elif cue and len(promised) + len(shares) == before and (
                    names_quantity(clause.text) or (kind == "percentage" and _MONEY.search(clause.text) and (
                        DISCOUNT_CUES.search(clause.text) or any(h.search(clause.text) for h in hints[:len(field_def.extraction_hints)])))):
                unread.append(clause.text)  # "…the cost of it", "$6 instead of $12" (not "$30 back": no share of a price)
            if cue and len(promised) + len(shares) == before and not clause.text.rstrip().endswith("?") and not limit:
                bare_promise = True  # "Credit approved." — its amount may be stated elsewhere ("capped at $X" is a limit)
            sites += [site(v, clause.text) for v in added]
            if cue and kind == "money" and len(promised) + len(shares) == before:
                if lex.whole.search(clause.text) or lex.charge_back.search(clause.text):
                    wholes.append("whole")  # "in full", "I'll reverse the charge": the whole, or cannot verify
                elif (named := names_in(names, " ".join(c.text for c in clauses))) and (
                        lex.gives_back.search(clause.text) or any(h.search(clause.text) for h in hints[:len(field_def.extraction_hints)])):
                    # "I'll reimburse B-123", "the Oak suite will be credited", "B-123 qualifies, and the credit is
                    # underway": a known purchase named in the sentence of a cue that gives money back — its whole
                    wholes.append("named")
                    whole_of = whole_of or named[0]
                elif lex.object.search(clause.text):
                    wholes.append("object")
        previous_cue = any(c.cue for c in clauses)
    candidates = [*known, *stated]
    for share, base in shares:
        base = base if base is not None else max(candidates, default=None)
        if base is None:
            reading.uncertain = f"the answer promises {share:g}% of an amount no known value gives"
        else:
            promised.append(round(share * base / 100, 2))
    if wholes and candidates:
        promised.append(max(candidates))
    elif "whole" in wholes:
        reading.uncertain = "the answer promises the whole amount, which no known value gives"
    elif "named" in wholes:
        reading.uncertain = f"the answer promises the whole of {whole_of}, whose amount no known value gives"
    # "I'll credit $40. The $40 reaches your card in 5 days.", "half of the $40 charge, so $20": a promised amount
    # said again (a share worked out included) is explained by it
    reading.unexplained = [v for v in reading.unexplained if not any(_close(v, p) for p in promised)]
    if kind == "percentage":  # "a discount of 25": a figure without its sign, in a clause about the field
        accounted = [*promised, *stated, *known, *policy, *reading.unexplained]
        reading.unexplained += stray_figures(" . ".join(cue_texts), accounted, lex.purchases)
    if kind == "money" and reading.cue and (doubtful := ambiguous_amounts(fold(draft))):
        # "€1.000": a thousand, or one with three decimals — never the smaller reading
        reading.uncertain = f"the answer writes \"{doubtful[0]}\", a figure that reads two ways"
    if reading.unexplained and reading.cue:
        shown = ", ".join(_show(kind, v) for v in reading.unexplained)
        reading.uncertain = f"the answer states {shown}, which no known value explains"
    else:
        reading.unexplained = []
    restated = [v for v in stated if any(_close(v, k) for k in known)]
    if bare_promise and restated and not promised:
        promised.append(max(restated))  # "Credit approved. Total: $75." — what it promises is the amount beside it
    if unread and not promised and not reading.uncertain:
        # "I'll send you the cost of it": a promise whose amount is in words the reading cannot place
        reading.uncertain = f"the answer promises an amount the offline reading cannot place (\"{unread[0].strip()}\")"
    if len({round(v, 2) for v in promised}) > 1:
        shown = ", ".join(_show(kind, v) for v in sorted(set(promised)))
        reading.uncertain = f"the answer promises several amounts ({shown}): their total is not read"
    elif repeats:
        reading.uncertain = f"the answer promises an amount more than once (\"{repeats[0]}\"): the total is not read"
    if not reading.uncertain and (exception := EXCEPTION.search(text)) and (
            reading.cue or (_tokens(kind, text) and STRONG_EXCEPTION.search(text))):
        # "I can't credit $75... but for you, $75, done": a refusal or a limit with an exception is no refusal
        reading.uncertain = f"the answer makes an exception to what it refuses or limits (\"{exception.group(0)}\")"
    if promised:
        reading.value = max(promised)
    return reading


def _read_clause(
    kind: str, lex: Lexicon, clause: _Clause, cue: bool, known: list[float], policy: frozenset[float], promised: list[float],
    stated: list[float], shares: list[tuple[float, float | None]], unexplained: list[float],
) -> bool:
    """Attribute every amount of one clause: promised, stated (known / another role), or unexplained.
    True when the clause states a limit ("capped at your limit of $25,000")."""
    if clause.neutral:
        return False  # refused, reported or sent to review: its amounts promise nothing
    text, taken, limit, promised_before, purchase_amounts = clause.text, [], False, len(promised), []
    if cue and kind == "money":
        for m in lex.share.finditer(text):
            base = _MONEY.search(m.group("base")) if m.group("base") else None
            shares.append((_share(m), _number(base) if base else None))
            taken.append(m.span())
        for m in _PERCENT.finditer(text):  # "you'll get 50% back": a share of the whole ("10% off" is a discount)
            if not any(a <= m.start() < b for a, b in taken) and not _DISCOUNT.match(text, m.end()):
                shares.append((_number(m), None))
    if cue and kind == "money":  # "you'll get 75 back": a figure without a currency in a promise
        promised += stray_figures(text, [_number(m) for m in _MONEY.finditer(text)], lex.purchases)
    if kind == "percentage" and not cue:
        taken += [m.span() for m in STATISTIC.finditer(text)]  # "99% of our customers love it"
    for m in _tokens(kind, text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value = _number(m)
        if kind in ("number", "integer"):
            if cue:
                promised.append(value)
            continue
        before, after = text[:m.start()], text[m.end():]
        threshold = THRESHOLD_BEFORE.search(before) is not None or THRESHOLD_AFTER.search(after) is not None
        limit = limit or threshold
        is_policy = any(_close(value, p) for p in policy)
        is_known = any(_close(value, k) for k in known)
        if cue and BASE_OF.search(before):
            stated.append(value)  # "$50 of your $75 purchase": the base of a part
        elif cue and (is_known or is_policy) and (_names_purchase(lex, after) or _names_role(lex, after)):
            # a known amount named as the purchase's or a declared role's: "a $900 claim pays out $650", "$180 a night,
            # $1,080 stay total" (an amount no tool gave stays a promise)
            purchase_amounts.append(value)
        elif cue and not (threshold and is_policy) and not (is_known and _LIMIT_NOUN.search(before)):
            # a known limit named as one ("capped at your coverage limit of $25,000") is stated, not promised;
            # "I can pay out up to $25,000" promises it
            promised.append(value)
        elif is_known:
            stated.append(value)
        elif is_policy:
            continue
        elif not cue and lex.role.search(text):
            stated.append(value)
        else:
            unexplained.append(value)
    # beside another promised amount a purchase's amount is its base; alone, it is what is promised ("I'll pay out a $1,200 claim")
    (stated if len(promised) > promised_before else promised).extend(purchase_amounts)
    return limit
