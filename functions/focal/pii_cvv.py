"""A card's security code (CVV, CVC, CID…) is never stored, masked or not (PCI DSS): `focal.pii_text` masks it.

Read on the folded view (`focal.pii_view`, so "seven three seven" is ``737``), a security code is a number
of three or four digits standing alone (not a group of a longer number, not a time, date, amount or
decimal, not part of an id such as ``B2044``) that is

- within a few characters after a card number (found in the same text, or already masked as
  ``**** **** **** 4242``): ``4242 4242 4242 4242 737``, ``… 4242, exp 12/27, 7373``; there four digits
  from 1900 to 2099 are read as a year (an expiry date: ``… 4242\n2027``) and kept;
- or just after, or just before, the words for it: ``cvv 737``, ``CVC2=4821``, ``security code: 737``,
  ``código de seguridad 737``, ``Prüfnummer 737``, ``cryptogramme visuel 737``, ``737 is the cvv``.

A code typed in the message after one that gave a card or named the code (``cvv please`` → ``737``) is
masked by `focal.pii_carry`, which knows the conversation.
"""

from __future__ import annotations

import re

CVV_MASK = "[cvv]"
AFTER_CARD_CHARS, AFTER_WORDS_CHARS, BEFORE_WORDS_CHARS = 24, 24, 12
CVV_WORDS = re.compile(
    r"(?<![^\W\d_])(?:cvv2?|cvc2?|cvn2?|cav2|cid|csc|cvd|security\s+code|card\s+verification(?:\s+(?:value|code|number))?"
    r"|verification\s+(?:code|number)|c[oó]digo\s+(?:de\s+)?(?:seguridad|verificaci[oó]n|cvv)"
    r"|(?:karten)?pr[uü](?:e)?f(?:nummer|ziffer|code)|sicherheits(?:code|nummer)"
    r"|cryptogramme(?:\s+visuel)?|code\s+(?:de\s+)?s[eé]curit[eé]|code\s+(?:on|at)\s+the\s+back)(?![^\W\d_])",
    re.IGNORECASE)
# Three or four digits alone: no digit group, decimal, time or date joined to them, no currency sign before.
CANDIDATE = re.compile(r"(?<![\w.,/:$€£*-])(?<![$€£] )(?<!\d[ ])\d{3,4}(?![\w]|[.,/:-]\d|[ ]\d|\s?%)")
YEAR = re.compile(r"(?:19|20)\d\d")
MASKED_CARD = re.compile(r"\*{4} \*{4} \*{4} \d{4}")


def cvv_spans(text: str, cards: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """(start, end) of each security code in `text` (the view, with every card in it, found or already
    masked, written over by a placeholder without digits), given where those `cards` (start, end) are."""
    after_card = [(end, end + AFTER_CARD_CHARS) for _, end in cards]
    named = [span for m in CVV_WORDS.finditer(text)
             for span in ((m.end(), m.end() + AFTER_WORDS_CHARS), (m.start() - BEFORE_WORDS_CHARS, m.start()))]
    if not after_card and not named:
        return []
    out = []
    for m in CANDIDATE.finditer(text):
        a, b = m.span()
        if any(lo <= a and b <= hi for lo, hi in named) or (
                YEAR.fullmatch(m.group(0)) is None and any(lo <= a and b <= hi for lo, hi in after_card)):
            out.append((a, b))
    return out


def standalone_codes(text: str) -> list[tuple[int, int]]:
    """Every three or four digits standing alone in `text` (the view): what a message that answers a request
    for the security code holds."""
    return [(m.start(), m.end()) for m in CANDIDATE.finditer(text)]
