"""A draft cut into sentences and clauses, each clause marked with whether it carries a cue of the field
(focal.enforcement.draft_reading): a cue that moves an amount to the customer, or one that is refused ("I can't
credit"), reported ("you asked for a reimbursement"), a noun ("the reimbursement policy") or sent to review —
then the clause is *neutral*: its amounts promise nothing.

Each clause is scanned once per pattern; what is asked about the words just before a cue is read in the words
before it (focal.enforcement.linear_scan), so a long clause costs its length, not its length times its cues.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from focal.enforcement.amount_cues import (
    CHARGE,
    DESTINATION,
    NEGATION,
    PERCENT_CUES,
    REFUSED_AFTER,
    REPORTED,
    REVIEW,
    TURNAROUND,
    Lexicon,
)
from focal.enforcement.linear_scan import Suffixes

_I = re.IGNORECASE
SENTENCE = re.compile(r"(?:\d\.\d|[^.!?\n])+[.!?]?")
_SUBJECT = r"(?=(?:i|i'll|i've|i'm|we|we'll|we've|we're|you|you'll|you've|you're|it|it'll|it's|they|our|your|this|that|the|a|an)\b)"
_CLAUSE = re.compile(
    rf"\s*;\s*|\s+[—–-]{{1,2}}\s+{_SUBJECT}|,?\s+but\s+|,\s*(?:and|while|whereas|although|though|however|yet|so)\s+"
    rf"|\s+and\s+{_SUBJECT}", _I)
_NOUN_USE = re.compile(r"\w*\s+(?:requests?|claims?|applications?|polic(?:y|ies)|process|eligibility|reviews?|status|forms?|"
                       r"window|period|rules?|terms)\b", _I)
_GRANTED = re.compile(r"\b(?:accepted|approved|granted|processed|confirmed|issued|completed)\b", _I)


@dataclass
class Clause:
    text: str
    cue: bool          # a cue that is not refused, reported or sent to review
    neutral: bool      # a cue that is


def cue_patterns(kind: str, hints: list[str], lex: Lexicon) -> Cues:
    """The field's hints (with their inflections), then the built-in cues of its kind. A hint of one word and five
    letters or more is also found as the head of a compound ("Gutschrift" in "Kulanzgutschrift", where German writes a
    kind of credit as one word) and with a plural in -en/-n."""
    out = [re.compile(rf"\b{_compound(h)}{re.escape(h)}(?:s|es|ed|d|ing|en|n)?\b", _I) for h in hints]
    if kind == "money":
        out += [lex.money_cues, DESTINATION]
    elif kind == "percentage":
        out.append(PERCENT_CUES)
    return Cues(out, len(hints), lex)


def _compound(hint: str) -> str:
    return r"(?:[^\W\d_]{3,})?" if len(hint) >= 5 and hint.isalpha() else ""


@dataclass(frozen=True)
class Cues:
    """The patterns of `cue_patterns`: the first `own` are the field's hints; `lex` names the roles and verbs."""
    patterns: list[re.Pattern[str]]
    own: int
    lex: Lexicon


def sentences(text: str, cues: Cues) -> list[list[Clause]]:
    """The draft's sentences, each a list of its clauses."""
    turned = TURNAROUND.search(text) is not None  # "…needs a review, and I've approved it": no review spares it
    out = []
    for sentence in (s.strip() for s in SENTENCE.findall(text)):
        if sentence:
            out.append([_clause(part, cues, turned) for part in filter(None, (p.strip() for p in _CLAUSE.split(sentence)))])
    return out


def _found(part: str, cues: Cues) -> list[re.Match[str]]:
    """Every cue of the clause, pattern by pattern; where the money ends up is none in a clause about a charge, and a
    built-in cue word is none inside a role named as a noun ("the deposit is €800" moves nothing to the customer)."""
    charged = None
    found: list[re.Match[str]] = []
    roles = [m.span("role") for m in cues.lex.role_noun.finditer(part)]
    for i, c in enumerate(cues.patterns):
        if c is DESTINATION:
            charged = CHARGE.search(part) is not None if charged is None else charged
            if charged:
                continue
        matches = list(c.finditer(part))
        if i >= cues.own and roles:
            matches = [m for m in matches if cues.lex.own_verbs.match(part, m.start())
                       or not any(start <= m.start() and m.end() <= end for start, end in roles)]
        found += matches
    return found


def _clause(part: str, cues: Cues, turned: bool) -> Clause:
    found = _found(part, cues)
    before = Suffixes(part)
    # refused ("I can't credit"), reported ("you asked for a reimbursement") or a noun ("the reimbursement policy")
    denied = [m.start() for m in found if before.ends_with(NEGATION, m.start()) or before.ends_with(REPORTED, m.start())]
    first_denied = min(denied, default=None)
    last_granted = max((m.start() for m in _GRANTED.finditer(part)), default=-1)
    # a refusal governs the rest of its clause: "I won't be able to issue the $75 credit"
    # …unless the noun is granted: "your reimbursement request has been approved" promises it
    refused = [m for m in found if (first_denied is not None and m.start() >= first_denied)
               or (_NOUN_USE.match(part, m.end()) and last_granted < m.end())]
    # refused, reported, sent to review, or refused after the amount — with a cue or without one ("the
    # remaining $25 needs a review"): its amounts promise nothing
    neutral = (bool(found) and len(refused) == len(found)) or not turned and (
        REVIEW.search(part) is not None or REFUSED_AFTER.search(part) is not None)
    return Clause(part, bool(found) and not neutral, neutral)
