"""The always-on text rules of masking at rest (`focal.pii` applies them to every string a store writes).

The rules read the text in the masking view (`focal.pii_view`: NFKC, invisible characters dropped, letters that
look Latin in a Latin word as Latin ones, every decimal digit of any script as its ASCII digit), so ``４１１１``, ``⁴¹¹¹``, ``٤١١١`` and
``jane＠example.com`` are read as what they look like; the masks replace the characters as typed and the
rest of the text is stored exactly as written (a sentence in Russian or Arabic is not rewritten).

- **Card-like numbers**: 13 to 19 digits in groups, Luhn-valid → ``**** **** **** 4242``. Groups may be
  joined by any short separator: one to three characters that are neither letters nor digits (a space of
  any width, a line break, a dot, a dash of any width, a slash, an underscore, ``" - "``, a bracket around
  a group as in ``(4111) 1111-…``) or an ``x``; invisible characters between them count as none. The
  groups of one number are joined by the same kind of separator (spaces, line breaks and dashes of any
  width, with or without a bracket, are one kind), so a list of amounts or dates written one after
  another is not read as one long number. A long number that fails Luhn (a tracking or booking
  reference) is left as it is. A bracket around the first or last group goes with the mask.
- **E-mail addresses** → ``[email]`` (nothing kept: a personal domain names its owner too), a quoted local
  part too (``"jane roe"@example.com``); the view reads the spellings for a human (``jane[at]example[dot]com``,
  ``jane @ example.com``: `focal.pii_view`).
- **US social security numbers** → ``[ssn]``: exactly three, two and four digits joined by one separator,
  the same twice: a dash, a dot, a slash or an underscore (spaced or not), or a single space
  (``ddd dd dddd`` not inside a longer run of groups).
- **Phone numbers** → ``[phone]``: with their country (after ``+``, ``00`` or ``011``, checked by
  libphonenumber) or North American numbers written like one (`focal.pii_phones`).
- **A card's security code** → ``[cvv]``: three or four digits alone next to a card number (found, or
  already masked) or to the words for it (`focal.pii_cvv`).

Every mask is ASCII, holds at most four digits and no ``@``, so masking is idempotent and a mask matches no
rule again.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from focal.pii_cvv import CVV_MASK, CVV_WORDS, MASKED_CARD, cvv_spans
from focal.pii_iban import iban_spans
from focal.pii_phones import is_phone, phone_spans
from focal.pii_view import View, masking_view, needs_no_masking, spelled

CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19
MAX_SEPARATOR_CHARS = 3  # characters between two digit groups of one number
# Digit groups joined by separators of at most 8 characters (neither letters nor digits, but an "x"); the
# run is split where the kind of separator changes or a separator is too long.
_DIGIT_RUN = re.compile(r"(?<!\d)\d+(?:(?:\W|[_xX]){1,8}\d+)*(?!\d)")
_GROUP = re.compile(r"\d+")
_ANY_DIGIT = _ALL_DIGITS = re.compile(r"\d")
_DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_BRACKETS = str.maketrans("", "", "()[]{}")
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))

EMAIL = re.compile(r"(?<![\w.+-])(?:[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*|\"[^\"\n]{1,64}\")"
                   r"@[^\W_](?:[\w-]*[^\W_])?(?:\.[^\W_](?:[\w-]*[^\W_])?)+(?![\w@-])")
SSN = re.compile(r"(?<![\w./-])(?<!\d )\d{3}(?P<sep> ?[-./_] ?| )\d{2}(?P=sep)\d{4}(?![\w/-]|[ .,]\d)")
MASKS = {"email": "[email]", "ssn": "[ssn]", "phone": "[phone]", "iban": "[iban]", "cvv": CVV_MASK}


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def card_mask(digits: str) -> str:
    return "**** **** **** " + digits[-4:]


def is_card(digits: str) -> bool:
    return CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS and luhn_valid(digits)


def _kind(separator: str) -> str:
    """The kind of a separator: spaces, line breaks and dashes of any width are one kind, with or without
    brackets around a group ("(4111) 1111-…"); any other text is its own kind; "!" a separator too long to
    join one number."""
    if len(separator) > MAX_SEPARATOR_CHARS:
        return "!"
    if all(ch.isspace() or ch in _DASH_CHARS for ch in separator.translate(_BRACKETS)):
        return " "  # "4242 4242-4242 4242", " - ", "4242\n4242", "(4242) 4242"
    return separator


def _chains(text: str, groups: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """The groups of a run, split where the separator kind changes (a group at a change ends one chain and
    starts the next)."""
    chains, current, kind = [], [groups[0]], ""
    for prev, group in zip(groups, groups[1:], strict=False):
        k = _kind(text[prev.end():group.start()])
        if k == "!":
            chains.append(current)
            current, kind = [], ""
        elif k and kind and k != kind:
            chains.append(current)
            current, kind = [prev], k
        else:
            kind = kind or k
        current.append(group)
    chains.append(current)
    return chains


def _luhn_sums(digits: str) -> tuple[list[int], list[int]]:
    """Prefix sums for the Luhn check of any slice: in `digits[a:b]` the digits doubled are those at an index
    of the parity of `b`, so `sums[b % 2][b] - sums[b % 2][a]` is the slice's Luhn sum."""
    sums: tuple[list[int], list[int]] = ([0], [0])
    for m, ch in enumerate(digits):
        d = int(ch)
        doubled = d * 2 - 9 if d > 4 else d * 2
        for p in (0, 1):
            sums[p].append(sums[p][-1] + (doubled if m % 2 == p else d))
    return sums


def luhn_sums(digits: str) -> tuple[int, int]:
    """The Luhn sums (mod 10) of `digits` as the end of a longer number: [0] when its last digit is the
    number's check digit or another undoubled one, [1] when its last digit is doubled. Two figures from 0 to
    9: far too little to rebuild the digits."""
    sums = [0, 0]
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        doubled = d * 2 - 9 if d > 4 else d * 2
        sums[0] += doubled if i % 2 else d
        sums[1] += d if i % 2 else doubled
    return sums[0] % 10, sums[1] % 10


def digit_chains(text: str) -> list[list[re.Match[str]]]:
    """The numbers in `text` (the view) as the card rule reads them: digit groups joined by one kind of short
    separator. A number glued to a letter (an id such as ``B2044``, ``Q7751``) is left out."""
    out = []
    for run in _DIGIT_RUN.finditer(text):
        for chain in _chains(text, list(_GROUP.finditer(text, run.start(), run.end()))):
            start, end = chain[0].start(), chain[-1].end()
            if not (text[start - 1:start].isalpha() or text[end:end + 1].isalpha()):
                out.append(chain)
    return out


SHOWN = "**** **** **** "  # what a card's mask shows before its last four digits


@dataclass(frozen=True)
class DigitRule:
    """Digits the conversation shows to be part of a card or a security code (`focal.pii_carry`): whole digit
    groups with `count` digits and these Luhn `sums` (and exactly `digits`, when the turn knows them) → `mask`."""

    count: int
    sums: tuple[int, int]
    mask: str
    digits: str | None = None
    shown: bool = False  # `digits` are the last four a masked card shows: the whole mask goes

    def matches(self, digits: str) -> bool:
        return len(digits) == self.count and (digits == self.digits if self.digits is not None
                                              else luhn_sums(digits) == self.sums)


def _rule_masks(text: str, rules: Sequence[DigitRule]) -> list[tuple[int, int, str]]:
    """(start, end, mask) of the runs of whole digit groups in `text` that a rule matches, longest first."""
    masks: list[tuple[int, int, str]] = []
    shown = {r.digits: r.mask for r in rules if r.shown}
    parts = [r for r in rules if not r.shown]
    for chain in digit_chains(text):
        if text.endswith(SHOWN, 0, chain[0].start()):  # the last four digits of a masked card
            first = chain[0]
            if first.group(0) in shown:  # a card that turned out to be the start of a longer one: the whole mask goes
                masks.append((first.start() - len(SHOWN), first.end(), shown[first.group(0)]))
            continue
        digits = [g.group(0) for g in chain]
        i = 0
        while i < len(chain):
            hit = next(((j, rule) for j in range(len(chain), i, -1) for rule in parts
                        if rule.matches("".join(digits[i:j]))), None)
            if hit is None:
                i += 1
                continue
            j, rule = hit
            masks.append((chain[i].start(), chain[j - 1].end(), rule.mask))
            i = j
    return masks


def _card_windows(groups: list[re.Match[str]]) -> list[tuple[int, int]]:
    """Card-sized, Luhn-valid windows of whole groups: the whole chain, else the longest from each group, left
    to right."""
    digits = "".join(g.group(0) for g in groups)
    if is_card(digits):
        return [(0, len(groups) - 1)]
    if len(groups) < 2 or len(digits) < CARD_MIN_DIGITS:
        return []
    sums, offsets = _luhn_sums(digits), [0]
    for g in groups:
        offsets.append(offsets[-1] + len(g.group(0)))
    out, i = [], 0
    while i < len(groups):
        a = offsets[i]  # the window of groups i..k-1 holds digits a..offsets[k]: try the longest first
        shortest = max(bisect_left(offsets, a + CARD_MIN_DIGITS), i + 1)
        longest = bisect_right(offsets, a + CARD_MAX_DIGITS) - 1
        end = next((k for k in range(longest, shortest - 1, -1)
                    if (sums[offsets[k] % 2][offsets[k]] - sums[offsets[k] % 2][a]) % 10 == 0), None)
        if end is None:
            i += 1
            continue
        out.append((i, end - 1))
        i = end
    return out


def _card_masks(text: str, run: re.Match[str]) -> list[tuple[int, int, str]]:
    """(start, end, digits) in `text` of the cards in one run of digit groups, each widened over the bracket
    around its first or last group."""
    groups = list(_GROUP.finditer(text, run.start(), run.end()))
    spans: list[tuple[int, int, str]] = []
    for chain in _chains(text, groups):
        for i, j in _card_windows(chain):
            start, end = chain[i].start(), chain[j].end()
            if spans and start < spans[-1][1]:
                continue  # the chain's first group was the end of a card already masked
            for opening, closing in _PAIRS:
                inside = text[start:end]
                if inside.count(closing) > inside.count(opening) and text[start - 1:start] == opening:
                    start -= 1
                elif inside.count(opening) > inside.count(closing) and text[end:end + 1] == closing:
                    end += 1
            spans.append((start, end, "".join(g.group(0) for g in chain[i:j + 1])))
    return spans


_ALNUM = re.compile(r"[A-Za-z0-9]*")


def _card_run(text: str, run: re.Match[str]) -> bool:
    """A run long enough to hold a card and not inside an identifier: digits between letters, or in a token
    that mixes letters with other digits (`apr-45870425693143a7bd2a`, a hash), are an id's, never a card
    someone typed; a card glued to one word ("is4111…") is still one."""
    if run.end() - run.start() < CARD_MIN_DIGITS:
        return False
    before, after = text[run.start() - 1:run.start()], text[run.end():run.end() + 1]
    if before.isalpha() and after.isalpha():
        return False
    start = run.start()
    while start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
        start -= 1
        if text[start].isdigit():
            return False
    right = _ALNUM.match(text, run.end())
    return not any(c.isdigit() for c in (right.group(0) if right else ""))


def card_numbers(text: str) -> list[str]:
    """The digits of each card number in `text` (the view), in order."""
    return [digits for run in _DIGIT_RUN.finditer(text) if _card_run(text, run)
            for _, _, digits in _card_masks(text, run)]


Spans = Callable[[str], list[tuple[int, int]]]


def _contact_masks(text: str, keep: Collection[str], values: Sequence[tuple[re.Pattern[str], str]],
                   rules: Sequence[DigitRule] = ()) -> tuple[str, list[tuple[int, int, str]]]:
    """(start, end, mask) of the `values` (pattern, mask) and the digit `rules`, then of the e-mail addresses,
    SSN-shaped and phone numbers in `text` (but those whose `contact_key` is in `keep`), and `text` with each
    written over by a placeholder of its length that the later rules read as they would its mask (a
    bracket, letters, a bracket)."""
    masks: list[tuple[int, int, str]] = []
    if rules and _ANY_DIGIT.search(text):
        found = _rule_masks(text, rules)
        if found:
            text = _written_over(text, [(a, b) for a, b, _ in found])
            masks += found

    def rule(find: Spans, mask: str, kept: Collection[str] = keep) -> None:
        nonlocal text
        found = [(a, b) for a, b in find(text) if b - a > 1 and not (kept and contact_key(text[a:b]) in kept)]
        if found:
            text = _written_over(text, found)
            masks.extend((a, b, mask) for a, b in found)

    for pattern, mask in values:
        rule(_matches(pattern), mask, kept=())
    if "@" in text:
        rule(_matches(EMAIL), MASKS["email"])
    if _ANY_DIGIT.search(text):
        rule(iban_spans, MASKS["iban"])  # first: its digit groups are no phone number
        rule(_matches(SSN), MASKS["ssn"])
        rule(phone_spans, MASKS["phone"])
    return text, masks


def _matches(pattern: re.Pattern[str]) -> Spans:
    return lambda text: [(m.start(), m.end()) for m in pattern.finditer(text)]


def _written_over(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """`text` with each (start, end) — sorted, not overlapping — written over by ``[qq…q]`` of its length."""
    out, cursor = [], 0
    for a, b in spans:
        out += [text[cursor:a], "[" + "q" * (b - a - 2) + "]"]
        cursor = b
    out.append(text[cursor:])
    return "".join(out)


def mask_text(text: str, keep: Collection[str] = (), values: Sequence[tuple[re.Pattern[str], str]] = (),
              rules: Sequence[DigitRule] = ()) -> str:
    """Every e-mail, SSN, phone number (but those in `keep`, by `contact_key`), card-like number and security
    code in `text` masked (see the module docstring), read on the folded view (`focal.pii_view`) and masked in
    the text as typed; `values` (pattern, mask) and digit `rules` first (`focal.pii`: a pii field's value found
    in text, on the view too; `focal.pii_carry`: a card's part or a security code typed in another message)."""
    if not values and not rules and _nothing_to_read(text):
        return text
    view = View(text)
    scanned, masks = _contact_masks(view.text, keep, values, rules)
    if not _ANY_DIGIT.search(scanned):
        return view.restore(sorted(masks))
    cards: list[tuple[int, int, str]] = []
    for run in _DIGIT_RUN.finditer(scanned):
        if _card_run(scanned, run):
            cards += [(a, b, card_mask(digits)) for a, b, digits in _card_masks(scanned, run)]
    masks += cards
    spans = sorted([(a, b) for a, b, _ in cards] + [(m.start(), m.end()) for m in MASKED_CARD.finditer(scanned)])
    masks += [(a, b, CVV_MASK) for a, b in cvv_spans(_written_over(scanned, spans), spans)]
    return view.restore(sorted(masks))


def _nothing_to_read(text: str) -> bool:
    """An ASCII text no rule can match, told quickly: no @ nor spelled value, and fewer digits than a phone number
    (seven) without a masked card or the words for a security code (three or four digits beside them)."""
    if not text.isascii() or "@" in text or spelled(text):
        return False
    digits = len(_ALL_DIGITS.findall(text))
    return digits < 3 or (digits < 7 and "*" not in text and CVV_WORDS.search(text) is None)


def contact_kind(value: str) -> str | None:
    """"email" | "ssn" | "iban" | "phone" when `value` is, as a whole, one e-mail address, SSN, IBAN or phone number."""
    if needs_no_masking(value):
        return None
    value = masking_view(value).strip()
    if not value or len(value) > 320:
        return None
    for kind, rule in (("email", EMAIL), ("ssn", SSN)):
        if rule.fullmatch(value):
            return kind
    if iban_spans(value) == [(0, len(value))]:
        return "iban"
    return "phone" if is_phone(value) else None


def contact_key(value: str) -> str:
    """What identifies a contact value however it is written: an e-mail case-folded, a number's (last ten) digits."""
    value = masking_view(value).strip()
    return value.casefold() if "@" in value else re.sub(r"\D", "", value)[-10:]  # a phone with or without +1
