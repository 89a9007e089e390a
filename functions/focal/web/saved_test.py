""""Save as test": a recorded session written as a one-conversation `tests.yaml` (focal/cli/conversation_tests.py).

Each turn's expectations are what the turn did, written so that the test still passes when something the turn
did not depend on changes, and fails when the outcome does:

- rules by inclusion (`matched_rules_include`): another rule retrieved beside them is no failure;
- tool calls with the arguments they ran with (`{tool_id: {argument: value}}`), blocked tools, violations;
- `response_contains` only for an answer in the agent's own words (never a model's wording, which changes from
  call to call): the longest run of the agent file's text between placeholders that the answer says, taken from
  the flows and messages, or from the rules the turn's outcome names (a violated rule, a guard that blocked) —
  never from a rule that was only retrieved, whose text comes and goes with retrieval.

Records are stored masked (`focal.pii`): a masked value is gone, so no argument, profile field or response part
that shows a mask is expected, and a turn whose message holds one is named in the file's header.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import yaml

from focal.models.agent import AgentConfig
from focal.models.turn import TurnRecord
from focal.pii import holds_mask
from focal.variables import literal_parts

SCALARS = (str, int, float, bool)  # the argument values a `tool_calls` expectation compares (focal.cli.tool_expect)
MIN_PART_CHARS = 12  # shorter runs of text ("Ticket ", ") is due on ") say too little to pin an answer
MAX_PART_CHARS = 80


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _clipped(part: str) -> str:
    if len(part) <= MAX_PART_CHARS:
        return part
    cut = part[:MAX_PART_CHARS]
    return cut[:cut.rfind(" ")].rstrip() if " " in cut else cut


def _phrases(document: Any) -> set[str]:
    parts = {p.strip().lstrip(").,;:!?").strip() for text in _strings(document) for p in literal_parts(text)}
    return {p for p in parts if len(p) >= MIN_PART_CHARS and " " in p and not holds_mask(p)}


@dataclass(frozen=True)
class AgentTexts:
    """The runs of the agent file's text between placeholders, long enough to pin an answer: those of everything but
    the rules, and each rule's own."""

    flows: frozenset[str]
    rules: dict[str, frozenset[str]]

    @classmethod
    def of(cls, agent: AgentConfig) -> AgentTexts:
        return cls(frozenset(_phrases(agent.model_dump(mode="json", exclude={"rules"}))),
                   {r.id: frozenset(_phrases(r.model_dump(mode="json"))) for r in agent.rules})

    def for_turn(self, rule_ids: Iterable[str]) -> list[str]:
        """The texts an answer of a turn may say whatever was retrieved, longest first."""
        texts = set(self.flows).union(*(self.rules.get(r, frozenset()) for r in rule_ids))
        return sorted(texts, key=lambda p: (-len(p), p))


def _outcome_rules(record: TurnRecord) -> list[str]:
    """The rules the turn's outcome names: those that blocked a draft or stopped an action."""
    r = record.result
    guards = [g["rule_id"] for t in r.tool_calls for g in t.get("guards") or [] if not g.get("passed", True)]
    return [v["rule_id"] for v in r.enforcement.get("violations", [])] + guards


def stable_part(record: TurnRecord, texts: AgentTexts) -> str | None:
    """The part of the answer every run of the same conversation says: agent text only, none for a model's draft."""
    shown = next((d for d in (record.state.get("generate") or {}).get("drafts") or [] if d.get("text") == record.result.response), None)
    if shown is not None and shown.get("source") == "model":
        return None
    response = record.result.response.casefold()
    part = next((p for p in texts.for_turn(_outcome_rules(record)) if p.casefold() in response), None)
    return _clipped(part) if part else None


def _tool_entry(call: dict[str, Any]) -> str | dict[str, dict[str, Any]]:
    args = {name: value for name, value in (call.get("arguments") or {}).items()
            if isinstance(value, SCALARS) and not holds_mask(value)}
    return {call["tool_id"]: args} if args else call["tool_id"]


def expectations(record: TurnRecord, texts: AgentTexts) -> dict[str, Any]:
    """What a turn did, in the conversation-test keys (conversation_tests.check_turn)."""
    r = record.result
    expect: dict[str, Any] = {"execution_path": r.execution_path, "scenario": (r.scenario or {}).get("id")}
    if r.scenario:
        expect["step"] = r.scenario.get("step_id")
    expect["commands"] = sorted(c["name"] for c in r.commands)
    if r.matched_rules:
        expect["matched_rules_include"] = sorted(r.matched_rules)
    ok = [_tool_entry(t) for t in r.tool_calls if t.get("status") == "ok"]
    if ok or not r.tool_calls:
        expect["tool_calls"] = list({json.dumps(e, sort_keys=True): e for e in ok}.values())
    expect["blocked_tools"] = sorted({t["tool_id"] for t in r.tool_calls if t.get("status") == "blocked"})
    expect["violations"] = list(dict.fromkeys(v["rule_id"] for v in r.enforcement.get("violations", [])))
    expect["regenerations"] = r.enforcement.get("regenerations", 0)
    expect["fallback_used"] = bool(r.enforcement.get("fallback_used"))
    if r.approval_state != "none":
        expect["approval_state"] = r.approval_state
    if (part := stable_part(record, texts)) is not None:
        expect["response_contains"] = part
    return expect


def suite_text(agent: AgentConfig, records: list[TurnRecord], session_id: str) -> str:
    """The session as a `tests.yaml` text; `records` in the sequence of the turns, at least one."""
    conversation: dict[str, Any] = {"name": f"playground session {session_id}", "customer_id": records[0].customer_id}
    declared = {f.field_name for f in agent.profile_field_definitions}
    fields = (records[0].state.get("profile") or {}).get("fields") or {}
    profile = {k: v for k, v in fields.items() if k in declared and not holds_mask(v)}
    if profile:
        conversation["profile"] = profile
    texts = AgentTexts.of(agent)
    messages = [(r.state.get("request") or {}).get("message", "") for r in records]
    conversation["turns"] = [{"user": m, "expect": expectations(r, texts)} for m, r in zip(messages, records, strict=True)]
    header = [(f"# Recorded in the focal playground: agent {agent.id}, session {session_id}, "
               f"{datetime.now(UTC).strftime('%Y-%m-%d %H:%M')} UTC."),
              "# The expectations are what the agent did then; edit them to what it should do.",
              "# Run: focal test AGENT_FILE THIS_FILE"]
    if any(r.state.get("model_calls") for r in records):
        header.append("# Some turns used a model; `focal test` runs offline unless a turn scripts `model:` outputs.")
    masked = [str(i) for i, m in enumerate(messages, 1) if holds_mask(m)]
    if masked:
        header.append(f"# Turn(s) {', '.join(masked)}: the message was stored masked (personal data); "
                      "write a test value in place of each mask.")
    return "\n".join(header) + "\n" + yaml.safe_dump({"conversations": [conversation]}, sort_keys=False,
                                                      allow_unicode=True, width=120)
