"""A card typed over several messages, and a security code typed after a card, are masked at rest.

The text rules (`focal.pii_text`) read one text at a time. A customer may send a card in parts — "my card
is 4111 1111", then "1111 1111", or four messages of four digits — so that no one text holds a card, or
send its security code on its own after the card ("737"). The records of the earlier messages are already
stored when a later one completes the card, so masking the later message alone is not enough.

**What the session keeps** (`Session.pii_carry`): for the number each recent customer message ended with,
a `DigitTail` — the turn id, how many digits and their two Luhn sums mod 10 (`luhn_sums`), never the digits
(two figures from 0 to 9 per part cannot rebuild it). Tails chain over consecutive messages that hold
nothing but a number ("5105", "1051", …); a message with other text that ends with a number starts a new
chain; a message with no number clears it; 18 digits at most are kept (a card has 19 at most).

**At each persist** (`CarryPlan.of`): the first number of the message as it is stored (after the text
rules, read on the folded view, so spelled digits count) — the whole number, else its leading digit groups,
longest first — joined after the newest tails is tested: 13 to 19 digits passing the Luhn check are a card.
Then:

- every document the turn writes (the session, the turn record, the episode) masks, wherever it holds them,
  the later part (its exact digits → ``**** **** **** 1111``) and each earlier part (whole digit groups with
  that tail's count and sums → ``****``), through `focal.pii.digit_rules`;
- the stored records of the earlier parts' turns (turn record, episode) are masked again under those rules
  (`TurnStore.remask`, `EpisodeStore.remask`): no stored record keeps more of the card than its last four;
- the tails used are dropped.

A message after one that gave a card, named its security code, or after an answer that asked for it
(`cvv_due`), has each three or four digits standing alone in it masked as ``[cvv]`` (PCI DSS: a security code
is never stored).

What may be over-masked: the last number of a message and the first of the next that happen to form a
Luhn-valid 13–19 digit number (one pair in ten of those whose lengths add up so) are masked as a card; three
or four digits typed alone right after a card are masked as its security code. What is not caught: parts
separated by a message that holds no number, and parts more than 18 digits back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from focal.models.session import DigitTail, PiiCarry
from focal.pii_cvv import CVV_MASK, CVV_WORDS, MASKED_CARD, standalone_codes
from focal.pii_text import CARD_MAX_DIGITS, CARD_MIN_DIGITS, SHOWN, DigitRule, card_mask, card_numbers, digit_chains, luhn_sums, mask_text
from focal.pii_view import View

MAX_TAIL_DIGITS = CARD_MAX_DIGITS - 1
PART_MASK = "****"
_ONLY_A_NUMBER = re.compile(r"[\W_]*")  # around the number: a message that holds nothing else


@dataclass(frozen=True)
class CarryPlan:
    """What the turn's masking at rest adds to the text rules, and the session's carry after the turn."""

    carry: PiiCarry
    rules: tuple[DigitRule, ...] = ()  # masked in every document the turn writes
    earlier: tuple[DigitTail, ...] = field(default=())  # the turns whose stored records are masked again

    @classmethod
    def of(cls, carry: PiiCarry, message: str, response: str, turn_id: str, at: float) -> CarryPlan:
        if not message:
            return cls(carry=carry)  # a resumed approval: no customer message
        text = View(mask_text(message)).text  # what is stored of the message in clear, as the rules read it
        chains = [[(g.start(), g.end(), g.group(0)) for g in chain] for chain in digit_chains(text)]
        card = _CardCompleted.of(carry, chains)
        rules = list(card.rules) if card else []
        if card:
            chains[0] = card.rest
        if carry.cvv_due:
            codes = _codes(text, card.consumed if card else (0, 0))
            rules += [DigitRule(b - a, luhn_sums(text[a:b]), CVV_MASK, text[a:b]) for a, b in codes]
            chains = _without_codes(chains, codes)
        used = card.used if card else ()
        cvv_due = bool(used) or _names_a_card_or_code(text, response)
        tails = _tails(carry, [c for c in chains if c], text, message, turn_id, at, continued=not used)
        return cls(carry=PiiCarry(tails=tails, cvv_due=cvv_due), rules=tuple(rules), earlier=used)


Chain = list[tuple[int, int, str]]  # (start, end, digits) of each digit group of a number in the stored text


@dataclass(frozen=True)
class _CardCompleted:
    """The message's first number completing a card with the newest tails: the rules masking every part."""

    used: tuple[DigitTail, ...]  # the tails (earlier turns) the card began in
    rules: tuple[DigitRule, ...]
    consumed: tuple[int, int]  # where the card's later part is in the text
    rest: Chain  # the groups of the first number after the card's part

    @classmethod
    def of(cls, carry: PiiCarry, chains: list[Chain]) -> _CardCompleted | None:
        found = _completion(carry.tails, [g[2] for g in chains[0]]) if carry.tails and chains else None
        if found is None:
            return None
        k, end = found
        first = chains[0]
        used = tuple(carry.tails[-k:])
        later = "".join(g[2] for g in first[:end])
        later_rule = DigitRule(len(later), luhn_sums(later), card_mask(later) if len(later) >= 4 else PART_MASK, later)
        return cls(used, (later_rule, *(_part_rule(t) for t in used)), (first[0][0], first[end - 1][1]), first[end:])


def _part_rule(tail: DigitTail) -> DigitRule:
    """An earlier part masked: the four digits a masked card shows, else whole groups of the tail's count and sums."""
    if tail.shown:
        return DigitRule(4, luhn_sums(tail.shown), PART_MASK, tail.shown, shown=True)
    return DigitRule(tail.count, tail.sums, PART_MASK)


def _codes(text: str, consumed: tuple[int, int]) -> list[tuple[int, int]]:
    """Where three or four digits stand alone in the text, outside the card's later part."""
    return [(a, b) for a, b in standalone_codes(text) if not consumed[0] <= a < consumed[1]]


def _without_codes(chains: list[Chain], codes: list[tuple[int, int]]) -> list[Chain]:
    """The numbers that may be a card's part: a code is none."""
    starts = {a for a, _ in codes}
    return [c for c in chains if not (c and c[0][0] in starts)]


def _names_a_card_or_code(text: str, response: str) -> bool:
    """The message or the answer shows a masked card or names a security code: a code may come next."""
    return any(p.search(t) for p in (MASKED_CARD, CVV_WORDS) for t in (text, response))


def _completion(tails: list[DigitTail], groups: list[str]) -> tuple[int, int] | None:
    """(how many of the newest tails, how many leading groups of the message's first number) that together make
    a Luhn-valid card: the most groups, then the most tails (the longest card wins: all its parts are masked).
    A tail's last digit sits `offset` places from the check digit: doubled when `offset` is odd."""
    for end in range(len(groups), 0, -1):
        later = "".join(groups[:end])
        total, offset, best = luhn_sums(later)[0], len(later), None
        for k in range(1, len(tails) + 1):
            tail = tails[-k]
            total, offset = total + tail.sums[offset % 2], offset + tail.count
            if offset > CARD_MAX_DIGITS:
                break
            if offset >= CARD_MIN_DIGITS and total % 10 == 0:
                best = k
        if best is not None:
            return best, end
    return None


def _tails(carry: PiiCarry, chains: list[list[tuple[int, int, str]]], text: str, message: str, turn_id: str,
           at: float, continued: bool) -> list[DigitTail]:
    """The session's tails after this message: its last number added to the chain when the message is only that
    number, else a new chain of it; none when the message ends with no number short enough to start a card. A
    number masked as a card counts whole (it may be the start of a longer one): its digits are read in the
    message as typed, and the four its mask shows noted."""
    if not chains:
        return []
    last = chains[-1]
    digits, shown = "".join(g[2] for g in last), None
    if text.endswith(SHOWN, 0, last[0][0]):
        shown = last[0][2]
        digits = next((card for card in reversed(card_numbers(View(message).text)) if card.endswith(shown)), "")
    if not 0 < len(digits) <= MAX_TAIL_DIGITS:
        return []
    new = DigitTail(turn_id=turn_id, at=at, count=len(digits), sums=luhn_sums(digits), shown=shown)
    alone = _ONLY_A_NUMBER.fullmatch(text, 0, last[0][0]) and _ONLY_A_NUMBER.fullmatch(text, last[-1][1])
    tails = [*carry.tails, new] if alone and continued and len(chains) == 1 else [new]
    while sum(t.count for t in tails) > MAX_TAIL_DIGITS:
        tails.pop(0)
    return tails
