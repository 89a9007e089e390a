"""Masking at rest: what a store writes holds no payment card number, e-mail address, phone number or SSN
typed in text, and no `pii: true` field's value.

Three rules, applied by every store adapter to the JSON document it is about to write (sessions, turn
records, episodes — `focal.adapters.sqlite_store`, `focal.adapters.dynamodb_store`); the live turn
keeps the clear values, only the stored copy is masked:

- **Card-like strings, always** (no agent needed; `focal.pii_text`): 13 to 19 digits, in groups joined
  by any short separator (one to three characters that are no letter or digit: spaces of any width,
  line breaks, dots, dashes of any width, slashes, underscores, a bracket around a group; or an ``x``),
  that pass the Luhn check → ``**** **** **** 4242`` (the last four digits kept, in ASCII).
  A long number that fails Luhn (a tracking number, a booking reference) is left as it is, and so are
  numbers written one after another with different separators (a list of amounts or dates). In a run
  of groups that is longer than a card (a reference number typed just before a card), the Luhn-valid
  card-sized window of whole groups is masked.
- **Contacts in text, always** (`focal.pii_text`): an e-mail address → ``[email]`` (nothing kept, not
  even the domain), an SSN (three, two and four digits joined by one dash, dot, slash, underscore or
  space) → ``[ssn]``, a phone number with its country (``+``, ``00``, ``011``; libphonenumber,
  `focal.pii_phones`) or a North American one written like one → ``[phone]``, an IBAN whose ISO 7064 check
  digits hold (`focal.pii_iban`) → ``[iban]``; bare digit runs are
  references, not phone numbers. A card's security code (three or four digits next to a card or to the
  words for it, `focal.pii_cvv`) → ``[cvv]``: never stored.
  A contact that is a whole value in a dict of named values (a slot, variable, extracted entity, tool
  argument or output, a SetSlot/CorrectSlot value) is kept — there, and where the same document's text repeats it,
  however it is written (the same folded address, the same digits): a later turn needs it (a tool run
  after the customer confirms, the approval gate's "in the customer's own words"). A contact inside a
  longer value is masked. To mask a collected contact too, mark its field `pii: true`.
- **`pii: true` fields** (the agent's `profile_field_definitions`): the value → ``[redacted:<field>]``
  wherever the document holds it under the field's name (slots, variables, extracted entities,
  tool arguments, draft and guard variables, a SetSlot/CorrectSlot command's value, an interrupted
  flow's slots); the same value where it occurs inside any text of the same document (the message,
  the history, drafts, the response, tool outputs), read folded like the text rules — values with five or
  more digits match whatever separators and digits (``５``, ``٥``) the customer typed, other values of four
  or more characters match case-insensitively. The field's `pattern` is not used: a broad one would mangle other values (a
  booking reference, another slot). Once stored masked, a value is no longer known: if the customer types it
  again and nothing reads it into the field, that later text keeps it (the text rules still apply).

The text rules read each string in the masking view (`focal.pii_view` on `focal.text`'s check view: NFKC,
invisible characters and marks on no letter dropped, letters that look Latin in a Latin word as Latin ones, every
decimal digit of any script as its ASCII digit, spelled digits in English, Spanish, German
and French as digits, an address spelled for a human — ``jane [at] example [dot] com`` — as an address), so
a card in full-width or Arabic-Indic digits or in words, or an address with a full-width ``＠`` is found; the
mask replaces the characters the value was typed in, and the rest of the text (a Russian or Arabic sentence)
is stored as typed.

A card typed over several messages, and a security code typed alone after a card, are read across the
conversation (`focal.pii_carry`): persist masks them in every document the turn writes (`digit_rules`) and
in the stored records of the earlier messages.

One pass: a document is walked once (`_Masker.read` copies it, masks the `pii: true` values and collects
the values that decide how its text is masked), then each distinct string is masked once (`finish`); a
string with nothing the rules read (ASCII, no digit, no ``@``, no spelled value) is left as it is.

A masked value is not a usable one: ``[redacted:phone]``, ``[email]`` and ``[phone]`` have no digit and
``**** **** **** 4242`` only four, so none matches an id pattern nor a rule again (masking is idempotent).
On the next turn a pii slot reads ``[redacted:<field>]``: it is filled (the flow goes on), but its value is
gone — mark `pii: true` only the values the agent needs in the turn that collects them. A step about to act whose
own slot holds a mask asks for it again (`flow._masked_input`): a tool never receives a mask as a value.
Ids that key the stores (tenant, agent, session, customer, turn, approval, idempotency key) are never
rewritten. The lookup of the agent failing leaves the text rules only.

Two texts are stored beside documents that do not hold the turn's values, so they are masked with the
turn before they reach a store (`TurnTexts`, the turn's values read once): the history entries persist appends (on a session
conflict or in the fallback stage they go onto the stored session, which lacks this turn's slots) and
an episode's `asked` (an episode holds no slots, so its store masks every contact in it). Not masked:
customer profiles (the business's record, read back by tools on every turn), approval requests (they
must run exactly the arguments that were approved) and the idempotency store's copy of a result (24 h).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.turn import TurnState
from focal.pii_text import MASKS, DigitRule, card_mask, contact_key, contact_kind, is_card, luhn_valid, mask_text
from focal.pii_view import masking_view, needs_no_masking

__all__ = ["KEEP_KEYS", "NAMED_VALUES", "TurnTexts", "agent_lookup", "card_mask", "digit_rules", "holds_mask",
           "luhn_valid", "mask_record", "mask_text", "mask_turn_text", "mask_value", "masked_json", "pii_fields"]

AgentLookup = Callable[[str, str], AgentConfig | None]

# Never rewritten: they key the stores and carry no customer text.
KEEP_KEYS = frozenset({"tenant_id", "agent_id", "session_id", "customer_id", "turn_id", "approval_id", "request_id",
                       "idempotency_key", "embedding"})
# Dicts whose keys are variable names: a pii field's value there is replaced whole.
NAMED_VALUES = frozenset({"slots", "variables", "extracted_entities", "arguments", "outputs", "fields"})
SLOT_COMMANDS = frozenset({"SetSlot", "CorrectSlot"})
MIN_DIGITS_IN_TEXT, MIN_CHARS_IN_TEXT = 5, 4
_VALUE_SEPARATOR = r"(?:[^\w\n\r]|_){0,4}"  # between the digits of a pii value found in text (any, invisible too)


def mask_value(field: str, value: Any) -> Any:
    """A `pii: true` field's value as stored: ``[redacted:<field>]``; None (not given) stays None."""
    return None if value is None else f"[redacted:{field}]"


# Every mask the rules above write: a stored value that shows one has lost its clear value.
_MASK_FORMS = re.compile("|".join([re.escape(mask_value("F", "")).replace("F", r"[^\]\n]*"),
                                   *(re.escape(m) for m in MASKS.values()), re.escape(card_mask(""))]))


def holds_mask(value: Any) -> bool:
    """Whether a stored value (a string, or any string inside a list or dict) shows a mask: what the customer or a
    tool gave there is gone, so nothing can be replayed or compared against it."""
    if isinstance(value, str):
        return _MASK_FORMS.search(value) is not None
    if isinstance(value, dict):
        return any(holds_mask(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(holds_mask(v) for v in value)
    return False


def pii_fields(agent: AgentConfig | None) -> dict[str, ProfileFieldDefinition]:
    if agent is None:
        return {}
    return {f.field_name: f for f in agent.profile_field_definitions if f.pii}


def _value_pattern(value: Any) -> re.Pattern[str] | None:
    """How a pii value is found inside text: its digits with any separators, or its words case-insensitively."""
    text = masking_view(str(value)).strip()  # found in the folded text: "４１５…" typed for "415…" too
    digits = re.sub(r"\D", "", text)
    if len(digits) >= MIN_DIGITS_IN_TEXT and len(digits) * 2 >= len(re.sub(r"\s", "", text)):
        return re.compile(r"(?<![\d+])\+?\(?" + _VALUE_SEPARATOR.join(digits) + r"(?!\d)")
    if len(text) >= MIN_CHARS_IN_TEXT:
        return re.compile(r"\s+".join(re.escape(word) for word in text.split()), re.IGNORECASE)
    return None


class _Masker:
    """One document's masking: one walk over it (`read`) copies it, masks each `pii: true` field's value in
    place and collects the values that decide how its text is masked (the pii values, the contacts held as a
    value); then `finish` masks each distinct string once, wherever it occurs."""

    def __init__(self, agent: AgentConfig | None) -> None:
        self.fields = pii_fields(agent)
        self.text_rules: list[tuple[re.Pattern[str], str]] = []  # a pii value found in the document → its mask
        self.kept: set[str] = set()  # contact values (e-mail, phone number, SSN) held whole as a named value: left in text
        self.digit_rules = _DIGIT_RULES.get()  # a card's part or a security code typed in another message of the turn
        self._kinds: dict[str, str | None] = {}
        self._strings: list[tuple[dict[str, Any] | list[Any], Any, str, bool]] = []  # (container, key, text, named)

    def _kind(self, value: str) -> str | None:
        if value not in self._kinds:
            self._kinds[value] = contact_kind(value)
        return self._kinds[value]

    def read(self, obj: Any, key: str | None = None, named: bool = False, copy: bool = True) -> Any:
        """`obj` copied (`copy`; else only read) with its pii field values masked and its strings left for `finish`.
        `named`: inside a dict of named values (a slot, variable, argument…) or a SetSlot/CorrectSlot value."""
        if isinstance(obj, dict):
            return self._read_dict(obj, key, named, copy)
        if isinstance(obj, list):
            out: list[Any] = []
            for item in obj:
                out.append(self._child(out, len(out), item, key, named, copy))
            return out if copy else None
        return self._child(None, None, obj, key, named, copy)

    def _child(self, container: dict[str, Any] | list[Any] | None, at: Any, obj: Any, key: str | None, named: bool,
               copy: bool) -> Any:
        """One value of a dict or list: a string is left for `finish` (a contact held as a value noted), a
        dict or list read, an int that is a card number masked."""
        kind = type(obj)
        if kind is str:
            if named and self._kind(obj):
                self.kept.add(contact_key(obj))
            if copy and container is not None:
                self._strings.append((container, at, obj, named))
            return obj
        if kind is dict or kind is list:
            return self.read(obj, key, named, copy)
        if copy and kind is int and is_card(str(abs(obj))):
            return card_mask(str(abs(obj)))
        return obj

    def _read_dict(self, obj: dict[str, Any], key: str | None, named: bool, copy: bool) -> dict[str, Any] | None:
        values = key in NAMED_VALUES
        command = obj.get("name") in SLOT_COMMANDS
        slot = obj.get("slot") if command else None
        command_slot = slot if isinstance(slot, str) and slot in self.fields else None
        if command_slot is not None:
            self._add(command_slot, obj.get("value"))
        out: dict[str, Any] = {}
        for k, v in obj.items():
            if k in KEEP_KEYS:
                out[k] = v
            elif values and k in self.fields:
                self._add(k, v)
                out[k] = mask_value(k, v)
            elif command_slot is not None and k == "value":
                self.read(v, k, True, copy=False)  # a contact typed there is still one the text may repeat
                out[k] = mask_value(command_slot, v)
            else:
                out[k] = self._child(out, k, v, k, named or values or (command and k == "value"), copy)
        return out if copy else None

    def _add(self, name: str, value: Any) -> None:
        for item in value if isinstance(value, list) else [value]:
            if item is None or isinstance(item, bool) or (isinstance(item, str) and item.startswith("[redacted:")):
                continue
            pattern = _value_pattern(item)
            if pattern is not None:
                self.text_rules.append((pattern, f"[redacted:{name}]"))

    def text(self, value: str, named: bool = False) -> str:
        if named and self._kind(value) and not any(p.search(masking_view(value)) for p, _ in self.text_rules):
            return value  # a slot, variable or argument that is an e-mail, phone number or SSN: a later turn needs it
        return mask_text(value, keep=self.kept, values=self.text_rules, rules=self.digit_rules)

    def finish(self) -> None:
        """Mask every string `read` left, each distinct one once (one that holds nothing the rules read is left
        as it is, unless a pii value may be in it)."""
        done: dict[tuple[str, bool], str] = {}
        plain = not self.text_rules
        for container, key, value, named in self._strings:
            masked = done.get((value, named))
            if masked is None:
                masked = done[(value, named)] = value if plain and needs_no_masking(value) else self.text(value, named)
            if masked is not value:
                container[key] = masked
        self._strings.clear()


_DIGIT_RULES: ContextVar[tuple[DigitRule, ...]] = ContextVar("pii_digit_rules", default=())


@contextmanager
def digit_rules(rules: Sequence[DigitRule]) -> Iterator[None]:
    """Within: every document masked (by a store, `mask_turn_text`) also masks the digits these rules name — a
    card's parts or a security code that only the conversation shows (`focal.pii_carry`)."""
    token = _DIGIT_RULES.set(tuple(rules))
    try:
        yield
    finally:
        _DIGIT_RULES.reset(token)


def mask_record(obj: Any, agent: AgentConfig | None, context: Any = None) -> Any:
    """A masked copy of a JSON-like document (dicts, lists, scalars); `agent` None: no pii field, the text rules
    only. `context`: another document whose pii and contact values count as the document's own (e.g. the turn
    that wrote a text). One walk over the document (and one over the context); each distinct string masked once."""
    masker = _Masker(agent)
    out = masker.read(obj)
    if context is not None:
        masker.read(context, copy=False)
    if isinstance(out, str):
        return masker.text(out)
    masker.finish()
    return out


class TurnTexts:
    """The turn's texts (the message, the answer) as stored beside a document that may not hold this turn's
    values (an episode, the history of a session another turn saved): the turn's pii values, card numbers and
    the contacts the turn does not hold as a value masked. The turn's values are read once for all its texts."""

    def __init__(self, state: TurnState, agent: AgentConfig | None) -> None:
        ctx = state.sensor.context
        values = {
            "session": state.session.model_dump(mode="json", include={"slots", "variables", "flow_stack"}) if state.session else {},
            "context": {"extracted_entities": ctx.extracted_entities} if ctx else {},
            "commands": [c.model_dump(mode="json") for c in [*state.sensor.commands, *(ctx.commands if ctx else [])]],
            "tool_calls": [{"arguments": t.arguments} for t in state.tools.tool_calls],
            "resume": {"arguments": state.resume.arguments} if state.resume else {},
        }
        self._masker = _Masker(agent)
        self._masker.read(values, copy=False)
        self._done: dict[str, str] = {}

    def mask(self, text: str) -> str:
        if text not in self._done:
            self._masker.digit_rules = _DIGIT_RULES.get()
            self._done[text] = self._masker.text(text)
        return self._done[text]


def mask_turn_text(text: str, state: TurnState, agent: AgentConfig | None) -> str:
    """`text` masked as `TurnTexts` does (one text; a turn with several reads its values once with `TurnTexts`)."""
    return TurnTexts(state, agent).mask(text)


def agent_lookup(configs: Any, ttl_s: float = 30.0) -> AgentLookup:
    """(tenant, agent) → the agent definition the stores mask with, cached `ttl_s` seconds; None when it
    cannot be read (the card rule still applies)."""
    cache: dict[tuple[str, str], tuple[float, AgentConfig | None]] = {}
    lock = threading.Lock()

    def lookup(tenant_id: str, agent_id: str) -> AgentConfig | None:
        now = time.monotonic()
        with lock:
            hit = cache.get((tenant_id, agent_id))
        if hit is not None and now - hit[0] < ttl_s:
            return hit[1]
        try:
            agent = configs.get_agent(tenant_id, agent_id)
        except Exception:  # noqa: BLE001 - an unreadable config must not lose the write; cards are still masked
            return None
        with lock:
            cache[(tenant_id, agent_id)] = (now, agent)
        return agent

    return lookup


def masked_json(document: dict[str, Any], lookup: AgentLookup | None) -> str:
    """The JSON text a store writes for `document` (a model's `model_dump(mode="json")`)."""
    agent = lookup(document.get("tenant_id", ""), document.get("agent_id", "")) if lookup is not None else None
    return json.dumps(mask_record(document, agent), ensure_ascii=False, separators=(",", ":"))
