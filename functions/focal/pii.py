"""Masking at rest: what a store writes never holds a payment card number or a `pii: true` field's value.

Two rules, applied by every store adapter to the JSON document it is about to write (sessions, turn
records, episodes — `focal.adapters.sqlite_store`, `focal.adapters.dynamodb_store`); the live turn
keeps the clear values, only the stored copy is masked:

- **Card-like strings, always** (no agent needed): 13 to 19 digits, optionally grouped by a space, two
  spaces, a dot, a dash or a slash (the separators of the retail agent's `card_number_echoed`
  pattern), that pass the Luhn check → ``**** **** **** 4242`` (the last four digits kept). A long
  number that fails Luhn (a tracking number, a booking reference) is left as it is. In a run of groups that
  is longer than a card (a reference number typed just before a card), the Luhn-valid card-sized
  window of whole groups is masked.
- **`pii: true` fields** (the agent's `profile_field_definitions`): the value → ``[redacted:<field>]``
  wherever the document holds it under the field's name (slots, variables, extracted entities,
  tool arguments, draft and guard variables, a SetSlot/CorrectSlot command's value, an interrupted
  flow's slots); the same value where it occurs inside any text of the same document (the message,
  the history, drafts, the response, tool outputs) — values with five or more digits match whatever
  separators the customer typed between them, other values of four or more characters match
  case-insensitively. The field's `pattern` is not used: a broad one would mangle other values (a
  booking reference, another slot). Once stored masked, a value is no longer known: if the customer types it
  again and nothing reads it into the field, that later text keeps it (the card rule still applies).

A masked value is not a usable one: ``[redacted:phone]`` has no digit and ``**** **** **** 4242`` only
four, so neither matches an id pattern nor the card pattern again (masking is idempotent). On the next
turn a pii slot reads ``[redacted:<field>]``: it is filled (the flow goes on), but its value is gone —
mark `pii: true` only the values the agent needs in the turn that collects them.
Ids that key the stores (tenant, agent, session, customer, turn, approval, idempotency key) are never
rewritten. The lookup of the agent failing leaves the card rule only.

Two texts are stored beside documents that do not hold the turn's values, so they are masked with the
turn before they reach a store (`mask_turn_text`): the history entries persist appends (on a session
conflict or in the fallback stage they go onto the stored session, which lacks this turn's slots) and
an episode's `asked`. Not masked: customer profiles (the business's record, read back by tools on
every turn), approval requests (they must run exactly the arguments that were approved) and the
idempotency store's copy of a result (24 h).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from focal.models.agent import AgentConfig, ProfileFieldDefinition
from focal.models.turn import TurnState

AgentLookup = Callable[[str, str], AgentConfig | None]

CARD_MIN_DIGITS, CARD_MAX_DIGITS = 13, 19
# Digit groups joined by one separator (space, dot, dash, slash) or two spaces; maximal runs.
_DIGIT_RUN = re.compile(r"(?<!\d)\d+(?:(?:[ ./-]|  )\d+)*(?!\d)")
_GROUP = re.compile(r"\d+")
# Never rewritten: they key the stores and carry no customer text.
KEEP_KEYS = frozenset({"tenant_id", "agent_id", "session_id", "customer_id", "turn_id", "approval_id", "request_id",
                       "idempotency_key", "embedding"})
# Dicts whose keys are variable names: a pii field's value there is replaced whole.
NAMED_VALUES = frozenset({"slots", "variables", "extracted_entities", "arguments", "outputs", "fields"})
SLOT_COMMANDS = frozenset({"SetSlot", "CorrectSlot"})
MIN_DIGITS_IN_TEXT, MIN_CHARS_IN_TEXT = 5, 4


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


def _is_card(digits: str) -> bool:
    return CARD_MIN_DIGITS <= len(digits) <= CARD_MAX_DIGITS and luhn_valid(digits)


def _mask_run(run: re.Match[str]) -> str:
    text = run.group(0)
    groups = list(_GROUP.finditer(text))
    digits = "".join(g.group(0) for g in groups)
    if _is_card(digits):
        return card_mask(digits)
    if len(groups) < 2 or len(digits) < CARD_MIN_DIGITS:
        return text
    # Not a card as a whole (a number typed next to one): mask each card-sized, Luhn-valid window of whole
    # groups (the longest from each group, left to right).
    out, cursor, i = [], 0, 0
    while i < len(groups):
        best, count = None, 0
        for j in range(i, len(groups)):
            count += len(groups[j].group(0))
            if count > CARD_MAX_DIGITS:
                break
            if _is_card("".join(g.group(0) for g in groups[i:j + 1])):
                best = j
        if best is None:
            i += 1
            continue
        out += [text[cursor:groups[i].start()], card_mask("".join(g.group(0) for g in groups[i:best + 1]))]
        cursor, i = groups[best].end(), best + 1
    out.append(text[cursor:])
    return "".join(out)


def mask_text(text: str) -> str:
    """Every card-like (13–19 digits, Luhn-valid) number in `text` → ``**** **** **** <last 4>``."""
    return _DIGIT_RUN.sub(_mask_run, text) if any(ch.isdigit() for ch in text) else text


def mask_value(field: str, value: Any) -> Any:
    """A `pii: true` field's value as stored: ``[redacted:<field>]``; None (not given) stays None."""
    return None if value is None else f"[redacted:{field}]"


def pii_fields(agent: AgentConfig | None) -> dict[str, ProfileFieldDefinition]:
    if agent is None:
        return {}
    return {f.field_name: f for f in agent.profile_field_definitions if f.pii}


def _value_pattern(value: Any) -> re.Pattern[str] | None:
    """How a pii value is found inside text: its digits with any separators, or its words case-insensitively."""
    text = str(value).strip()
    digits = re.sub(r"\D", "", text)
    if len(digits) >= MIN_DIGITS_IN_TEXT and len(digits) * 2 >= len(re.sub(r"\s", "", text)):
        return re.compile(r"(?<![\d+])\+?\(?" + r"[\s().+/-]{0,3}".join(digits) + r"(?!\d)")
    if len(text) >= MIN_CHARS_IN_TEXT:
        return re.compile(r"\s+".join(re.escape(word) for word in text.split()), re.IGNORECASE)
    return None


class _Masker:
    def __init__(self, agent: AgentConfig | None) -> None:
        self.fields = pii_fields(agent)
        self.text_rules: list[tuple[re.Pattern[str], str]] = []  # a pii value found in the document → its field

    def collect(self, obj: Any, key: str | None = None) -> None:
        """Find the pii values the document holds under a field's name; their occurrences in text are masked too."""
        if isinstance(obj, dict):
            if key in NAMED_VALUES:
                for name, value in obj.items():
                    if name in self.fields:
                        self._add(name, value)
            if obj.get("name") in SLOT_COMMANDS and obj.get("slot") in self.fields:
                self._add(obj["slot"], obj.get("value"))
            for k, v in obj.items():
                self.collect(v, k)
        elif isinstance(obj, list):
            for item in obj:
                self.collect(item, key)

    def _add(self, name: str, value: Any) -> None:
        for item in value if isinstance(value, list) else [value]:
            if item is None or isinstance(item, bool) or (isinstance(item, str) and item.startswith("[redacted:")):
                continue
            pattern = _value_pattern(item)
            if pattern is not None:
                self.text_rules.append((pattern, name))

    def text(self, value: str) -> str:
        for pattern, name in self.text_rules:
            value = pattern.sub(f"[redacted:{name}]", value)
        return mask_text(value)

    def walk(self, obj: Any, key: str | None = None) -> Any:
        if isinstance(obj, dict):
            named = key in NAMED_VALUES
            command_slot = obj.get("slot") if obj.get("name") in SLOT_COMMANDS and obj.get("slot") in self.fields else None
            out = {}
            for k, v in obj.items():
                if k in KEEP_KEYS:
                    out[k] = v
                elif (named and k in self.fields) or (command_slot and k == "value"):
                    out[k] = mask_value(k if named else cast(str, command_slot), v)  # not named: command_slot is set
                else:
                    out[k] = self.walk(v, k)
            return out
        if isinstance(obj, list):
            return [self.walk(item, key) for item in obj]
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, int) and not isinstance(obj, bool) and _is_card(str(abs(obj))):
            return card_mask(str(abs(obj)))
        return obj


def mask_record(obj: Any, agent: AgentConfig | None, context: Any = None) -> Any:
    """A masked copy of a JSON-like document (dicts, lists, scalars); `agent` None: the card rule only.
    `context`: another document whose pii values are masked in `obj` too (e.g. the turn that wrote a text)."""
    masker = _Masker(agent)
    if masker.fields:
        masker.collect(obj)
        if context is not None:
            masker.collect(context)
    return masker.walk(obj)


def mask_turn_text(text: str, state: TurnState, agent: AgentConfig | None) -> str:
    """`text` (the message, the answer) as stored beside a document that may not hold this turn's values
    (an episode, the history of a session another turn saved): the turn's pii values and card numbers masked."""
    if not pii_fields(agent):
        return mask_text(text)
    ctx = state.context
    values = {
        "session": state.session.model_dump(mode="json", include={"slots", "variables", "flow_stack"}) if state.session else {},
        "context": {"extracted_entities": ctx.extracted_entities} if ctx else {},
        "commands": [c.model_dump(mode="json") for c in [*state.commands, *(ctx.commands if ctx else [])]],
        "tool_calls": [{"arguments": t.arguments} for t in state.tool_calls],
        "resume": {"arguments": state.resume.arguments} if state.resume else {},
    }
    return mask_record(text, agent, context=values)


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
