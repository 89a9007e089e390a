"""Refusal bypass of the relevance check (`relevance_refusal_bypass`, on by default): a non-answer passes unscored.

1. phrase patterns: "I don't know", "I'm not sure", "I can't help with that", "I'm unable to",
   "outside my …", "I don't have that information", "I can only help with …", a hand-off ("I'll
   connect you with …"), and a clarifying question (an answer ending in "?" that asks to clarify,
   "which …", "do you mean …", "could you tell me …");
2. the agent's own texts: the answer contains (or is, ignoring case and spacing) the fallback
   message, the out-of-scope message, the greeting, a rule's fallback text or the pre-validation
   refusal;
3. similarity: cosine ≥ `relevance_refusal_similarity` (0.75) to one of a few refusal exemplars or to
   the agent's fallback / out-of-scope texts (catches paraphrases the patterns miss).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from focal.enforcement.relevance_space import SAME, Space
from focal.enforcement.relevance_vectors import embed_cached
from focal.models.agent import AgentConfig
from focal.ports import Embedder
from focal.variables import render

_REFUSALS = [
    r"\bI (?:do not|don't|dont|really don't) know\b",
    r"\bI(?:'m| am) (?:not (?:sure|certain|able to)|unable to|afraid I (?:can't|cannot|don't))\b",
    r"\bI (?:can't|cannot|can not|won't be able to|am not able to|'m not able to) "
    r"(?:help|answer|assist|discuss|share|provide|say|tell|comment|give|do that|confirm)",
    r"\b(?:outside|beyond) (?:of )?(?:my|what I can|the scope)\b",
    r"\bI (?:don't|do not) have (?:that|this|any|access|the|enough|information)\b",
    r"\bI can only (?:help|speak|talk|assist|answer|discuss)\b",
    r"\b(?:not something I can|no information (?:about|on))\b",
    r"\bI(?:'ll| will) (?:connect|pass|transfer|hand) (?:you|this|your)\b",
    r"\b(?:a member of our team|a colleague|one of our team) (?:will|can) (?:help|follow up|contact|get back)\b",
]
REFUSAL = re.compile("|".join(_REFUSALS), re.IGNORECASE)
CLARIFYING = re.compile(
    r"\b(?:could|can|would) you (?:please )?(?:clarify|tell me|confirm|share|give me|provide|let me know|say|rephrase|explain)"
    r"|\bwhich (?:one|of|\w+(?: \w+)? (?:do|did|would|should|is|are|was|were) (?:you|it|that|this|they))\b"
    r"|\b(?:do|did) you mean\b|\bwhat do you mean\b|\bcould you be more specific\b",
    re.IGNORECASE,
)
REFUSAL_EXEMPLARS = (
    "I don't know.",
    "I'm sorry, I don't have that information.",
    "I can't help with that.",
    "I'm not able to answer that question.",
    "That's outside what I can help with.",
    "Sorry, I'm not sure about that.",
    "Could you clarify what you mean?",
    "I'll pass you to a member of our team who can help.",
)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w$%]+", " ", text.lower()).split())


def own_texts(agent: AgentConfig) -> tuple[str, ...]:
    """The agent's own non-answers: fallback, out-of-scope, greeting, rules' fallback texts, pre-validation refusal."""
    texts = [agent.enforcement.fallback_message, agent.out_of_scope_message, agent.greeting,
             agent.pre_validation.refusal_message]
    texts += [r.fallback_text for r in agent.rules if r.fallback_text]
    return tuple(dict.fromkeys(t for t in texts if t and t.strip()))


def refusal_reason(
    agent: AgentConfig, text: str, answer_vec: np.ndarray | None, embedder: Embedder | None, min_similarity: float,
    variables: dict[str, Any] | None = None,
) -> str | None:
    """Why the answer counts as a refusal / non-answer that must pass, or None."""
    if match := REFUSAL.search(text):
        return f"refusal phrase {match.group(0)!r}"
    stripped = text.strip()
    if stripped.endswith("?") and CLARIFYING.search(stripped.rsplit(".", 1)[-1]):
        return "clarifying question"
    norm = _norm(text)
    for own in own_texts(agent):
        rendered = _norm(render(own, variables or {}))
        if rendered and rendered in norm:
            return "the agent's own fallback / out-of-scope text"
    if answer_vec is not None and embedder is not None:
        return refusal_likeness(agent, answer_vec, Space(embedder, True, SAME, SAME), min_similarity)
    return None


def refusal_likeness(agent: AgentConfig, answer_vec: np.ndarray, space: Space, min_similarity: float) -> str | None:
    """The answer's vector close to a refusal exemplar or one of the agent's own non-answers, or None (cosines on
    MiniLM's scale by the pair's languages: focal.enforcement.relevance_space)."""
    own = own_texts(agent)
    refs = REFUSAL_EXEMPLARS + own
    raw = embed_cached(space.embedder, [], list(refs))[1] @ answer_vec
    kinds = [space.exemplars] * len(REFUSAL_EXEMPLARS) + [space.agent_texts] * len(own)
    sims = np.asarray([space.scored(float(c), kind) for c, kind in zip(raw, kinds, strict=True)])
    best = int(np.argmax(sims))
    if float(sims[best]) >= min_similarity:
        return f"similar to a refusal ({float(sims[best]):.2f} to {refs[best][:40]!r})"
    return None


def warm_refusals(agent: AgentConfig, embedder: Embedder) -> None:
    """Embed (and keep) the refusal exemplars and the agent's own non-answers before a first answer needs them."""
    embed_cached(embedder, [], list(REFUSAL_EXEMPLARS + own_texts(agent)))
