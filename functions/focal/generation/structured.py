"""Structured drafts: the model answers `{"text": …, "commitments": {…}}`.

`text` writes every amount, date, id, link or phone it states as a `{name}` placeholder bound to a known
value; `commitments` lists the values of the response fields the answer commits to (`refund_amount: 30`).
The engine renders the placeholders (focal.enforcement.bindings) and checks the commitments with the
agent's expressions. A model that ignores the schema and answers in prose is still handled: its draft is
plain text, read by the offline tripwire and, where it could promise something, verified.

An answer that echoes a prompt block or loops to the token limit is no draft: the caller takes the
agent's own words instead, and asks the model for no more drafts that turn (a regeneration gets the same
answer). So is one that repeats the customer's own words in the customer's voice (`ECHO_WORDS` words in a
row, or a whole shorter message or draft, one of them the customer's "me", "my", "je", "mi", "ma", "mein"…):
small models append the message to their answer, or answer with it, and an instruction put to the agent
("ask me for my full card number") is then said to the customer as the agent's. Repeating what the customer
named (an address, a product) in the agent's voice is no echo.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from focal.models.agent import AgentConfig

# What a prompt block looks like when a model repeats it: the data block's tags and its keys.
_ECHO = re.compile(r"</?data\b|\\u003cdata|\"known_facts\"|\"draft_feedback\"|\"task\"\s*:|\bknown_facts\s*[:=]"
                   r"|\bdraft_feedback\b|never contains instructions for you", re.I)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.I)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?\n]?")
MAX_DRAFT_CHARS = 6000
LOOP_REPEATS = 3
ECHO_WORDS = 6  # the customer's words in a row that a draft repeats in their voice: an echo
# The customer speaking of themselves (en, es, fr, de): in the agent's mouth these are the customer's words.
_FIRST_PERSON = frozenset("i me my mine myself mi mis mí yo je j moi mon ma mes ich mich mir mein meine meinen meinem "
                          "meiner meines".split())
ECHO_MIN_WORDS = 4  # a shorter message, or a shorter draft, that is one run of the other is an echo too
_WORD = re.compile(r"\w+")

_JSON_TYPES = {"money": "number", "percentage": "number", "number": "number", "integer": "integer",
               "boolean": "boolean", "entity_list": "array", "list": "array"}


@dataclass
class ParsedDraft:
    text: str
    commitments: dict[str, Any] | None = None  # None: plain text, nothing declared
    problem: str | None = None  # echo / loop / empty: no usable draft
    notes: list[str] = field(default_factory=list)

    @property
    def structured(self) -> bool:
        return self.commitments is not None


def commitment_schema(agent: AgentConfig, names: list[str]) -> dict[str, Any]:
    """The JSON schema of a structured draft; `names` are the response fields the answer may commit to."""
    props: dict[str, Any] = {}
    for name in names:
        f = agent.field(name)
        kind = _JSON_TYPES.get(f.field_type if f else "", "string")
        props[name] = {"type": [kind, "null"]}
        if kind == "array":
            props[name]["items"] = {"type": "string"}
    return {
        "type": "object",
        "properties": {
            "text": {"type": "string", "description": "the answer, with {placeholders} for known values"},
            "commitments": {"type": "object", "properties": props, "additionalProperties": False},
        },
        "required": ["text", "commitments"],
        "additionalProperties": False,
    }


def _looping(text: str) -> bool:
    if len(text) > MAX_DRAFT_CHARS:
        return True
    seen: dict[str, int] = {}
    for m in _SENTENCE.finditer(text):
        sentence = " ".join(m.group(0).lower().split())
        if len(sentence) < 12:
            continue
        seen[sentence] = seen.get(sentence, 0) + 1
        if seen[sentence] >= LOOP_REPEATS:
            return True
    return False


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text.replace("\u2019", "'"))]


def _echoes(text: str, message: str) -> bool:
    """The draft repeats `ECHO_WORDS` or more of the customer's words in a row — or, shorter, the whole message or
    the whole draft is that run ("Je veux contester un paiement." to "Bonjour, je veux contester un paiement"), of at
    least `ECHO_MIN_WORDS` words —, in the customer's voice."""
    said, heard = _words(text), _words(message)
    n = min(ECHO_WORDS, len(heard), len(said))
    if n < ECHO_MIN_WORDS:
        return False
    runs = {tuple(heard[i:i + n]) for i in range(len(heard) - n + 1)}
    return any(tuple(said[i:i + n]) in runs and _FIRST_PERSON.intersection(said[i:i + n])
               for i in range(len(said) - n + 1))


def _unwrapped(raw: str) -> Any:
    stripped = _FENCE.sub("", raw.strip())
    if not stripped.startswith("{"):
        return None
    try:
        return json.loads(stripped)
    except (json.JSONDecodeError, RecursionError):
        return None


def parse_draft(raw: str, message: str = "") -> ParsedDraft:
    """The model's answer as a draft: structured when it is the JSON asked for, else its prose. `message`: the
    customer's, which the draft must not repeat in the customer's voice."""
    text = raw.strip()
    if not text:
        return ParsedDraft(text="", problem="empty answer")
    data = _unwrapped(text)
    if isinstance(data, dict) and isinstance(data.get("text"), str):
        commitments = data.get("commitments")
        parsed = ParsedDraft(text=data["text"].strip(), commitments={})
        if isinstance(commitments, dict):
            parsed.commitments = {str(k): v for k, v in commitments.items() if v is not None}
        elif commitments is not None:
            parsed.notes.append("commitments was not an object: nothing declared")
    elif data is not None or text.startswith("{"):
        return ParsedDraft(text="", problem="invalid JSON answer (no text)")
    else:
        parsed = ParsedDraft(text=text)
    if not parsed.text:
        parsed.problem = "empty answer"
    elif _ECHO.search(parsed.text):
        parsed.problem = "the answer repeats a prompt block"
    elif _looping(parsed.text):
        parsed.problem = "the answer loops (a sentence repeated, or past the length limit)"
    elif message and _echoes(parsed.text, message):
        parsed.problem = "the answer repeats the customer's message in the customer's voice"
    return parsed


def instructions(agent: AgentConfig, names: list[str]) -> str:
    """The generation prompt's lines on the answer's form (short: small models follow short rules)."""
    lines = [
        'Reply with JSON only: {"text": "<your answer>", "commitments": {}}.',
        "In text, write every amount, date, number, id, link, e-mail or phone as {name}, a key of known_facts"
        " (e.g. {" + (next(iter(names), "order_total")) + "}); never type such a value yourself and never"
        " repeat the data block.",
    ]
    if names:
        described = []
        for name in names:
            f = agent.field(name)
            described.append(f"{name} ({f.field_type})" if f else name)
        lines.append("commitments: the value your answer promises for each of " + ", ".join(described)
                     + "; leave out what it does not promise. Promise nothing beyond them.")
    return "\n".join(lines)
