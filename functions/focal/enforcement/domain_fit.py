"""How much a model draft is about the agent's business, measured against how the agent's own texts score.

The relevance check's closeness to the customer's message cannot tell an answer to an off-topic question ("What is
the capital of Australia?" — "The capital of Australia is Canberra.") from an on-topic answer: both sit close to
their message. What tells them apart is the business: a draft about the agent's domain sits close to one of its own
texts (its persona, description, scope text, scenarios, steps and prompts, rules and examples) or to a
conversational move; an answer to a trivia question sits close to none of them.

"Close" is relative to the agent: its own texts in one language (its file's, or their translation), each scored
against the rest (leave one out), show how near a text about this business sits to the others in this space
(`agent_scale`: a low quantile of those best cosines, on MiniLM's scale). A draft whose best cosine to the agent's
words and to the conversational moves falls below `FLOOR_SHARE` of that is off the domain. A draft in a language the
agent declares but wrote no words in is compared with its file's words across languages in the multilingual space,
each cosine put on MiniLM's scale by the cross-language fit (focal.enforcement.relevance_space): raw, a Spanish
draft sits far from any English text, on topic or not; on that scale an on-topic one sits where an English one
would, and an answer to a trivia question below the floor (development drafts in tests/data/relevance_dev_crosslingual).

The out-of-scope route is evidence, never the decider: a draft off the domain fails only when the route put the turn
out of scope or the customer's message is itself off the domain too — an on-topic draft to a misrouted message (a
Spanish message the route could not place) sits in the domain and passes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

# The share of the agent's own scale below which a draft is not about its business, and the quantile of the agent's
# leave-one-out cosines that scale is read at (calibrated on `focal bench relevance`'s on-topic drafts).
FLOOR_SHARE = 0.4
SCALE_QUANTILE = 10
# How much nearer the off-domain side than the business a draft on a turn off the business sits when it is rejected
# (`nearer_elsewhere`; on the development sets on-topic drafts stay below +0.05, most off-domain answers above).
ELSEWHERE_MARGIN = 0.05

_scales: dict[tuple[int, str, tuple[str, ...]], float] = {}
_lock = threading.Lock()


def agent_scale(key: tuple[int, str], texts: list[str], vectors: np.ndarray, scored: Callable[[float], float]) -> float:
    """How close the agent's own texts sit to one another in this space: the `SCALE_QUANTILE`th percentile of each
    text's best cosine to the others, on MiniLM's scale (`scored`). Kept per space and text set."""
    cache_key = (*key, tuple(texts))
    with _lock:
        if cache_key in _scales:
            return _scales[cache_key]
    if len(texts) < 2:
        return 0.0
    norm = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    sims = norm @ norm.T
    np.fill_diagonal(sims, -1.0)
    best = [scored(float(c)) for c in sims.max(axis=1)]
    scale = float(np.percentile(best, SCALE_QUANTILE))
    with _lock:
        if len(_scales) > 256:
            _scales.clear()
        _scales[cache_key] = scale
    return scale


def off_domain(draft_fit: float, message_fit: float, scale: float, out_of_scope: bool) -> bool:
    """The draft is not about the agent's business (below the floor) and something else says the turn is off it too:
    the route put it out of scope, or the customer's message sits below the floor as well."""
    floor = FLOOR_SHARE * scale
    return draft_fit < floor and (out_of_scope or message_fit < floor)


def nearer_elsewhere(fit: float, courtesy: float, elsewhere: float, message_fit: float, message_elsewhere: float,
                     scale: float, out_of_scope: bool) -> bool:
    """A two-sided test on a turn off the business (the route put it out of scope, or the customer's message sits
    below the floor or nearer the off-domain side than the business): the draft sits nearer the off-domain side
    (`elsewhere`: focal.enforcement.off_domain_bank) than the business and the courtesy side (`fit`, `courtesy`) by
    `ELSEWHERE_MARGIN`, and at or above the floor. Catches an answer to an off-domain question whose words happen to
    sit just above the floor; a decline that steers back sits nearer the courtesy side."""
    floor = FLOOR_SHARE * scale
    off_turn = out_of_scope or message_fit < floor or message_elsewhere > message_fit
    return off_turn and elsewhere >= floor and elsewhere > max(fit, courtesy) + ELSEWHERE_MARGIN
