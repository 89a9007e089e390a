"""The always-on text rules of masking at rest (`focal.pii` applies them to every string a store writes).

- **Card-like numbers**: 13 to 19 digits in groups, Luhn-valid → ``**** **** **** 4242``. Groups may be
  joined by any short separator: one to three characters that are neither letters, digits nor line
  breaks (a space, a no-break or narrow no-break space, a dot, a dash of any width, a slash, an
  underscore, ``" - "``), with any invisible format character (zero-width space or joiner, soft hyphen,
  variation selector, combining grapheme joiner, …) around or instead of it. The groups of one number are
  joined by the same kind of separator (spaces and dashes of any width are one kind, an invisible-only
  separator fits any), so a list of amounts or dates written one after another is not
  read as one long number. A long number that fails Luhn (a tracking or booking reference) is left as it is.
- **E-mail addresses** → ``[email]`` (nothing kept: a personal domain names its owner too).
- **US social security numbers** written ``ddd-dd-dddd`` (any dash) → ``[ssn]``.
- **Phone numbers, when written like one** → ``[phone]``: a leading ``+`` and country code with 10 to 15
  digits in all (``+1 415 555 0199``, ``+44 20 7946 0958``, ``+14155550199``), ``(ddd) ddd-dddd``,
  ``ddd-ddd-dddd`` and ``ddd.ddd.dddd`` (optionally after ``1-``). A bare run of digits, or digits grouped
  by spaces only, is not a phone number: it may be a booking reference, a tracking number or an amount.

Every mask holds at most four digits and no ``@``, so masking is idempotent and a mask matches no rule again.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection

CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19
MAX_SEPARATOR_CHARS = 3  # visible characters between two digit groups of one number
_LINE_BREAKS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
# Invisible characters a separator may hold (format characters, variation selectors, the combining
# grapheme joiner, Hangul and Khmer fillers); they are not counted and fit any separator kind.
_INVISIBLE = "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
_INVISIBLE_RE = re.compile(f"[{_INVISIBLE}]|[\U000e0000-\U000e0fff]")
# Digit groups joined by separators of at most 8 characters (neither letters nor digits nor line breaks);
# the run is split where the kind of separator changes or a separator is too long.
_DIGIT_RUN = re.compile(rf"(?<!\d)\d+(?:(?:[^\w{_LINE_BREAKS}]|_){{1,8}}\d+)*(?!\d)")
_GROUP = re.compile(r"\d+")
_DASH_CHARS = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_DASHES = "\\" + _DASH_CHARS  # inside a character class: the ASCII hyphen escaped
_DASH = f"[{_DASHES}]"
_INV = f"[{_INVISIBLE}]*"

EMAIL = re.compile(r"(?<![\w.+-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*@[^\W_](?:[\w-]*[^\W_])?"
                   r"(?:\.[^\W_](?:[\w-]*[^\W_])?)+(?![\w@-])")
SSN = re.compile(rf"(?<![\w{_DASHES}.])\d{{3}}{_INV}{_DASH}{_INV}\d{{2}}{_INV}{_DASH}{_INV}\d{{4}}(?![\w{_DASHES}]|\.\d)")
_PHONE_SEPARATORS = " \t().\\-\u00a0\u2009\u202f\u2010-\u2015"
_PHONE_PLUS = re.compile(rf"(?<![\w+])\+\(?\d[\d{_PHONE_SEPARATORS}]{{7,24}}\d(?!\w)")
_PHONE_NANP = re.compile(
    rf"(?<![\w.{_DASHES}+])(?:1{_DASH})?(?:\(\d{{3}}\)[ \u00a0]?\d{{3}}[{_DASHES} .\u00a0]\d{{4}}"
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
    """The kind of a separator: spaces and dashes of any width are one kind, any other text its own; ""
    (invisible only) fits any kind; "!" a separator too long to join one number."""
    visible = _INVISIBLE_RE.sub("", separator)
    if len(visible) > MAX_SEPARATOR_CHARS:
        return "!"
    if visible and all(ch.isspace() or ch in _DASH_CHARS for ch in visible):
        return " "  # spaces and dashes of any width, mixed or not ("4242 4242-4242 4242", " - ")
    return visible


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
        best = None
        for j in range(i, len(groups)):
            a, b = offsets[i], offsets[j + 1]
            if b - a > CARD_MAX_DIGITS:
                break
            if b - a >= CARD_MIN_DIGITS and (sums[b % 2][b] - sums[b % 2][a]) % 10 == 0:
                best = j
        if best is None:
            i += 1
            continue
        out.append((i, best))
        i = best + 1
    return out


def _mask_run(run: re.Match[str]) -> str:
    text = run.group(0)
    groups = list(_GROUP.finditer(text))
    spans: list[tuple[int, int, str]] = []  # (start, end, mask) in `text`
    for chain in _chains(text, groups):
        for i, j in _card_windows(chain):
            start, end = chain[i].start(), chain[j].end()
            if spans and start < spans[-1][1]:
                continue  # the chain's first group was the end of a card already masked
            spans.append((start, end, card_mask("".join(g.group(0) for g in chain[i:j + 1]))))
    if not spans:
        return text
    out, cursor = [], 0
    for start, end, mask in spans:
        out += [text[cursor:start], mask]
        cursor = end
    out.append(text[cursor:])
    return "".join(out)


def _phone_plus(match: re.Match[str]) -> str:
    text = match.group(0)
    digits = sum(ch.isdigit() for ch in text)
    if not 10 <= digits <= 15 or re.search(f"[{_PHONE_SEPARATORS}]{{3}}", text):
        return text
    return MASKS["phone"]


def mask_contacts(text: str, keep: Collection[str] = ()) -> str:
    """E-mail addresses, SSN-shaped and phone-shaped numbers in `text` → their masks, except those whose
    `contact_key` is in `keep`."""

    def sub(kind: str) -> Callable[[re.Match[str]], str]:
        def masked(match: re.Match[str]) -> str:
            found = match.group(0)
            return found if keep and contact_key(found) in keep else MASKS[kind]
        return masked

    if "@" in text:
        text = EMAIL.sub(sub("email"), text)
    if any(ch.isdigit() for ch in text):
        text = SSN.sub(sub("ssn"), text)
        if "+" in text:
            text = _PHONE_PLUS.sub(lambda m: m.group(0) if _phone_plus(m) == m.group(0) else sub("phone")(m), text)
        text = _PHONE_NANP.sub(sub("phone"), text)
    return text


def mask_text(text: str, keep: Collection[str] = ()) -> str:
    """Every e-mail, SSN, phone number (but those in `keep`, by `contact_key`) and card-like number in `text`
    masked (see the module docstring)."""
    text = mask_contacts(text, keep)
    return _DIGIT_RUN.sub(_mask_run, text) if any(ch.isdigit() for ch in text) else text


def contact_kind(value: str) -> str | None:
    """"email" | "ssn" | "phone" when `value` is, as a whole, one e-mail address, SSN or phone number."""
    value = value.strip()
    if not value or len(value) > 320:
        return None
    for kind, rule in (("email", EMAIL), ("ssn", SSN), ("phone", _PHONE_NANP)):
        if rule.fullmatch(value):
            return kind
    plus = _PHONE_PLUS.fullmatch(value)
    return "phone" if plus is not None and _phone_plus(plus) != value else None


def contact_key(value: str) -> str:
    """What identifies a contact value however it is written: an e-mail case-folded, a number's (last ten) digits."""
    value = unicodedata.normalize("NFKC", value).strip()
    return value.casefold() if "@" in value else re.sub(r"\D", "", value)[-10:]  # a phone with or without +1
