"""The always-on text rules of masking at rest (`focal.pii` applies them to every string a store writes).

The rules read the text folded (`focal.pii_view`: NFKC, invisible characters and combining marks dropped,
every decimal digit of any script as its ASCII digit), so ``４１１１``, ``⁴¹¹¹``, ``٤١١١`` and
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
- **E-mail addresses** → ``[email]`` (nothing kept: a personal domain names its owner too).
- **US social security numbers** → ``[ssn]``: ``ddd-dd-dddd`` (any dash), and exactly three, two and four
  digits joined by single spaces or by dots (``ddd dd dddd`` not inside a longer run of groups).
- **Phone numbers, when written like one** → ``[phone]``: a leading ``+`` and country code with 10 to 15
  digits in all (``+1 415 555 0199``, ``+44 20 7946 0958``, ``+14155550199``), ``(ddd) ddd-dddd``,
  ``ddd-ddd-dddd`` and ``ddd.ddd.dddd`` (optionally after ``1-``). A bare run of digits, or digits grouped
  by spaces only, is not a phone number: it may be a booking reference, a tracking number or an amount.

Every mask is ASCII, holds at most four digits and no ``@``, so masking is idempotent and a mask matches no
rule again.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Sequence

from focal.pii_view import View, fold

CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19
MAX_SEPARATOR_CHARS = 3  # characters between two digit groups of one number
# Digit groups joined by separators of at most 8 characters (neither letters nor digits, but an "x"); the
# run is split where the kind of separator changes or a separator is too long.
_DIGIT_RUN = re.compile(r"(?<!\d)\d+(?:(?:\W|[_xX]){1,8}\d+)*(?!\d)")
_GROUP = re.compile(r"\d+")
_ANY_DIGIT = re.compile(r"\d")
_DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_DASHES = "\\" + _DASH_CHARS  # inside a character class: the ASCII hyphen escaped
_DASH = f"[{_DASHES}]"
_BRACKETS = str.maketrans("", "", "()[]{}")
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))

EMAIL = re.compile(r"(?<![\w.+-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*@[^\W_](?:[\w-]*[^\W_])?"
                   r"(?:\.[^\W_](?:[\w-]*[^\W_])?)+(?![\w@-])")
_NOT_BEFORE_SSN = rf"(?<![\w{_DASHES}.])"
SSN = re.compile(rf"{_NOT_BEFORE_SSN}\d{{3}}{_DASH}\d{{2}}{_DASH}\d{{4}}(?![\w{_DASHES}]|\.\d)"
                 rf"|{_NOT_BEFORE_SSN}(?<!\d )\d{{3}} \d{{2}} \d{{4}}(?![\w{_DASHES}]|[ .]\d)"
                 rf"|{_NOT_BEFORE_SSN}\d{{3}}\.\d{{2}}\.\d{{4}}(?![\w{_DASHES}]|\.\d)")
_PHONE_SEPARATORS = " \t().\\-\u2010-\u2015"
_PHONE_PLUS = re.compile(rf"(?<![\w+])\+\(?\d[\d{_PHONE_SEPARATORS}]{{7,24}}\d(?!\w)")
_PHONE_NANP = re.compile(
    rf"(?<![\w.{_DASHES}+])(?:1{_DASH})?(?:\(\d{{3}}\) ?\d{{3}}[{_DASHES} .]\d{{4}}"
    rf"|\d{{3}}({_DASH})\d{{3}}\1\d{{4}}|\d{{3}}\.\d{{3}}\.\d{{4}})(?![\w{_DASHES}]|\.\d)")
MASKS = {"email": "[email]", "ssn": "[ssn]", "phone": "[phone]"}


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
    """(start, end, mask) in `text` of the cards in one run of digit groups, each widened over the bracket
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
            spans.append((start, end, card_mask("".join(g.group(0) for g in chain[i:j + 1]))))
    return spans


def _phone_plus(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = sum(ch.isdigit() for ch in text)
    if not 10 <= digits <= 15 or re.search(f"[{_PHONE_SEPARATORS}]{{3}}", text):
        return text
    return MASKS["phone"]


def _contact_masks(text: str, keep: Collection[str], values: Sequence[tuple[re.Pattern[str], str]]
                   ) -> tuple[str, list[tuple[int, int, str]]]:
    """(start, end, mask) of the `values` (pattern, mask), then of the e-mail addresses, SSN-shaped and
    phone-shaped numbers in `text` (but those whose `contact_key` is in `keep`), and `text` with each written
    over by a placeholder of its length that the later rules read as they would its mask (a bracket,
    letters, a bracket)."""
    masks: list[tuple[int, int, str]] = []

    def rule(pattern: re.Pattern[str], mask: str, check: Callable[[re.Match[str]], bool] = lambda m: True,
             kept: Collection[str] = keep) -> None:
        nonlocal text
        found = [m for m in pattern.finditer(text)
                 if m.end() - m.start() > 1 and check(m) and not (kept and contact_key(m.group(0)) in kept)]
        if not found:
            return
        out, cursor = [], 0
        for m in found:
            out += [text[cursor:m.start()], "[" + "q" * (m.end() - m.start() - 2) + "]"]
            cursor = m.end()
            masks.append((m.start(), m.end(), mask))
        out.append(text[cursor:])
        text = "".join(out)

    for pattern, mask in values:
        rule(pattern, mask, kept=())
    if "@" in text:
        rule(EMAIL, MASKS["email"])
    if _ANY_DIGIT.search(text):
        rule(SSN, MASKS["ssn"])
        if "+" in text:
            rule(_PHONE_PLUS, MASKS["phone"], lambda m: _phone_plus(m) != m.group(0))
        rule(_PHONE_NANP, MASKS["phone"])
    return text, masks


def mask_text(text: str, keep: Collection[str] = (), values: Sequence[tuple[re.Pattern[str], str]] = ()) -> str:
    """Every e-mail, SSN, phone number (but those in `keep`, by `contact_key`) and card-like number in `text`
    masked (see the module docstring), read on the folded view (`focal.pii_view`) and masked in the text as
    typed; `values` (pattern, mask) first (`focal.pii`: a pii field's value found in text, on the view too)."""
    view = View(text)
    scanned, masks = _contact_masks(view.text, keep, values)
    if _ANY_DIGIT.search(scanned):
        for run in _DIGIT_RUN.finditer(scanned):
            if run.end() - run.start() >= CARD_MIN_DIGITS:
                masks += _card_masks(scanned, run)
    return view.restore(sorted(masks))


def contact_kind(value: str) -> str | None:
    """"email" | "ssn" | "phone" when `value` is, as a whole, one e-mail address, SSN or phone number."""
    value = fold(value).strip()
    if not value or len(value) > 320:
        return None
    for kind, rule in (("email", EMAIL), ("ssn", SSN), ("phone", _PHONE_NANP)):
        if rule.fullmatch(value):
            return kind
    plus = _PHONE_PLUS.fullmatch(value)
    return "phone" if plus is not None and _phone_plus(plus) != value else None


def contact_key(value: str) -> str:
    """What identifies a contact value however it is written: an e-mail case-folded, a number's (last ten) digits."""
    value = fold(value).strip()
    return value.casefold() if "@" in value else re.sub(r"\D", "", value)[-10:]  # a phone with or without +1
