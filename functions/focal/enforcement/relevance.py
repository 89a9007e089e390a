"""Output check: relevance — does the answer address what the customer asked?

What is compared with what
- The answer is scored against two queries and the better score counts: the customer's message
  alone (its MiniLM vector is the one the sensor already computed), and the message followed by what
  the route decided to say on this turn — the asked slot's prompt, the confirmation prompt, the
  step's instructions and template, the matched rules' action texts, the greeting on chit-chat, the
  out-of-scope text. A bare "X-123" is a poor query for "Booking X-123 came to $30. Shall I go
  ahead?"; the confirmation step it answers is a good one.
- Default scorer: cosine of MiniLM vectors (the answer is embedded once per draft; the routed texts
  that carry the customer's values, and the earlier message, only when the rest leaves the answer below
  the threshold). Beside the message and the routed texts the answer is scored against the conversation's
  wider context (focal.enforcement.topic): the agent's own domain texts and conversational moves —
  a greeting, "ok", "thanks", an apology are on topic by construction, and a draft in another product's
  voice still sits in the agent's business. It fails when its best score stays below
  `relevance_cosine_threshold`, or when it is closer to unrelated content (a poem, a recipe, health or
  money advice, sport, trivia, code) than to all of that by more than `relevance_off_topic_margin`.
  Optional: an ONNX cross-encoder folder (`relevance_model_dir`), then the score is its probability for
  the (message, answer) and (routed text, answer) pairs.
- About the agent's business as well as the message (focal.enforcement.domain_fit): an answer to an off-topic
  question ("The capital of Australia is Canberra.") sits close to its message; it fails when its closeness to the
  agent's own words (in its language, and across languages to the file's when the draft is in another) and to the
  conversational moves stays below a share of how close those words sit to one another, and the route put the turn
  out of scope or the message is off the business too — unless its sentences, read one at a time, show the business
  and none of them is about something else (focal.enforcement.draft_parts: a polite decline that steers back).
  On such a turn (out of scope, or the message below the floor or nearer the off-domain side than the business) a
  draft above the floor fails too when it sits nearer a generic off-domain side in the draft's language and English
  (focal.enforcement.off_domain_bank) than the agent's words and the declines by a margin (domain_fit.nearer_elsewhere).
- A draft of a non-English turn (or one that clearly reads as another declared language) is scored the same way
  in the multilingual space, its cosines put on MiniLM's scale by the pair's languages
  (focal.enforcement.relevance_space): MiniLM reads other languages by their surface. The threshold is met by the
  better of that score and MiniLM's (the customer's own words repeated in their language are evidence too); the
  contrast with unrelated content is read in the multilingual space only, beyond the message's own closeness to it.
- An answer composed offline from the agent's own templates (draft source offline / template /
  fallback) is relevant by construction and is not scored.
- Refusals and the agent's own non-answers pass unscored (focal.enforcement.relevance_refusal).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from focal.enforcement.relevance_closeness import Closeness, closeness, earlier_request, routed_texts
from focal.enforcement.relevance_refusal import refusal_likeness, refusal_reason
from focal.enforcement.relevance_space import SAME, Space, relevance_space
from focal.enforcement.relevance_vectors import embed_cached
from focal.enforcement.relevance_verdict import RelevanceResult, by_sentence, cosine_verdict, model_verdict
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import Embedder, RelevanceModel

OWN_SOURCES = ("offline", "template", "fallback")


def check_relevance(
    agent: AgentConfig,
    state: TurnState,
    text: str,
    source: str,
    embedder: Embedder,
    variables: dict[str, Any],
    model: RelevanceModel | None = None,
    multilingual: Embedder | None = None,
) -> RelevanceResult:
    """`multilingual`: the multilingual space's embedder, where a draft of a non-English turn is scored
    (focal.enforcement.relevance_space)."""
    cfg = agent.enforcement
    threshold = cfg.relevance_threshold if model is not None else cfg.relevance_cosine_threshold
    if source in OWN_SOURCES:
        return RelevanceResult(True, None, "composed from the agent's own templates", "bypass", threshold)
    message = state.request.message
    context_vec = state.sensor.context.embedding if state.sensor.context else []
    earlier = earlier_request(state)
    fixed, filled = routed_texts(agent, state, variables)
    if cfg.relevance_refusal_bypass and (why := refusal_reason(agent, text, None, None, 1.0, variables)):
        return RelevanceResult(True, None, f"bypass: {why}", "bypass", threshold)  # by its words: nothing embedded
    space = relevance_space(agent, state.session.language if state.session else None, text, embedder, multilingual)
    context_vec = context_vec if space.english else []  # the sensor's vector is MiniLM's
    vectors, fixed_vecs = embed_cached(space.embedder, [text] + ([] if context_vec else [message]), fixed)
    answer_vec = vectors[0]
    message_vec = np.asarray(context_vec, dtype=np.float32) if context_vec else vectors[-1]
    if cfg.relevance_refusal_bypass and (why := refusal_likeness(agent, answer_vec, space,
                                                                   cfg.relevance_refusal_similarity)):
        return RelevanceResult(True, None, f"bypass: {why}", "bypass", threshold)
    if model is None:
        meaning = closeness(agent, space, answer_vec, message_vec, fixed, fixed_vecs, filled, threshold, earlier)
        surface = None if space.english else _surface(agent, state, text, embedder, fixed, filled, threshold, earlier)
        verdict = cosine_verdict(agent, meaning, surface, threshold, state.route.decision.action == "out_of_scope")
        return by_sentence(state, text, space, message_vec, meaning, verdict)
    return model_verdict(model, text, [message] + filled + earlier + fixed, earlier, threshold)


def _surface(agent: AgentConfig, state: TurnState, text: str, embedder: Embedder, fixed: list[str], filled: list[str],
             threshold: float, earlier: list[str]) -> Closeness:
    """A non-English draft's closeness to the conversation as MiniLM reads it."""
    context_vec = state.sensor.context.embedding if state.sensor.context else []
    vectors, fixed_vecs = embed_cached(embedder, [text] + ([] if context_vec else [state.request.message]), fixed)
    message_vec = np.asarray(context_vec, dtype=np.float32) if context_vec else vectors[-1]
    english = Space(embedder, True, SAME, SAME)
    return closeness(agent, english, vectors[0], message_vec, fixed, fixed_vecs, filled, threshold, earlier)
