"""The sensor model's prompt: small, its fixed part first, and only what the offline reading makes likely.

A small model reads a short prompt in time and echoes a long one back, so the prompt carries:

- first, the fixed part (the same bytes on every turn, so a provider can cache it): the instructions and
  the data rule (the command names and fields' shapes are in the call's JSON schema);
- then the last exchange (the agent's question, tail-first, and the customer's message before it), as data;
- last, one data block: the active flow (its step, the slots it asks for and those it holds), the
  `TOP_K` scenarios the offline reading scored highest (plus the active one), the fields those scenarios'
  slots read (those the step still asks for, then the rest of the active flow's — outside a flow, the two
  likeliest scenarios'; `MAX_FIELDS` at most), the conditions to read, and the message.

`prompt_tokens` is the rough size (characters / 4) that tests hold under `TOKEN_BUDGET`.
"""

from __future__ import annotations

from typing import Any

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule, Scenario
from focal.models.context import Context
from focal.models.session import Session
from focal.prompt_data import DATA_RULE, data_block, data_message

TOP_K = 5  # scenarios shown: the offline reading's best few, never the whole catalogue
FIELD_SCENARIOS = 2  # the likeliest scenarios whose slots' fields are described (plus the active flow's)
EXAMPLES = 1  # entry examples per scenario shown
EXAMPLE_CHARS = 70
DESCRIPTION_CHARS = 44
MAX_FIELDS = 8  # fields described
MAX_ALLOWED = 8  # an enum's allowed values are listed up to this many
HISTORY_TURNS = 2  # the agent's last question and the customer's message before it
HISTORY_CHARS = 140  # of each earlier turn; an agent's turn is cut from its start (its question ends it)
VALUE_CHARS = 60  # of each slot value the flow holds
TOKEN_BUDGET = 600  # what a prompt may take (rough tokens) on the example agents at realistic turns


def prompt_tokens(messages: list[dict[str, str]]) -> int:
    """A rough token count: characters / 4 (no tokenizer is loaded for it)."""
    return sum(len(m.get("content", "")) for m in messages) // 4


def system_text(with_conditions: bool) -> str:
    """The fixed part: the same for every turn of every agent (two variants: with conditions or without)."""
    return (
        "Read the customer's message; answer with one JSON object of the schema, never a copy of the data. "
        "detected_intent: an id of `scenarios`, or null. commands: what the message says; a SetSlot value only "
        "from the customer's words, never made up. "
        + ("For each of `conditions`: holds, does_not_hold, or depends_on_reply (about the agent's answer, or "
           "unclear). " if with_conditions else "")
        + DATA_RULE
    )


def shown_scenarios(agent: AgentConfig, session: Session, context: Context | None) -> list[Scenario]:
    """The active flow's scenario first, then the offline reading's best, `TOP_K` in all."""
    ranked: list[str] = [session.active_scenario_id] if session.active_scenario_id else []
    scores = sorted(context.intent_scores, key=lambda s: -s.score) if context else []
    ranked += [s.scenario_id for s in scores]
    if not scores:  # no offline scores (a reading without them): the catalogue's first few
        ranked += [s.id for s in agent.scenarios]
    seen: list[Scenario] = []
    for sid in ranked:
        scenario = agent.scenario(sid)
        if scenario is not None and scenario not in seen:
            seen.append(scenario)
        if len(seen) >= TOP_K:
            break
    return seen


def _field(f: ProfileFieldDefinition, lean: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"name": f.field_name}
    if f.field_type != "string":
        out["type"] = f.field_type
    if f.description and not lean:
        out["about"] = _cut(f.description, DESCRIPTION_CHARS)
    if f.allowed_values:
        out["allowed_values"] = f.allowed_values[:MAX_ALLOWED]
    return out


def _slot_names(agent: AgentConfig, scenarios: list[Scenario], session: Session) -> list[str]:
    """The slots whose fields are described, most useful first: those the step on screen still asks for, then
    the rest of the active flow's — or, outside a flow, the likeliest scenarios'."""
    step = agent.step(session.active_scenario_id, session.active_step_id)
    names = [slot.name for slot in step.slots if session.slots.get(slot.name) in (None, "", [])] if step else []
    described = scenarios[:1] if session.active_scenario_id else scenarios[:FIELD_SCENARIOS]
    names += [slot.name for s in described for st in s.steps for slot in st.slots]
    return list(dict.fromkeys(names))


def _fields(agent: AgentConfig, scenarios: list[Scenario], session: Session, lean: bool) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for name in _slot_names(agent, scenarios, session):
        f = agent.field(name)
        if f is not None and "message" in f.sources and not f.privileged:
            out.append(_field(f, lean))
        elif f is None:
            out.append({"name": name})
        if len(out) >= MAX_FIELDS:
            break
    return out


def _cut(text: str, limit: int, tail: bool = False) -> str:
    text = " ".join(str(text).split())
    if len(text) <= limit:
        return text
    return "…" + text[-limit:] if tail else text[:limit] + "…"


def _flow(agent: AgentConfig, session: Session) -> dict[str, Any]:
    step = agent.step(session.active_scenario_id, session.active_step_id)
    if step is None:
        return {"active_flow": None, "asking_for_slots": []}
    waiting = [s.name for s in step.slots if session.slots.get(s.name) in (None, "")]
    held = {k: _cut(v, VALUE_CHARS) if isinstance(v, str) else v for k, v in session.slots.items()
            if v not in (None, "", [])}
    return {"active_flow": session.active_scenario_id, "active_step": session.active_step_id,
            "asking_for_slots": waiting, "slots": held}


def sensor_prompt(agent: AgentConfig, session: Session, text: str, rules: list[Rule],
                  context: Context | None = None, lean: bool = False) -> list[dict[str, str]]:
    """The messages of the sensor call (see the module). `lean`: without the earlier turns, the scenarios'
    examples and the fields' descriptions (the repair prompt)."""
    scenarios = shown_scenarios(agent, session, context)
    brief: dict[str, Any] = {
        **_flow(agent, session),
        "scenarios": [{"id": s.id, **({"label": s.intent_label} if s.intent_label and s.intent_label != s.id else {}),
                       **({} if lean else {"examples": [_cut(e, EXAMPLE_CHARS) for e in s.entry_examples[:EXAMPLES]]})}
                      for s in scenarios],
        "fields": _fields(agent, scenarios, session, lean),
        **({"conditions": [{"rule_id": r.id, "condition": r.condition_text} for r in rules]} if rules else {}),
    }
    history = [] if lean else [
        {"role": h.role, "content": data_block("earlier_turn", _cut(h.text, HISTORY_CHARS, tail=h.role == "assistant"))}
        for h in session.history[-HISTORY_TURNS:]]
    return [
        {"role": "system", "content": system_text(bool(rules))},
        *history,
        data_message("turn", {"context": brief, "customer_message": text}),
    ]


def repair_prompt(agent: AgentConfig, session: Session, text: str, rules: list[Rule], context: Context | None,
                  problem: str) -> list[dict[str, str]]:
    """The one retry after an answer that did not validate: the lean prompt with a one-line note, never the
    rejected answer (an echo sent back is echoed again), so it is no longer than the first prompt."""
    messages = sensor_prompt(agent, session, text, rules, context, lean=True)
    note = f"\nYour previous answer was invalid ({_cut(problem, 80)}). Answer with one valid JSON object."
    messages[-1] = {"role": "user", "content": messages[-1]["content"] + note}
    return messages
