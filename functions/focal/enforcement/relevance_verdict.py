"""The relevance check's verdicts: the cosine scorer's (the threshold, the contrast with unrelated content, the
agent's business, then a draft off the business read sentence by sentence) and the relevance model's."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from focal.enforcement.domain_fit import FLOOR_SHARE, nearer_elsewhere, off_domain
from focal.enforcement.draft_parts import EARLIER_MESSAGES, read_draft, sentences
from focal.enforcement.relevance_closeness import Closeness
from focal.enforcement.relevance_space import Space
from focal.enforcement.relevance_vectors import embed_cached
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import RelevanceModel


@dataclass
class RelevanceResult:
    passed: bool
    score: float | None
    reason: str
    method: str
    threshold: float | None = None


OFF_DOMAIN = "the answer is not about the agent's business"


def by_sentence(state: TurnState, text: str, space: Space, message_vec: np.ndarray, meaning: Closeness,
                 verdict: RelevanceResult) -> RelevanceResult:
    """A draft below the domain floor as a whole passes when, read sentence by sentence, one of its sentences is about
    the business and none sits nearest unrelated content (focal.enforcement.draft_parts)."""
    parts = sentences(text)
    if verdict.passed or not verdict.reason.startswith(OFF_DOMAIN) or meaning.business is None or not parts:
        return verdict
    floor = FLOOR_SHARE * meaning.scale
    said = [h.text for h in state.session.history if h.role == "user"] if state.session else []
    earlier = [t for t in said if t != state.request.message][-EARLIER_MESSAGES:]
    reading = read_draft(parts, earlier, state.request.message, lambda fresh, fixed: embed_cached(space.embedder, fresh, fixed),
                         space.lang, space.exemplars, meaning.business, message_vec, meaning.message_fit < floor, floor,
                         space.scored)
    if reading.shows_business:
        why = f"as a whole below the domain floor{verdict.reason[len(OFF_DOMAIN):]}, sentence by sentence: {reading}"
        return RelevanceResult(True, verdict.score, why, "cosine", verdict.threshold)
    return RelevanceResult(False, verdict.score, f"{verdict.reason}; sentence by sentence: {reading}", "cosine",
                           verdict.threshold)


def model_verdict(model: RelevanceModel, text: str, queries: list[str], earlier: list[str],
                   threshold: float) -> RelevanceResult:
    """The relevance model's best score of the answer to the message, an earlier message or a routed text
    (`queries`, the message first)."""
    scores = model.relevance([(q, text) for q in queries])
    method = "cross_encoder"
    best = int(np.argmax(scores))
    which = "the message" if best == 0 else ("an earlier message" if queries[best] in earlier else "the routed text")
    score = round(float(scores[best]), 4)
    if score >= threshold:
        return RelevanceResult(True, score, f"{method} {score:.2f} to {which} ≥ {threshold:.2f}", method, threshold)
    reason = f"the answer does not address the customer's message ({method} {score:.2f} < {threshold:.2f})"
    return RelevanceResult(False, score, reason, method, threshold)


def cosine_verdict(agent: AgentConfig, meaning: Closeness, surface: Closeness | None,
                    threshold: float, out_of_scope: bool = False) -> RelevanceResult:
    """The answer's best score against the threshold — in its meaning space, or MiniLM's reading of a non-English
    draft (`surface`: the customer's own words repeated in their language are evidence too, however little else
    MiniLM reads there) —, and its closeness to unrelated content against its closeness to the conversation, in the
    meaning space only (MiniLM finds two texts of one language alike whatever they say)."""
    found = meaning if surface is None or meaning.score >= surface.score else surface
    score, which = found.score, found.which + ("" if found is meaning else " (MiniLM)")
    margin = agent.enforcement.relevance_off_topic_margin
    if score < threshold:
        reason = f"the answer does not address the customer's message (cosine {score:.2f} < {threshold:.2f})"
        return RelevanceResult(False, score, reason, "cosine", threshold)
    if meaning.unrelated > meaning.raw + margin:
        reason = (f"the answer is about something else ({meaning.kind}, cosine {meaning.unrelated:.2f}) more than "
                  f"about the conversation ({meaning.raw:.2f})")
        return RelevanceResult(False, score, reason, "cosine", threshold)
    if meaning.fit is None:
        fit = "the agent has no words of its own"
    else:
        fit = (f"about the agent's business {meaning.fit:.2f}, the message {meaning.message_fit:.2f}, its own texts "
               f"{meaning.scale:.2f}{', out of scope' if out_of_scope else ''}")
    if meaning.fit is not None and off_domain(meaning.fit, meaning.message_fit, meaning.scale, out_of_scope):
        reason = f"{OFF_DOMAIN} ({fit})"
        return RelevanceResult(False, score, reason, "cosine", threshold)
    if meaning.fit is not None and nearer_elsewhere(meaning.fit, meaning.courtesy, meaning.elsewhere, meaning.message_fit,
                                                    meaning.message_elsewhere, meaning.scale, out_of_scope):
        reason = (f"the answer is nearer the off-domain side ({meaning.elsewhere:.2f}) than the business or a decline "
                  f"on a turn off the business ({fit}, the message's off-domain {meaning.message_elsewhere:.2f})")
        return RelevanceResult(False, score, reason, "cosine", threshold)
    return RelevanceResult(True, score, f"cosine {score:.2f} to {which} ≥ {threshold:.2f} ({fit})", "cosine", threshold)
