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
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from focal.enforcement.amount_forms import NUMBER_WORDS, names_quantity, normalise, normalise_percent, repeated, stray_figures
from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.number_words import words_value

NUMERIC = ("money", "percentage", "number", "integer")
_I = re.IGNORECASE
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?"
_MONEY = re.compile(
    rf"(?:[$€£]\s?|\b(?:usd|us\$|eur|gbp)\s?)(?P<a>{_NUM})(?![\d%])"
    rf"|\b(?P<b>{_NUM})\s?(?:dollars?|bucks|usd|euros?|eur|pounds|quid|gbp)\b"
    r"|(?<![\w.$€£,/-])(?P<c>\d+\.\d{2})(?![\w.%/-])(?!\s?percent)", _I)
_PERCENT = re.compile(r"(?<![\w.])(?P<p>\d+(?:\.\d+)?)\s?(?:%|percent\b|per\s?cent\b|pct\b)", _I)
_BARE = re.compile(r"(?<![\w.$€£/-])(?P<n>\d+(?:\.\d+)?)(?![\w./-])")
_SHARES = {"half": 50.0, "a half": 50.0, "a quarter": 25.0, "a third": 100 / 3, "two thirds": 200 / 3,
           "three quarters": 75.0, "all": 100.0}

# ----------------------------------------------------------------------------- amounts written out
_WORDS = re.compile(NUMBER_WORDS + r"(?=\s+(?:dollars?|bucks|usd|euros?|pounds|quid|percent|per\s?cent)\b)", _I)


def spell_out(text: str) -> str:
    """"seventy five dollars" → "75 dollars", "one hundred and twenty dollars" → "120 dollars"."""
    def replace(m: re.Match[str]) -> str:
        value = words_value(m.group(0))
        return m.group(0) if value is None else str(value)
    return _WORDS.sub(replace, text)


# ----------------------------------------------------------------------------- cues and markers
def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), _I)


def _money_cues(verbs: str, purchases: str) -> re.Pattern[str]:
    """The built-in value-movement words, plus the field's verbs; "… back <purchase>s" is not money coming back."""
    back = _BACK.format(not_after=rf"in\s+stock|soon|later|(?:{purchases})s?\b" if purchases else r"in\s+stock|soon|later")
    return _any(*([rf"\b(?:{verbs})\w*"] if verbs else []), *_MONEY_CUES_HEAD, back, *_MONEY_CUES_TAIL)


_BACK = (r"\b(?:get|gets|getting|got|give|gives|giving|have|has|receive|send|sending|sent|pay|paid|put|putting|money|funds|cash)"
         r"(?:'s|’s)?(?:\s+[^\s.;!?]+){{1,6}}?\s+back\b(?!\s+(?:{not_after}))")
_MONEY_CUES_HEAD = (
    r"\breimburs\w*", r"\bcredit(?:s|ed|ing)?\b(?!\s+cards?\b)", r"\bstore\s+credit\b",
    r"\bcompensat\w*", r"\bgoodwill\b", r"\bvouchers?\b", r"\bpay(?:s|ing)?\s*(?:out|back)\b|\bpaid\s+(?:out|back)\b",
    r"\bpayouts?\b", r"\brevers(?:e|ed|ing|al)\b", r"\bchargebacks?\b", r"\bapprov(?:e|ed|ing)\b",
    r"\b(?:issue[sd]?|issuing)\s+(?:you\b|your\b|a\b|an\b|the\b|[$€£\d])", r"\btransfer(?:s|red|ring)?\b",
    r"\bdeposit(?:s|ed|ing)?\b", r"\btop(?:s|ped|ping)?\s+up\b", r"\bowe\b", r"\bwaiv(?:e|es|ed|ing|er)\b", r"\bforgiv\w*", r"\bdeduct\w*",
    r"\breduc(?:e|es|ed|ing|tion)\s+(?:\w+\s+){0,3}?(?:by|of)\b", r"\bwr(?:ite|ites|iting|itten|ote)\s+off\b",
    r"\b(?:wip(?:e|es|ed|ing)|zero(?:es|ed|ing)?|clear(?:s|ed|ing)?)\s+(?:out\s+)?(?:your|the)\b",
    r"(?:[$€£]\s?\d+(?:[,.]\d+)*|\bmoney|\bfunds|\bcash|\bpayment)\s+(?:is|are|will\s+be)\s+on\s+(?:its|their|the)\s+way\b",
    r"\b(?:send|sent|head|com|mak|go)\w*\s+(?:[$€£]\s?\d+(?:[,.]\d+)*\s+)?your\s+way\b",
    r"\bprocess(?:ed|ing)?\s+(?:a\s+|an\s+|the\s+|your\s+)?(?:[$€£]|\d)",
    r"(?:[$€£]\s?\d+(?:[,.]\d+)*|\b\d+(?:[,.]\d+)*\s?dollars)\s+for\s+you\b",
    r"\b(?:we|i)(?:'ll|\s+will|\s+can|\s+could)?\s+cover\b",
    r"\b(?:give|giving|gave|send|sending|sent|pay|paying|award|awarding|grant|granting|wire|wiring|offer|offering)"
    r"\s+you\b",
    r"\byou(?:'ll|'d|\s+will|\s+would|\s+should|\s+can|\s+could|\s+are\s+going\s+to|'re\s+going\s+to|\s+also)?"
    r"(?:\s+(?:soon|then|now|shortly|also|still|definitely|simply))?\s+(?:receive|get|be\s+getting|be\s+receiving|be\s+paid|be\s+sent)\b",
    r"\b(?:get|gets|getting|got)\s+back\b(?!\s+to\s+(?:you|us|me)\b)",
)
_MONEY_CUES_TAIL = (
    r"(?:[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:dollars?|bucks|usd|euros?|pounds))\s*,?\s+back\b",
    r"\b(?:com(?:e|es|ing)|go(?:es|ing)?|head(?:s|ed|ing)?|flow(?:s|ing)?|sent|send(?:ing)?)\s+back\s+to\s+you\b",
    r"\bback\s+(?:on|to|into|onto|in)\s+(?:your|the)\s+(?:\w+\s+){0,2}?"
    r"(?:card|account|bank|payment|method|wallet|balance|paypal|visa|mastercard|amex|statement)",
    r"\b(?:return(?:s|ed|ing)?|go(?:es)?|going|went|head(?:s|ed|ing)?|land(?:s|ed)?|post(?:s|ed)?|appear(?:s|ed)?|"
    r"show(?:s|ing)?\s+up|reflect(?:s|ed)?|see|send(?:s|ing)?|sent|transfer(?:s|red|ring)?|wire[sd]?|wiring|mov(?:e|es|ed|ing)|"
    r"put(?:s|ting)?|appl(?:y|ies|ied|ying))\b(?:\s+[^\s.;!?]+){0,6}?\s+(?:to|into|onto|on|in)\s+(?:your|the)\s+"
    r"(?:\w+\s+){0,2}?(?:statement|card|account|bank|balance|wallet|paypal|visa|mastercard|amex|payment\s+method)\b",
    r"\breturn(?:s|ed|ing)?\s+(?:you\s+)?(?:your|the|all|every)\s+(?:\w+\s+)?(?:money|payment|funds|cash|[$€£\d])",
    r"\ban?\s+(?:cheque|check)\s+(?:for|of)\b",
    r"\boff\b",
)
# Where the money ends up ("…should be sitting in your bank again"); not in a clause about a charge.
_DESTINATION = re.compile(r"\b(?:in|on|to|into|onto)\s+your\s+(?:\w+\s+){0,2}?"
                          r"(?:bank|card|account|statement|balance|wallet|paypal|visa|mastercard|amex|payment\s+method)\b", _I)
_CHARGE = re.compile(r"\b(?:charg\w*|bill(?:s|ed|ing)?|debit\w*|paid|pay\s+with|spent|on\s+file|saved)\b", _I)
_PERCENT_CUES = _any(
    r"\boff\b", r"\bdiscount\w*", r"\bsav(?:e|es|ed|ing|ings)\b", r"\breduc\w*", r"\bcut\b", r"\bmark(?:ed)?\s*down\b",
    r"\bknock\w*", r"\blower(?:ed)?\s+by\b", r"\bpromo\w*", r"\bcoupons?\b", r"\brebates?\b", r"\bcash\s?back\b",
    r"\bcheaper\b", r"\bless\b", r"\binstead\s+of\b", r"\brather\s+than\b", r"\bdown\s+from\b",
    r"\b(?:usually|normally|regularly|originally)\b",
)
# Phrases that promise an unstated whole, or the purchase's own amount (the field's verbs and purchases added).
def _whole(v: str, p: str) -> re.Pattern[str]:
    return _any(
        *([rf"\bfull\s+(?:{v})"] if v else []), r"\bin\s+full\b", rf"\bfully\s+(?:{_or(v)}reimburs|credit)\w*",
        rf"\b(?:{_or(v)}reimburs|credit)\w*\s+fully\b",
        rf"\b(?:whole|entire|full|complete|total)\s+(?:amount|sum|price|cost|payment|purchase|{_or(p)}balance|value|charge|bill|invoice|"
        rf"{_or(v)}thing)\b",
        r"\beverything\b", r"\bevery\s+(?:cent|penny|dollar)\b", r"\ball\s+(?:of\s+)?(?:your|the)\s+money\b", r"\ball\s+of\s+it\b",
        r"\bit\s+all\b", r"\bwhat\s+you\s+(?:paid|spent)\b", r"\bthe\s+(?:amount|price|sum)\s+you\s+paid\b",
        r"\b(?:that|this|the\s+same)\s+(?:amount|sum|much|figure)\b", r"\bthat(?:'s|\s+is)\s+(?:what|how\s+much)\b",
        r"\bthe\s+total\b",
    )


def _object(v: str, p: str, r: str) -> re.Pattern[str]:
    named = rf"(?:{p})\s+\w+|" if p else ""          # "<verb> <purchase> B-123"
    verbed = rf"(?:{v})(?:ed|d)|" if v else ""       # "the <purchase> will be <verb>ed"
    return _any(
        rf"(?<!the\s)(?<!a\s)(?<!an\s)(?<!your\s)(?<!my\s)(?<!any\s)\b(?:{_or(v)}reimburse|credit|compensate)(?:s|d|ed|ing)?\s+"
        rf"(?:you\s+)?(?:for\s+)?(?:it|them|this|that|these|those|{named}(?:your|the|this|that)\s+"
        rf"(?!{_or(v)}money|amount|difference|rest|remaining|remainder|{_or(r)}fee|postage|tax|charge)\w+)\b",
        r"\b(?:get|have|receive|give)\s+(?:it|them|that|your\s+money|the\s+money|your\s+cash|your\s+funds)\s+back\b",
        r"\byour\s+money\s+back\b",
        rf"\b(?:it|this|that|they|{_or(p)}purchase|payment|charge)(?:\s+will|'ll|\s+is\s+going\s+to|\s+has\s+been|\s+have\s+been|"
        rf"\s+was|\s+is\s+being|\s+gets?|\s+got)\s+(?:be\s+)?(?:fully\s+)?(?:{verbed}reimbursed|credited)\b",
    )


def _or(alternatives: str) -> str:
    return f"{alternatives}|" if alternatives else ""


def _words(words: list[str]) -> str:
    """Plain words or phrases as one alternation (longest first; a space matches any run of spaces)."""
    unique = sorted({w.strip().lower() for w in words if w.strip()}, key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in unique)


_NEGATION = re.compile(
    r"\b(?:can't|can’t|cannot|can\s+not|couldn't|could\s+not|won't|will\s+not|wouldn't|would\s+not|unable\s+to|"
    r"not\s+able\s+to|not\s+allowed\s+to|not\s+authori[sz]ed\s+to|not\s+in\s+a\s+position\s+to|don't|do\s+not|"
    r"doesn't|does\s+not|didn't|did\s+not|isn't|is\s+not|aren't|are\s+not|wasn't|was\s+not|no\s+longer|never|nothing\s+to|"
    r"stopp(?:ed|ing)|stop|cancel(?:led|ed|ling|ing)?|withdr[ae]wn?|halt(?:ed)?|declin(?:e|ed|ing)|den(?:y|ied)|reject(?:ed)?|"
    r"no|not)\b(?!\s+(?:worry|worries|problem|hesitate|forget|doubt)\b)(?:\s+[\w'’$€£%.-]+){0,3}?\s*$", _I)
_REPORTED = re.compile(
    r"\b(?:you(?:'ve|\s+have)?\s+(?:asked|requested|wanted|mentioned|said|hoped|expected|claimed)|you\s+were\s+(?:hoping|expecting)|"
    r"your\s+(?:request|claim)|you(?:'d|\s+would)\s+like|you\s+want(?:ed)?)\b[^,;]{0,40}$", _I)
_REVIEW = re.compile(
    r"(?<!n't\s)(?<!not\s)(?<!no\s)\b(?:needs?|requires?|required|must\s+(?:be|go|get)|subject\s+to|go(?:es)?\s+(?:to|through))\s+(?:a\s+|an\s+)?"
    r"(?:\w+\s+){0,2}?(?:review|approval|sign-off|authori[sz]ation|manager|supervisor)\b"
    r"|\b(?:will|to|can|must)\s+review\b|\breview(?:ed)?\s+by\b"
    r"|\b(?:(?:has|have|needs?|need)\s+to|must|should)\s+be\s+(?:approved|reviewed|authori[sz]ed|checked|signed\s+off)\b", _I)
def _role(r: str) -> re.Pattern[str]:
    return re.compile(
        r"\b(?:cost|costs|costing|price|prices|priced|pricing|fee|fees|charge|charges|charged|postage|"
        r"came\s+to|comes\s+to|come\s+to|total|totals|totalled|totaled|subtotal|paid|pay|spent|spend|bill|billed|worth|"
        rf"valued|sells?|sold|retails?|tax|taxes|bought|purchased|minimum{_or_after(r)})\b", _I)


def _or_after(alternatives: str) -> str:
    return f"|{alternatives}" if alternatives else ""


_THRESHOLD_BEFORE = re.compile(
    r"\b(?:above|over|more\s+than|greater\s+than|higher\s+than|larger\s+than|bigger\s+than|exceed(?:s|ing)?|beyond|"
    r"in\s+excess\s+of|up\s+to|under|below|less\s+than|at\s+most|no\s+more\s+than|maximum(?:\s+of)?|max|"
    r"limit(?:ed)?\s+(?:of|to|is)|cap(?:ped)?\s+(?:of|at|is)|at\s+least|threshold\s+(?:of|is)|ceiling\s+(?:of|is))"
    r"\s+(?:a\s+|the\s+|of\s+)?$", _I)
_THRESHOLD_AFTER = re.compile(r"^\s*(?:or\s+(?:more|less|above|below|under|over)|and\s+(?:above|over|up|under|below)|"
                              r"limit|cap|maximum|threshold|ceiling)\b", _I)
_BASE_OF = re.compile(r"(?:\d\S*\s*(?:dollars?|bucks|%|percent)?|half|part|some|portion|most|rest|share)\s+(?:out\s+)?of\s+"
                      r"(?:your|the|this|that)?\s*$", _I)
def _share_pattern(v: str, p: str) -> re.Pattern[str]:
    shares = "|".join(sorted(_SHARES, key=len, reverse=True))
    verb = rf"(?:\s+(?:a\s+)?(?:{v})\b)?" if v else ""  # "half <verb> of it"
    return re.compile(
        rf"(?P<share>(?<![\w.])\d+(?:\.\d+)?\s?(?:%|percent\b|per\s?cent\b)|\b(?:{shares})\b)"
        rf"{verb}\s+(?:of\s+)?(?:the\s+|your\s+|that\s+|this\s+|what\s+)?"
        rf"(?:(?P<base>[$€£]\s?(?:{_NUM})|(?:{_NUM})\s?dollars)|{_or(p)}purchase|total|price|amount|cost|payment|it\b|you\s+paid|"
        r"money|bill)", _I)


@dataclass(frozen=True)
class _Lexicon:
    """A field's patterns: the built-in generic ones with its `amount_words` added."""
    money_cues: re.Pattern[str]
    whole: re.Pattern[str]
    object: re.Pattern[str]
    share: re.Pattern[str]
    role: re.Pattern[str]
    purchases: str  # the field's purchase words as one alternation ("" without any)


@lru_cache(maxsize=256)
def _lexicon(verbs: tuple[str, ...], purchases: tuple[str, ...], roles: tuple[str, ...]) -> _Lexicon:
    v, p, r = _words(list(verbs)), _words(list(purchases)), _words(list(roles))
    return _Lexicon(_money_cues(v, p), _whole(v, p), _object(v, p, r), _share_pattern(v, p), _role(r), p)


def lexicon(field_def: ProfileFieldDefinition) -> _Lexicon:
    w = field_def.amount_words
    return _lexicon(tuple(w.verbs), tuple(w.purchases), tuple(w.other_roles))


_DISCOUNT = re.compile(r"\s*(?:off|discount|savings?|reduction|markdown|cheaper|lower)\b", _I)
_PRONOUN_START = re.compile(r"^\s*(?:it|that|this|which|(?:the\s+)?(?:amount|sum|figure))(?:'s|\s+is|\s+will|'ll|\s+comes|\s+should|"
                            r"\s+would|\s*:)", _I)
_NOUN_USE = re.compile(r"\w*\s+(?:requests?|claims?|applications?|polic(?:y|ies)|process|eligibility|reviews?|status|forms?|"
                       r"window|period|rules?|terms)\b", _I)
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


def _cues(kind: str, hints: list[str], lex: _Lexicon) -> list[re.Pattern[str]]:
    out = [re.compile(rf"\b{re.escape(h)}(?:s|es|ed|d|ing)?\b", _I) for h in hints]
    if kind == "money":
        out += [lex.money_cues, _DESTINATION]
    elif kind == "percentage":
        out.append(_PERCENT_CUES)
    return out


def _clauses(text: str, cues: list[re.Pattern[str]]) -> list[list[_Clause]]:
    out = []
    for sentence in (s.strip() for s in _SENTENCE.findall(text)):
        if not sentence:
            continue
        clauses = []
        for part in filter(None, (p.strip() for p in _CLAUSE.split(sentence))):
            found = [m for c in cues for m in c.finditer(part) if c is not _DESTINATION or not _CHARGE.search(part)]
            starts = [m.start() for m in found]
            # refused ("I can't credit"), reported ("you asked for a reimbursement") or a noun ("the reimbursement policy")
            denied = [m.start() for m in found if _NEGATION.search(part[:m.start()]) or _REPORTED.search(part[:m.start()])]
            # a refusal governs the rest of its clause: "I won't be able to issue the $75 credit"
            refused = [m.start() for m in found if (denied and m.start() >= min(denied)) or _NOUN_USE.match(part, m.end())]
            neutral = bool(starts) and (len(refused) == len(starts) or _REVIEW.search(part) is not None)
            clauses.append(_Clause(part, bool(starts) and not neutral, neutral))
        out.append(clauses)
    return out


def _tokens(kind: str, text: str) -> list[re.Match[str]]:
    if kind == "money":
        return list(_MONEY.finditer(text))
    if kind == "percentage":
        return list(_PERCENT.finditer(text))
    return list(_BARE.finditer(text))


def _number(m: re.Match[str]) -> float:
    raw = next(g for g in m.groups() if g is not None)
    return float(raw.replace(",", ""))


def _share(m: re.Match[str]) -> float:
    raw = m.group("share").lower()
    digits = re.match(r"\d+(?:\.\d+)?", raw)
    return float(digits.group(0)) if digits else _SHARES[raw]


@lru_cache(maxsize=64)
def _figures(texts: tuple[str, ...], kind: str) -> frozenset[float]:
    return frozenset(_number(m) for t in texts for m in _tokens(kind, _normalised(kind, t)))


def _normalised(kind: str, text: str) -> str:
    if kind == "money":
        return spell_out(normalise(text))
    if kind == "percentage":
        return spell_out(normalise_percent(text))
    return unicodedata.normalize("NFKC", text)


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


def known_values(agent: AgentConfig, kind: str, known: dict[str, Any], skip: set[str]) -> list[float]:
    """The turn's known values of the same kind (a booking total from a tool), not the fields being read."""
    kinds = {"money": ("money", "number"), "percentage": ("percentage",)}.get(kind, ("number", "integer", "money"))
    out = []
    for name, value in known.items():
        f = agent.field(name)
        if name in skip or f is None or f.field_type not in kinds or isinstance(value, bool):
            continue
        try:
            out.append(float(str(value).replace("$", "").replace(",", "").replace("%", "")))
        except ValueError:
            continue
    return out


def _show(kind: str, value: float) -> str:
    shown = f"{value:,.2f}".rstrip("0").rstrip(".") if value % 1 else f"{value:,.0f}"
    return f"${shown}" if kind == "money" else f"{shown}%" if kind == "percentage" else shown


def read_amount(field_def: ProfileFieldDefinition, draft: str, known: list[float], policy: frozenset[float]) -> AmountReading:
    kind = field_def.field_type
    text = _normalised(kind, draft)
    lex = lexicon(field_def)
    sentences = _clauses(text, _cues(kind, field_def.extraction_hints, lex))
    reading = AmountReading(cue=any(c.cue or c.neutral for s in sentences for c in s))
    promised: list[float] = []
    stated: list[float] = []  # attributed to a known value or another role: what "the whole amount" can be
    wholes: list[str] = []    # "whole" (in full) or "object" (reimburse the purchase) in clauses without an amount
    shares: list[tuple[float, float | None]] = []
    previous_cue, repeats, unread = False, [], []
    for clauses in sentences:
        for i, clause in enumerate(clauses):
            # "Your reimbursement is approved. It's $75." — the second sentence goes on about the first one's cue
            # "Let me reimburse you - it's $75": a clause that goes on about the previous clause's cue (a
            # question only within the same sentence: "…reimbursement. It was $75, right?" asks about the total)
            before_cue = clauses[i - 1].cue if i else previous_cue and not clause.text.endswith("?")
            cue = clause.cue or (before_cue and not clause.neutral and _PRONOUN_START.search(clause.text) is not None)
            before = len(promised) + len(shares)
            _read_clause(kind, lex, clause, cue, known, policy, promised, stated, shares, reading.unexplained)
            if len(promised) + len(shares) > before and (again := repeated(clause.text, field_def.extraction_hints)):
                repeats.append(again)
            elif cue and len(promised) + len(shares) == before and (
                    names_quantity(clause.text) or (kind == "percentage" and _MONEY.search(clause.text))):
                unread.append(clause.text)  # "…the cost of it", "$6 instead of $12": an amount in other words
            if cue and kind == "money" and len(promised) + len(shares) == before:
                if lex.whole.search(clause.text):
                    wholes.append("whole")
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
    if reading.cue and kind in ("money", "percentage"):
        accounted = [*promised, *stated, *known, *policy, *reading.unexplained]
        reading.unexplained += stray_figures(text, accounted, lex.purchases)
    if reading.unexplained and reading.cue:
        shown = ", ".join(_show(kind, v) for v in reading.unexplained)
        reading.uncertain = f"the answer states {shown}, which no known value explains"
    else:
        reading.unexplained = []
    if unread and not promised and not reading.uncertain:
        # "I'll send you the cost of it": a promise whose amount is in words the reading cannot place
        reading.uncertain = f"the answer promises an amount the offline reading cannot place (\"{unread[0].strip()}\")"
    if len({round(v, 2) for v in promised}) > 1:
        shown = ", ".join(_show(kind, v) for v in sorted(set(promised)))
        reading.uncertain = f"the answer promises several amounts ({shown}): their total is not read"
    elif repeats:
        reading.uncertain = f"the answer promises an amount more than once (\"{repeats[0]}\"): the total is not read"
    if promised:
        reading.value = max(promised)
    return reading


def _read_clause(
    kind: str, lex: _Lexicon, clause: _Clause, cue: bool, known: list[float], policy: frozenset[float], promised: list[float],
    stated: list[float], shares: list[tuple[float, float | None]], unexplained: list[float],
) -> None:
    """Attribute every amount of one clause: promised, stated (known / another role), or unexplained."""
    if clause.neutral:
        return  # refused, reported or sent to review: its amounts promise nothing
    text, taken = clause.text, []
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
    for m in _tokens(kind, text):
        if any(a <= m.start() < b for a, b in taken):
            continue
        value = _number(m)
        if kind in ("number", "integer"):
            if cue:
                promised.append(value)
            continue
        before, after = text[:m.start()], text[m.end():]
        threshold = _THRESHOLD_BEFORE.search(before) is not None or _THRESHOLD_AFTER.search(after) is not None
        is_policy = any(_close(value, p) for p in policy)
        if cue and _BASE_OF.search(before):
            stated.append(value)  # "$50 of your $75 purchase": the base of a part
        elif cue and not (threshold and is_policy):
            promised.append(value)
        elif any(_close(value, k) for k in known):
            stated.append(value)
        elif is_policy:
            continue
        elif not cue and lex.role.search(text):
            stated.append(value)
        else:
            unexplained.append(value)
