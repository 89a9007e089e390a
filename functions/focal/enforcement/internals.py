"""Internal names in an answer: the agent's own identifiers — rule, field, tool, scenario and step ids written in
snake_case (`stay_limit`, `is_vip`) — are how the configuration talks, never how the agent talks to a
customer. A model that writes one is reciting its instructions or its data block (a red team's draft quoted
its cap rule's id and a privileged field's name and passed). Only model drafts are read (the business's own texts say what they
say), and an identifier the business itself writes in a customer-facing text (outside a `{placeholder}`) is
its vocabulary, not a leak.
"""

from __future__ import annotations

import re

from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.text.views import check_view

_PLACEHOLDER = re.compile(r"\{\w+\}")
_SNAKE = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$", re.IGNORECASE)


def customer_texts(agent: AgentConfig) -> list[str]:
    """The agent's texts said to customers, placeholders blanked."""
    texts = [agent.greeting, agent.out_of_scope_message, agent.enforcement.fallback_message,
             agent.pre_validation.refusal_message, *agent.pre_validation.refusal_messages.values()]
    for rule in agent.rules:
        texts += [rule.response_template or "", rule.fallback_text or ""]
    for scenario in agent.scenarios:
        for step in scenario.steps:
            texts += [step.confirmation_prompt or "", step.response_template or "", step.clarification_hint or ""]
            texts += [s.prompt for s in step.slots if s.prompt]
    return [_PLACEHOLDER.sub(" ", t) for t in texts if t]


def _build(agent: AgentConfig) -> tuple[re.Pattern[str] | None, tuple[str, ...]]:
    names = internal_names(agent)
    pattern = re.compile(rf"(?<![\w-])(?:{'|'.join(map(_written, names))})(?![\w-])", re.IGNORECASE) if names else None
    return pattern, names


# agents are long-lived objects of the config store
_compiled: PerObject[AgentConfig, tuple[re.Pattern[str] | None, tuple[str, ...]]] = PerObject(_build, size=32)


def _written(name: str) -> str:
    """The ways an id is written: as is, run together ("stayLimit", "IsVip") and, with three parts or more,
    hyphenated ("Max-Stay-Limit"; two hyphenated words are too often plain English: "check-in", "add-on")."""
    parts = [re.escape(p) for p in name.split("_")]
    joiner = "[_-]?" if len(parts) >= 3 else "_?"
    return joiner.join(parts)


def internal_names(agent: AgentConfig) -> tuple[str, ...]:
    """The agent's snake_case identifiers that none of its customer-facing texts uses."""
    ids = [r.id for r in agent.rules] + [f.field_name for f in agent.profile_field_definitions]
    ids += [t.id for t in agent.tools] + [s.id for s in agent.scenarios]
    ids += [st.id for s in agent.scenarios for st in s.steps]
    said = " ".join(customer_texts(agent)).lower()
    return tuple(sorted({i for i in ids if _SNAKE.match(i) and not re.search(rf"(?<!\w){re.escape(i.lower())}(?!\w)", said)}))


def _plain_compound(written: str) -> bool:
    """A hyphenated lowercase compound ("out-of-hours", "up-to-date", "pay-as-you-go") is English, whatever id it
    spells; an id disguised by hyphens keeps a capital ("Max-Stay-Limit") or an underscore."""
    return "-" in written and "_" not in written and written.islower()


def leaked_names(agent: AgentConfig, draft: str) -> list[str]:
    """The internal names the draft writes as whole words (case-insensitively), read in the check view like every
    other check: a name spelled with look-alike letters ("dеlivery_address" with a Cyrillic е) or invisible
    characters is the name a customer reads."""
    pattern, names = _compiled(agent)
    if pattern is None:
        return []
    by_key = {n.replace("_", "").lower(): n for n in names}
    found = (m.group(0) for m in pattern.finditer(check_view(draft)) if not _plain_compound(m.group(0)))
    return list(dict.fromkeys(by_key.get(re.sub(r"[_-]", "", w).lower(), w) for w in found))
