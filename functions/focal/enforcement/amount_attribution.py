"""What each amount of one clause is (focal.enforcement.draft_reading): promised, stated (a known value, another
role, the base of a share), a policy figure, or unexplained.

- in a clause with a cue, an amount is promised, unless it is the base of a part ("$50 of your $75 purchase"),
  a known amount named as the purchase's or a declared role's ("a $900 claim pays out $650"), a threshold that
  restates a policy figure ("reimbursements above $50 need a review") or a known limit named as one ("capped at
  your coverage limit of $25,000");
- in a clause without one, an amount equal to a known value or given another role is stated, a policy figure
  is nothing to read, and anything else is unexplained;
- a neutral clause (refused, reported, sent to review) promises nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from focal.enforcement.amount_clauses import Clause
from focal.enforcement.amount_cues import BASE_OF, THRESHOLD_AFTER, THRESHOLD_BEFORE, Lexicon
from focal.enforcement.amount_forms import STATISTIC, stray_figures
from focal.enforcement.amount_tokens import MONEY, PERCENT, number, share
from focal.enforcement.linear_scan import Suffixes, close, inside

_I = re.IGNORECASE
_DISCOUNT = re.compile(r"\s*(?:off|discount|savings?|reduction|markdown|cheaper|lower)\b", _I)
_YOU_PAID = re.compile(r"\s*(?:that\s+)?(?:you|it)\s+(?:paid|spent|cost|were\s+charged)\b", _I)
_LIMIT_NOUN = re.compile(r"\b(?:limit|cap|maximum|ceiling|threshold)\s+(?:of|is|at)\s+(?:a\s+|the\s+)?$", _I)


@dataclass
class Tally:
    """The amounts of the clauses read so far, by what they are."""
    promised: list[float] = field(default_factory=list)
    stated: list[float] = field(default_factory=list)  # a known value or another role: what "the whole amount" can be
    shares: list[tuple[float, float | None]] = field(default_factory=list)  # (percent, its base when written)
    unexplained: list[float] = field(default_factory=list)  # amounts no known value explains


@dataclass
class _Context:
    kind: str
    lex: Lexicon
    text: str
    cue: bool
    known: list[float]
    policy: frozenset[float]
    before: Suffixes
    _role: bool | None = None

    def role_named(self) -> bool:
        """The clause gives an amount another role ("price", "fee", a declared role): read once per clause."""
        if self._role is None:
            self._role = self.lex.role.search(self.text) is not None
        return self._role


def read_clause(kind: str, lex: Lexicon, clause: Clause, cue: bool, known: list[float], policy: frozenset[float],
                tally: Tally, amounts: list[re.Match[str]]) -> bool:
    """Attribute every amount of one clause (`amounts`: its tokens of `kind`) into `tally`.
    True when the clause states a limit ("capped at your limit of $25,000")."""
    if clause.neutral:
        return False  # refused, reported or sent to review: its amounts promise nothing
    text, promised_before = clause.text, len(tally.promised)
    taken = _shares(kind, lex, text, cue, tally)
    if cue and kind == "money":  # "you'll get 75 back": a figure without a currency in a promise
        tally.promised += stray_figures(text, [number(m) for m in MONEY.finditer(text)], lex.purchases)
    if kind in ("number", "integer"):
        tally.promised += [number(m) for m in amounts if cue and not inside(taken, m.start())]
        return False
    context = _Context(kind, lex, text, cue, known, policy, Suffixes(text))
    limit, purchase_amounts = False, []
    for m in amounts:
        if inside(taken, m.start()):
            continue
        what, threshold = _attribute(context, m)
        limit = limit or threshold
        if what == "purchase":
            purchase_amounts.append(number(m))
        elif what:
            getattr(tally, what).append(number(m))
    # beside another promised amount a purchase's amount is its base; alone, it is what is promised ("I'll pay out a $1,200 claim")
    (tally.stated if len(tally.promised) > promised_before else tally.promised).extend(purchase_amounts)
    return limit


def _shares(kind: str, lex: Lexicon, text: str, cue: bool, tally: Tally) -> list[tuple[int, int]]:
    """Shares a money promise gives ("half of your $120 purchase", "you'll get 50% back"), added to `tally`; and the
    spans whose figures are no amount of the field (the shares, or statistics: "99% of our customers")."""
    taken: list[tuple[int, int]] = []
    if cue and kind == "money":
        for m in lex.share.finditer(text):
            base = MONEY.search(m.group("base")) if m.group("base") else None
            tally.shares.append((share(m), number(base) if base else None))
            taken.append(m.span())
        for m in PERCENT.finditer(text):  # a share of the whole ("10% off" is a discount)
            if not inside(taken, m.start()) and not _DISCOUNT.match(text, m.end()):
                tally.shares.append((number(m), None))
    if kind == "percentage" and not cue:
        taken += [m.span() for m in STATISTIC.finditer(text)]  # "99% of our customers love it"
    return taken


def _attribute(c: _Context, m: re.Match[str]) -> tuple[str, bool]:
    """What one money or percentage amount is — "promised", "stated", "purchase", "unexplained", or "" (a policy
    figure) — and whether it is written as a threshold ("above $50", "$50 or more")."""
    value, start, end = number(m), m.start(), m.end()
    threshold = c.before.ends_with(THRESHOLD_BEFORE, start) or THRESHOLD_AFTER.match(c.text, end) is not None
    is_policy = any(close(value, p) for p in c.policy)
    is_known = any(close(value, k) for k in c.known)
    if c.cue:
        return _in_promise(c, start, end, threshold, is_known, is_policy), threshold
    if is_known:
        return "stated", threshold
    if is_policy:
        return "", threshold
    return ("stated" if c.role_named() else "unexplained"), threshold


def _in_promise(c: _Context, start: int, end: int, threshold: bool, is_known: bool, is_policy: bool) -> str:
    """An amount in a clause with a cue."""
    if c.before.ends_with(BASE_OF, start):
        return "stated"  # "$50 of your $75 purchase": the base of a part
    if (is_known or is_policy) and _names_purchase(c.lex, c.text, end):
        # a known amount named as the purchase's: "a $900 claim pays out $650" (an amount no tool gave stays a promise)
        return "purchase"
    if (is_known or is_policy) and _names_role(c.lex, c.text, end):
        # a known amount named as one of the field's other roles is that role's, whatever the clause moves: "$180 a
        # night, $1,080 stay total", "your €150 deposit is paid back" (a deposit returned is no goodwill credit)
        return "stated"
    if not (threshold and is_policy) and not (is_known and c.before.ends_with(_LIMIT_NOUN, start)):
        # a known limit named as one ("capped at your coverage limit of $25,000") is stated, not promised;
        # "I can pay out up to $25,000" promises it
        return "promised"
    return "stated" if is_known else ""


def _names_purchase(lex: Lexicon, text: str, end: int) -> bool:
    """The amount is the purchase's own, written before it: "a $700 claim", "your $75 booking"."""
    return lex.purchase_after.match(text, end) is not None


def _names_role(lex: Lexicon, text: str, end: int) -> bool:
    """The amount is what the customer paid ("of the $75 you paid") or one of the roles the field declares
    (`amount_words.other_roles`), named right after it: "$1,080 stay total", "a $25 resort fee". Built-in role
    words do not count here: "$75 in total" may be the promise's own total."""
    return _YOU_PAID.match(text, end) is not None or lex.role_after.match(text, end) is not None
