"""Output check: relevance — does the answer address what the customer asked (seed 000 E, seed 002 III.1)?

What is compared with what
- The answer is scored against two queries and the better score counts: the customer's message
  alone (its MiniLM vector is the one the sensor already computed), and the message followed by what
  the route decided to say on this turn — the asked slot's prompt, the confirmation prompt, the
  step's instructions and template, the matched rules' action texts, the greeting on chit-chat, the
  out-of-scope text. A bare "A1001" is a poor query for "Order A1001 came to $30. Shall I go
  ahead?"; the confirmation step it answers is a good one.
- Default scorer: cosine of MiniLM vectors (the answer is embedded once per draft, together with the
  routed query in one batch). Optional: an ONNX cross-encoder folder (`relevance_model_dir`), then
  the score is its probability for the same two (query, answer) pairs.
- An answer composed offline from the agent's own templates (draft source offline / template /
  fallback) is relevant by construction and is not scored.

Refusal bypass (`relevance_refusal_bypass`, on by default) — these pass without a score:
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
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from focal.dialogue.variables import render
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import Embedder, RelevanceModel

OWN_SOURCES = ("offline", "template", "fallback")

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
    r"|\bwhich (?:one|order|item|of)\b|\b(?:do|did) you mean\b|\bwhat do you mean\b|\bcould you be more specific\b",
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

_vectors: dict[tuple[int, tuple[str, ...]], np.ndarray] = {}
_vectors_lock = threading.Lock()


def _cached_vectors(embedder: Embedder, texts: tuple[str, ...]) -> np.ndarray:
    """Vectors of fixed texts (exemplars, the agent's own texts), embedded once per embedder."""
    key = (id(embedder), texts)
    with _vectors_lock:
        if key not in _vectors:
            _vectors[key] = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
        return _vectors[key]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w$%]+", " ", text.lower()).split())


def own_texts(agent: AgentConfig) -> tuple[str, ...]:
    """The agent's own non-answers: fallback, out-of-scope, greeting, rules' fallback texts, pre-validation refusal."""
    texts = [agent.enforcement.fallback_message, agent.out_of_scope_message, agent.greeting,
             agent.pre_validation.refusal_message]
    texts += [r.fallback_text for r in agent.rules if r.fallback_text]
    return tuple(dict.fromkeys(t for t in texts if t and t.strip()))


@dataclass
class RelevanceResult:
    passed: bool
    score: float | None
    reason: str
    method: str


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
        refs = REFUSAL_EXEMPLARS + own_texts(agent)
        sims = _cached_vectors(embedder, refs) @ answer_vec
        best = int(np.argmax(sims))
        if float(sims[best]) >= min_similarity:
            return f"similar to a refusal ({float(sims[best]):.2f} to {refs[best][:40]!r})"
    return None


def routed_query(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> str:
    """The customer's message followed by what the route decided to say on this turn."""
    d = state.decision
    parts: list[str] = []
    step = agent.step(d.scenario_id, d.step_id)
    if step is not None:
        if d.action == "ask_slot":
            parts += [s.prompt for s in step.slots if s.name == d.asked_slot]
        if d.action == "confirm" and step.confirmation_prompt:
            parts.append(step.confirmation_prompt)
        if step.response_template:
            parts.append(step.response_template)
        parts.append(step.instructions)
    for match in state.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule is not None:
            parts.append(rule.action_text)
    if d.action == "chitchat":
        parts.append(agent.greeting)
    if d.action == "out_of_scope":
        parts.append(agent.out_of_scope_message)
    scenario = agent.scenario(d.scenario_id)
    if scenario is not None:
        parts.append(scenario.name)
    routed = " ".join(render(p, variables) for p in parts if p)
    return f"{state.request.message} {routed}".strip()


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / ((np.linalg.norm(a) * np.linalg.norm(b)) or 1.0))


def check_relevance(
    agent: AgentConfig,
    state: TurnState,
    text: str,
    source: str,
    embedder: Embedder,
    variables: dict[str, Any],
    model: RelevanceModel | None = None,
) -> RelevanceResult:
    cfg = agent.enforcement
    threshold = cfg.relevance_threshold
    if source in OWN_SOURCES:
        return RelevanceResult(True, None, "composed from the agent's own templates", "bypass")
    message = state.request.message
    routed = routed_query(agent, state, variables)
    message_vec = np.asarray(state.context.embedding, dtype=np.float32) if state.context and state.context.embedding else None
    texts = [text, routed] + ([] if message_vec is not None else [message])
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    answer_vec, routed_vec = vectors[0], vectors[1]
    if message_vec is None or message_vec.shape != answer_vec.shape:
        message_vec = vectors[2] if len(vectors) > 2 else np.asarray(embedder.embed([message])[0], dtype=np.float32)
    if cfg.relevance_refusal_bypass:
        why = refusal_reason(agent, text, answer_vec, embedder, cfg.relevance_refusal_similarity, variables)
        if why:
            return RelevanceResult(True, None, f"bypass: {why}", "bypass")
    if model is not None:
        scores = model.relevance([(message, text), (routed, text)])
        method = "cross_encoder"
    else:
        scores = [_cosine(answer_vec, message_vec), _cosine(answer_vec, routed_vec)]
        method = "cosine"
    score = round(max(scores), 4)
    which = "the message" if scores[0] >= scores[1] else "the message and the routed step"
    if score >= threshold:
        return RelevanceResult(True, score, f"{method} {score:.2f} to {which} ≥ {threshold:.2f}", method)
    return RelevanceResult(
        False, score, f"the answer does not address the customer's message ({method} {score:.2f} < {threshold:.2f})", method
    )
