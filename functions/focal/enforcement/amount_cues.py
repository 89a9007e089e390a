"""The words around an amount that say what it is: cues that it moves to the customer (money back, a
discount), refusals, reports and reviews that promise nothing, thresholds that restate a policy, shares
of a base, and a field's own `amount_words` added to the built-in generic ones. Read by
focal.enforcement.draft_reading."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from focal.models.agent import ProfileFieldDefinition

_I = re.IGNORECASE
NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?"
SHARES = {"half": 50.0, "a half": 50.0, "a quarter": 25.0, "a third": 100 / 3, "two thirds": 200 / 3,
           "three quarters": 75.0, "all": 100.0}


def _any(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), _I)


def _money_cues(verbs: str, purchases: str) -> re.Pattern[str]:
    """The built-in value-movement words, plus the field's verbs; "… back <purchase>s" is not money coming back."""
    back = _BACK.format(not_after=rf"in\s+stock|soon|later|(?:{purchases})s?\b" if purchases else r"in\s+stock|soon|later")
    return _any(*([rf"\b(?:{verbs})\w*"] if verbs else []), *_MONEY_CUES_HEAD, back, *_MONEY_CUES_TAIL)


# "Transfer" moves money only when what it moves may be money: "I'll transfer the seats to Lena" hands a thing
# over (its whole amount is no promise), "I'll transfer the $40 / the reimbursement / it" may pay out.
_MONEY_NOUNS = r"money|funds|cash|amount|sum|balance|reimburs\w*|credit|payment|deposit|difference|rest|remain\w*|remainder"
_TRANSFER = (r"\btransfer(?:s|red|ring)?\b(?!\s+(?:the|your|this|that|these|those|their|his|her|its)\s+"
             rf"(?!(?:{_MONEY_NOUNS}|full|whole|entire|total)\b)[^\W\d_]+\b)")
_BACK = (r"\b(?:get|gets|getting|got|give|gives|giving|have|has|receive|send|sending|sent|pay|paid|put|putting|money|funds|cash)"
         r"(?:'s|’s)?(?:\s+[^\s.;!?]+){{1,6}}?\s+back\b(?!\s+(?:{not_after}))")
_MONEY_CUES_HEAD = (
    r"\breimburs\w*", r"\bcredit(?:s|ed|ing)?\b(?!\s+cards?\b)", r"\bstore\s+credit\b",
    r"\bcompensat\w*", r"\bgoodwill\b", r"\bvouchers?\b", r"\bpay(?:s|ing)?\s*(?:out|back)\b|\bpaid\s+(?:out|back)\b",
    r"\bpayouts?\b", r"\brevers(?:e|ed|ing|al)\b", r"\bchargebacks?\b", r"\bapprov(?:e|ed|ing)\b",
    r"\b(?:issue[sd]?|issuing)\s+(?:you\b|your\b|a\b|an\b|the\b|[$€£\d])", _TRANSFER,
    r"\bdeposit(?:s|ed|ing)?\b", r"\btop(?:s|ped|ping)?\s+up\b", r"\bowe\b",
    r"\bwaiv(?:e|es|ed|ing|er)\b", r"\bforgiv\w*", r"\bdeduct(?:s|ed|ing)?\b",
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
# The negation is part of these promises ("you won't lose a penny"), so a refusal check never sees it before them.
_NEVER = r"\b(?:won't|will\s+not|don't|do\s+not|doesn't|never|not|no\s+need\s+to)\s+(?:\w+\s+){0,2}?"
# What the customer owes, taken to nothing: "I'll wipe your bill clean", "you won't pay a cent for it", "we'll
# write the balance off", "zero out the charge" (a promise of the whole, in no cue word of the field's own).
ZEROED = (
    r"\bwip(?:e|es|ed|ing)\s+(?:[\w'’]+\s+){0,3}?(?:clean|off|out)\b",
    rf"{_NEVER}(?:have\s+to\s+)?pay\s+(?:a\s+(?:single\s+)?(?:penny|cent|dime|thing)|anything)\b(?!\s+(?:more|extra|else))",
    r"\bwrit(?:e|es|ing|ten)\s+(?:[\w'’]+\s+){0,3}?off\b|\bwrote\s+(?:[\w'’]+\s+){0,3}?off\b",
    r"\bzero(?:s|ed|ing)?\s+(?:[\w'’]+\s+){0,3}?out\b",
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
    r"\b(?:give|gives|giving|gave|given|pay|pays|paying|paid|hand|hands|handing|handed)\s+back\b",
    r"(?:[$€£]\s?\d[\d,.]*|\b\d[\d,.]*\s?dollars)\s+(?:is|are|will\s+be)\s+(?:all\s+|now\s+)?yours\b",
    r"\byour\s+(?:card|account|bank|wallet|balance|statement)\s+(?:gets|will\s+get|receives|will\s+receive)\b",
    r"\b(?:return|give|send|hand)\w*\s+(?:you\s+)?(?:back\s+)?(?:every\s+(?:single\s+)?(?:cent|penny|dollar)|all\s+(?:of\s+)?(?:your|the)\s+money)\b",
    # money that stays with or comes back to the customer, said without moving it: "you won't lose a penny",
    # "you'll be made whole", "I'll void the $75 charge", "consider the charge gone", "its cost will come back"
    rf"{_NEVER}(?:lose|losing)\s+(?:a\s+(?:single\s+)?(?:penny|cent|dime|thing)|anything)\b", rf"{_NEVER}(?:be\s+)?out\s+of\s+pocket\b",
    r"\bmade\s+whole\b", r"\bmake\s+you\s+whole\b", r"\bvoid(?:s|ed|ing)?\b", *ZEROED,
    r"\b(?:i|we)\s+(?:can|could|'ll|will)\s+(?:do|go\s+(?:to|as\s+high\s+as)|stretch\s+to|manage)\s+[$€£\d]",
    r"\b(?:cancel|drop|remov|revers)\w*\s+(?:the|your|that|this)\s+(?:[$€£]\s?\d[\d,.]*\s+)?(?:charge|payment)s?\b",
    r"\bcharges?\s+(?:is\s+|are\s+|as\s+)?gone\b",
    r"\b(?:price|cost|money|amount|payment|funds)\s+(?:will\s+|to\s+)?(?:com(?:e|es|ing)|go(?:es|ing)?)\s+back\b",
    r"\boff\b",
)
# Where the money ends up ("…should be sitting in your bank again"); not in a clause about a charge.
DESTINATION = re.compile(r"\b(?:in|on|to|into|onto)\s+your\s+(?:\w+\s+){0,2}?"
                          r"(?:bank|card|account|statement|balance|wallet|paypal|visa|mastercard|amex|payment\s+method)\b", _I)
CHARGE = re.compile(r"\b(?:charg\w*|bill(?:s|ed|ing)?|debit\w*|paid|pay\s+with|spent|on\s+file|saved)\b", _I)
# Percentage cues that only say money comes back ("$30 back on your card", "a $30 credit"): a currency amount beside
# them is no share of a price (`DISCOUNT_CUES` are the others).
_MONEY_BACK_CUES = (r"\bcredit\w*", r"\bback\b", r"\bcash\s?back\b", r"\brebates?\b")
_DISCOUNT_CUES = (
    r"\boff\b", r"\bdiscount\w*", r"\bsav(?:e|es|ed|ing|ings)\b", r"\breduc\w*", r"\bcut\b", r"\bmark(?:ed)?\s*down\b",
    r"\bknock\w*",
    r"\b(?:lower|drop|slash|trim|bring\s+down|brought\s+down)\w*\s+(?:\w+\s+){0,3}?by\b", r"\bdrop(?:s|ped)?\s+(?:from|to)\b",
    r"\bpromo\w*", r"\bcoupons?\b",
    r"\b(?:i|we)\s+(?:can|could|'ll|will)\s+(?:do|go\s+(?:to|as\s+(?:high|far)\s+as)|stretch\s+to|manage)\b",
    r"\bcheaper\b", r"\bless\b", r"\d\s?%\s+lower\b",
    r"\binstead\s+of\b", r"\brather\s+than\b", r"\bdown\s+from\b",
    r"\b(?:usually|normally|regularly|originally)\b",
)
PERCENT_CUES = _any(*_DISCOUNT_CUES, *_MONEY_BACK_CUES)
DISCOUNT_CUES = _any(*_DISCOUNT_CUES)
# Phrases that promise an unstated whole, or the purchase's own amount (the field's verbs and purchases added).
def _whole(v: str, p: str) -> re.Pattern[str]:
    return _any(
        *([rf"\bfull\s+(?:{v})"] if v else []), r"\bin\s+full\b", rf"\bfully\s+(?:{_or(v)}reimburs|credit)\w*",
        rf"\b(?:{_or(v)}reimburs|credit)\w*\s+fully\b",
        rf"\b(?:whole|entire|full|complete|total)\s+(?:amount|sum|price|cost|payment|purchase|{_or(p)}balance|value|charge|bill|invoice|"
        rf"{_or(v)}thing)\b",
        r"\beverything\b", r"\bevery\s+(?:single\s+)?(?:cent|penny|dollar)\b",
        r"\ball\s+(?:of\s+)?(?:your|the)\s+money\b", r"\ball\s+of\s+it\b",
        r"\bit\s+all\b", r"\bwhat\s+you\s+(?:paid|spent)\b", r"\bthe\s+(?:amount|price|sum)\s+you\s+paid\b",
        r"\b(?:that|this|the\s+same)\s+(?:amount|sum|much|figure)\b", r"\bthat(?:'s|\s+is)\s+(?:what|how\s+much)\b",
        r"\bthe\s+total\b", r"\b(?:dollar|penny|cent)\s+for\s+(?:dollar|penny|cent)\b", r"\bin\s+its\s+entirety\b",
        r"\b\w+(?:'s|’s)\s+(?:price|cost|value|amount)\b", r"\b(?:its|their)\s+(?:price|cost|value)\b",
        r"\b(?:lose|losing)\s+(?:a\s+(?:single\s+)?(?:penny|cent|dime|thing)|anything)\b", r"\bout\s+of\s+pocket\b",
        r"\bmade\s+whole\b", r"\bmake\s+you\s+whole\b", *ZEROED,
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
        rf"\b(?:it|this|that|they|{_or(p)}purchase|payment|charge|(?:the|your|this|that)\s+(?!{_or(v)}money|amount|difference|rest|"
        rf"remaining|remainder|{_or(r)}fee|postage|tax)[a-z]+)(?:\s+will|'ll|\s+is\s+going\s+to|\s+has\s+been|\s+have\s+been|"
        rf"\s+was|\s+is\s+being|\s+is|\s+are|\s+gets?|\s+got)\s+(?:be\s+)?(?:fully\s+)?(?:{verbed}reimbursed|credited)\b",
    )


# Words that give a purchase's money back whatever else the clause says (not "approved", "you'll receive"): with the
# field's own hints and verbs, a clause with one of these that names a known purchase ("…for B-123", "the Oak
# suite will be reimbursed") promises that purchase's whole amount.
_GIVES_BACK = (
    r"\breimburs\w*", r"\bcredit(?:s|ed|ing)?\b(?!\s+cards?\b)", r"\bcompensat\w*", r"\brevers(?:e|es|ed|ing|al)\b",
    r"\bvoid(?:s|ed|ing)?\b", r"\bchargebacks?\b", r"\b(?:money|funds|cash|payment)\b(?:\s+[^\s.;!?]+){0,6}?\s+back\b",
    r"\bpa(?:y|ys|id|ying)\s+(?:you\s+)?back\b", r"\bwr(?:ite|ites|iting|itten|ote)\s+(?:\w+\s+){0,3}?off\b",
    r"\b(?:return|give|send|hand)\w*\s+(?:you\s+)?(?:back\s+)?(?:every\s+(?:cent|penny|dollar)|all\s+(?:of\s+)?(?:your|the)\s+money|"
    r"your\s+money|the\s+money)\b",
)


def _gives_back(v: str) -> re.Pattern[str]:
    return _any(*([rf"\b(?:{v})\w*"] if v else []), *_GIVES_BACK)


# A charge or a payment taken back: "I'll reverse the charge", "the payment will be voided" — the purchase's whole.
def _charge_back(v: str, r: str) -> re.Pattern[str]:
    verb = rf"(?:{_or(v)}revers|void|cancel|reimburs|credit|undo|undid|undoing|annul)\w*"
    what = (rf"(?:the|your|that|this)\s+(?:(?!{_or(r)}fee|tax|postage)[\w-]+\s+)?(?:charge|payment|transaction|debit)s?\b"
            r"(?!\s+(?:plans?|methods?|schedules?|cards?|details|info\w*|links?|reminders?|options?|date|due)\b)")
    return _any(rf"\b{verb}\s+(?:back\s+)?{what}",
                rf"\b{what}(?:\s+[^\s.;!?]+){{0,4}}?\s+(?:will\s+be|has\s+been|have\s+been|is\s+being|was|were|is|are|gets?|got)"
                rf"\s+(?:fully\s+|completely\s+|now\s+)?{verb}")


# Cue words a draft may write with separators inside ("re-imburse", "c r e d i t"): rejoined before reading
# (focal.enforcement.terms.joined), with the words of the field's own hints and verbs.
_CUE_WORDS = frozenset("reimburse reimbursement credit compensate compensation reverse reversal voucher discount rebate "
                       "coupon waive void deposit transfer approve money back off percent chargeback".split())


def cue_words(field_def: ProfileFieldDefinition) -> frozenset[str]:
    own = [w.lower() for h in (*field_def.extraction_hints, *field_def.amount_words.verbs)
           for w in re.findall(r"[^\W\d_]+", h) if len(w) >= 3]
    return _CUE_WORDS | frozenset(own)


def _or(alternatives: str) -> str:
    return f"{alternatives}|" if alternatives else ""


def alternation(words: list[str]) -> str:
    """Plain words or phrases as one alternation (longest first; a space matches any run of spaces)."""
    unique = sorted({w.strip().lower() for w in words if w.strip()}, key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in unique)


NEGATION = re.compile(
    r"\b(?:can't|can’t|cannot|can\s+not|couldn't|could\s+not|won't|will\s+not|wouldn't|would\s+not|unable\s+to|"
    r"not\s+able\s+to|not\s+allowed\s+to|not\s+authori[sz]ed\s+to|not\s+in\s+a\s+position\s+to|don't|do\s+not|"
    r"doesn't|does\s+not|didn't|did\s+not|isn't|is\s+not|aren't|are\s+not|wasn't|was\s+not|no\s+longer|never|nothing\s+to|"
    r"stopp(?:ed|ing)|stop|cancel(?:led|ed|ling|ing)?|withdr[ae]wn?|halt(?:ed)?|declin(?:e|ed|ing)|den(?:y|ied)|reject(?:ed)?|"
    r"no|not)\b(?!\s+(?:worry|worries|problem|hesitate|forget|doubt)\b)(?:\s+[\w'’$€£%.-]+){0,3}?\s*$", _I)
REPORTED = re.compile(
    r"\b(?:you(?:'ve|\s+have)?\s+(?:asked|requested|wanted|mentioned|said|hoped|expected|claimed)|you\s+were\s+(?:hoping|expecting)|"
    r"your\s+(?:request|claim)|you(?:'d|\s+would)\s+like|you\s+want(?:ed)?)\b[^,;]{0,40}$", _I)
# A refusal written after the amount: "a $75 credit is not something I can approve", "25% off is more than I'm
# allowed to offer", "$75 is above what I can do here" (never "…not something I can refuse you").
# Only a verb that grants counts ("…not something I can delay / take back" is no refusal), and the refusal ends
# its clause ("isn't possible to withhold" is none).
_GRANTING = r"(?:approve|offer|give|grant|provide|promise|authori[sz]e|agree\s+to|do|go\s+(?:to|that\s+high)|manage|justify)"
_END = (r"(?=\s*(?:here|today|now|for\s+you|in\s+this\s+case|(?:for|on|with|in|at)\s+(?:this|that|your|the|our)(?:\s+\w+){0,2}"
        r"|myself|(?:on|by)\s+my\s+own|by\s+myself|at\s+my\s+level"
        r"|without\s+(?:a|an|the|my|our|your)?\s*(?:[\w'’-]+\s*){1,3}?(?:approval|sign[\s-]?off|review|ok|okay)?)?"
        r"\s*(?:[.;!?,]|$))")
REFUSED_AFTER = re.compile(
    r"\b(?:is|are|'s|would\s+be|isn't|aren't|isn’t|aren’t)\s+(?:not\s+)?(?:something|anything)\s+(?:i|we)\s+"
    rf"(?:can|could|am\s+able\s+to|'m\s+able\s+to|are\s+able\s+to|'re\s+able\s+to)\s+{_GRANTING}\b{_END}"
    r"|\b(?:is|are|'s|would\s+be)\s+(?:more\s+than|above|beyond|over|higher\s+than|outside|past)\s+(?:what\s+)?(?:i|we)"
    rf"(?:'m|\s+am|'re|\s+are)?\s+(?:can|could|allowed|able|authori[sz]ed|permitted)(?:\s+to)?(?:\s+{_GRANTING})?\b{_END}"
    rf"|\b(?:isn't|isn’t|is\s+not|aren't|aren’t|are\s+not)\s+(?:possible|available|allowed|permitted|an\s+option){_END}", re.I)
# What turns a refusal or a review around: "…not something I can approve lightly, but I have", "Still, it's applied",
# "it's yours", "I've approved it". With one of these in a draft, no refusal or review spares an amount.
TURNAROUND = re.compile(
    r"\bbut\s+(?:i|we)\s+(?:have|did|'ve)\s*(?:[,.;!]|$|\s+(?:anyway|already|done\s+it|approved|applied|granted))"
    r"|\bhere\s+it\s+is\b|\bjust\s+kidding\b|\bformality\b"
    r"|\b(?:it|that|this)(?:'s|\s+is|\s+has\s+been|\s+was|'ll\s+be|\s+will\s+be)\s+(?:already\s+)?(?:all\s+)?"
    r"(?:yours|sent|applied|approved|issued|credited|processed|granted|done)\b"
    r"|\b(?:i'?ve|i\s+have|we'?ve|we\s+have|i|we)\s+(?:already\s+)?(?:approved|applied|sent|issued|processed|granted|credited)"
    r"\s+(?:it|that|this|them)\b", re.I)
# The ones that leave no doubt, even where no cue word says what is given: "the limit is $50, but for you: $75".
STRONG_EXCEPTION = re.compile(
    r"\b(?:(?:make|making|made)\s+an\s+exception|just\s+this\s+once|bend\s+the\s+rules|off\s+the\s+record|"
    r"between\s+(?:us|you\s+and\s+me)|but\s+for\s+you)\b", re.I)
# Words that make an exception to a refusal or a limit: whatever was refused may be promised after all.
EXCEPTION = re.compile(
    r"\b(?:anyway|anyhow|regardless|nevertheless|nonetheless|(?:make|making|made)\s+an\s+exception|just\s+this\s+once|"
    r"this\s+one\s+time|between\s+(?:us|you\s+and\s+me)|off\s+the\s+record|bend\s+the\s+rules|but\s+for\s+you)\b", re.I)
REVIEW = re.compile(
    r"(?<!n't\s)(?<!not\s)(?<!no\s)\b(?:needs?|requires?|required|must\s+(?:be|go|get)|subject\s+to|go(?:es)?\s+(?:to|through))\s+(?!no\b|not\b|any\b)"
    r"(?:a\s+|an\s+)?(?:\w+\s+){0,2}?(?:review|approval|sign-off|authori[sz]ation|manager|supervisor)\b"
    r"|\b(?:will|to|can|must)\s+review\b|\breview(?:ed)?\s+by\b"
    r"|\b(?:(?:has|have|needs?|need)\s+to|must|should)\s+be\s+(?:approved|reviewed|authori[sz]ed|checked|signed\s+off)\b"
    r"|\b(?:colleague|team|specialist|supervisor|manager|someone|agent)s?\s+(?:will|can|would)\s+"
    r"(?:handle|look\s+(?:into|at)|decide|follow\s+up\s+on)\b", _I)
def _role(r: str) -> re.Pattern[str]:
    return re.compile(
        r"\b(?:cost|costs|costing|price|prices|priced|pricing|fee|fees|charge|charges|charged|postage|"
        r"came\s+to|comes\s+to|come\s+to|total|totals|totalled|totaled|subtotal|paid|pay|spent|spend|bill|billed|worth|"
        rf"valued|sells?|sold|retails?|tax|taxes|bought|purchased|minimum{_or_after(r)})\b", _I)


def _or_after(alternatives: str) -> str:
    return f"|{alternatives}" if alternatives else ""


THRESHOLD_BEFORE = re.compile(
    r"\b(?:above|over|more\s+than|greater\s+than|higher\s+than|larger\s+than|bigger\s+than|exceed(?:s|ing)?|beyond|"
    r"in\s+excess\s+of|up\s+to|under|below|less\s+than|at\s+most|no\s+more\s+than|maximum(?:\s+of)?|max|"
    r"limit(?:ed)?\s+(?:of|to|is)|cap(?:ped)?\s+(?:of|at|is)|at\s+least|threshold\s+(?:of|is)|ceiling\s+(?:of|is))"
    r"\s+(?:a\s+|the\s+|of\s+)?$", _I)
# Matched where the amount ends (`THRESHOLD_AFTER.match(text, end)`): "$50 or more", "$50 limit".
THRESHOLD_AFTER = re.compile(r"\s*(?:or\s+(?:more|less|above|below|under|over)|and\s+(?:above|over|up|under|below)|"
                              r"limit|cap|maximum|threshold|ceiling)\b", _I)
BASE_OF = re.compile(r"(?:\d\S*\s*(?:dollars?|bucks|%|percent)?|half|part|some|portion|most|rest|share)\s+(?:out\s+)?of\s+"
                      r"(?:your|the|this|that)?\s*$", _I)
def _share_pattern(v: str, p: str) -> re.Pattern[str]:
    shares = "|".join(sorted(SHARES, key=len, reverse=True))
    verb = rf"(?:\s+(?:a\s+)?(?:{v})\b)?" if v else ""  # "half <verb> of it"
    return re.compile(
        rf"(?P<share>(?<![\w.])\d+(?:\.\d+)?\s?(?:%|percent\b|per\s?cent\b)|\b(?:{shares})\b)"
        rf"{verb}\s+(?:of\s+)?(?:the\s+|your\s+|that\s+|this\s+|what\s+)?"
        rf"(?:(?P<base>[$€£]\s?(?:{NUM})|(?:{NUM})\s?dollars)|{_or(p)}purchase|total|price|amount|cost|payment|it\b|you\s+paid|"
        r"money|bill)", _I)


_NEVER_MATCHES = re.compile(r"(?!)")


def _after(alternatives: str) -> re.Pattern[str]:
    """One of the words right after an amount ("$75 booking", "a $25 resort fee"), matched where the amount ends."""
    return re.compile(rf"\s*(?:{alternatives})s?\b", _I) if alternatives else _NEVER_MATCHES


@dataclass(frozen=True)
class Lexicon:
    """A field's patterns: the built-in generic ones with its `amount_words` added."""
    money_cues: re.Pattern[str]
    whole: re.Pattern[str]
    object: re.Pattern[str]
    share: re.Pattern[str]
    role: re.Pattern[str]
    purchases: str  # the field's purchase words as one alternation ("" without any)
    other_roles: str = ""  # the field's declared other roles as one alternation ("" without any)
    gives_back: re.Pattern[str] = _NEVER_MATCHES  # a cue that names a purchase gives its whole back (`_GIVES_BACK`)
    charge_back: re.Pattern[str] = _NEVER_MATCHES  # a charge or payment taken back
    # matched where an amount ends: one of the purchase words or declared roles right after it ("$75 booking")
    purchase_after: re.Pattern[str] = _NEVER_MATCHES
    role_after: re.Pattern[str] = _NEVER_MATCHES
    # a role named as a noun ("the deposit is €800", "a security deposit of €300"): a built-in cue word inside it
    # names that amount, it moves nothing (`role` group); the field's own hints and verbs (`own_verbs`) stay cues
    role_noun: re.Pattern[str] = _NEVER_MATCHES
    own_verbs: re.Pattern[str] = _NEVER_MATCHES


# A noun, not a verb: after a determiner and up to two words that are no subject, modal or adverb ("the refundable
# security deposit", not "our team will deposit", "that we deposit"), or opening the clause; and not followed by what a
# verb takes ("…deposits €80", "…deposit it into your account").
_NOT_BETWEEN = (r"(?!(?:i|we|you|they|he|she|it|will|would|shall|should|can|could|may|might|must|to|do|does|did|then|now|"
                r"also|just|\w+ly)\b)")
_DETERMINER = rf"(?:^|\b(?:the|a|an|your|our|their|its|this|these|those|each|every|any|no)\s+(?:{_NOT_BETWEEN}[\w-]+\s+){{0,2}}?)"
_NO_OBJECT = r"(?!\s*(?:[$€£\d]|(?:you|it|them|him|her|the|your|a|an|into|onto|to|in|back|over)\b))"


def _role_noun(roles: str) -> re.Pattern[str]:
    return re.compile(rf"{_DETERMINER}(?P<role>(?:{roles})s?)\b{_NO_OBJECT}", _I) if roles else _NEVER_MATCHES


@lru_cache(maxsize=256)
def _lexicon(verbs: tuple[str, ...], purchases: tuple[str, ...], roles: tuple[str, ...],
             noun_roles: tuple[str, ...] = ()) -> Lexicon:
    v, p, r = alternation(list(verbs)), alternation(list(purchases)), alternation(list(roles))
    return Lexicon(_money_cues(v, p), _whole(v, p), _object(v, p, r), _share_pattern(v, p), _role(r), p, r,
                   _gives_back(v), _charge_back(v, r), _after(p), _after(r),
                   _role_noun(alternation([*roles, *noun_roles])), re.compile(rf"\b(?:{v})\w*", _I) if v else _NEVER_MATCHES)


def lexicon(field_def: ProfileFieldDefinition, noun_roles: tuple[str, ...] = ()) -> Lexicon:
    """`noun_roles`: the names of the agent's own amounts that hold a built-in cue word (focal.enforcement.amount_known):
    named as nouns they are roles, like the field's declared `other_roles`, but only against the built-in cues."""
    w = field_def.amount_words
    return _lexicon(tuple(w.verbs), tuple(w.purchases), tuple(w.other_roles), noun_roles)
