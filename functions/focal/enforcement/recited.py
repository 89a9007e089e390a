"""Hidden instructions recited in an answer: the persona and the tools' and fields' descriptions are how the business
describes its machinery to the model, never what the agent says. A model's draft that repeats a run of `RUN_WORDS`
of their words in a row is reciting them ("I was told: you are the shop's concise assistant and you never…") — unless
the run is also in one of the agent's customer-facing
texts (then it is what the agent says anyway) or in the customer's own message. The rules' condition and action texts
and the steps' instructions are not read: they state the policy the agent is there to convey ("Explain that fines are
25 cents a day per book"), and an answer giving that policy in the rule's own words is a correct answer, not a leak.

Words are compared as the checks read them (focal.text.draft_view: look-alike letters, invisible characters and
markup folded), case and punctuation aside. Only model drafts are read, like internal names (focal.enforcement
.internals).
"""

from __future__ import annotations

import re

from focal.enforcement.internals import customer_texts
from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.text.draft_view import as_checked

RUN_WORDS = 8  # a run this long is a quotation, not a shared phrase ("of their account", "the original payment")
_WORD = re.compile(r"[^\W_]+")
_PLACEHOLDER = re.compile(r"\{\w+\}")


def _words(text: str) -> list[str]:
    return _WORD.findall(as_checked(text).lower())


def _runs(text: str) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i:i + RUN_WORDS]) for i in range(len(words) - RUN_WORDS + 1)}


def instruction_texts(agent: AgentConfig) -> list[str]:
    """What describes the agent's machinery to the model and is never said to a customer as written."""
    texts = [agent.persona]
    texts += [t.description for t in agent.tools] + [f.description for f in agent.profile_field_definitions]
    return [_PLACEHOLDER.sub(" ", t) for t in texts if t]


def _build(agent: AgentConfig) -> set[tuple[str, ...]]:
    said = set().union(*(_runs(t) for t in customer_texts(agent)))
    return set().union(*(_runs(t) for t in instruction_texts(agent))) - said


_hidden: PerObject[AgentConfig, set[tuple[str, ...]]] = PerObject(_build, size=32)


def recited_instructions(agent: AgentConfig, draft: str, message: str = "") -> list[str]:
    """The runs of hidden instruction words the draft repeats (each as its words), none the customer wrote."""
    hidden = _hidden(agent)
    if not hidden:
        return []
    found = (_runs(draft) & hidden) - _runs(message)
    return sorted(" ".join(run) for run in found)
