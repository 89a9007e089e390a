"""Which embedding space a turn is matched in, and its intent scores there.

English turns of an English agent are matched with MiniLM, the better English model (Banking77 10-shot: 85.2 vs
79.8 for the multilingual model with a logistic head). Any other turn — a message in another declared language,
or an agent whose own texts are not English — is matched in the multilingual space (focal.adapters.use_embedder
through `Deps.multilingual_embedder`), where a Spanish message lands near the agent's English examples: on the
development rows, 10-shot Banking77 with English examples, es/de/fr messages are placed right 64–70 % of the time
there against 11–20 % with MiniLM. Its scores are put on MiniLM's scale (focal.retrieval.calibration.score_scale),
so the agent's thresholds mean the same in both spaces.

Without a multilingual embedder (a deployment without the model), or when it fails to load, a turn that needs it
fails closed with `MultilingualSpaceUnavailable` (the turn ends in the recorded fallback): matching it in the English
space instead would place it wrong most of the time (11–20 %) while looking like an ordinary turn.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from focal.models.agent import AgentConfig
from focal.models.context import IntentScore
from focal.models.localized import examples_in
from focal.ports import Embedder
from focal.sensing.intent_ensemble import JointEmbedder
from focal.sensing.intents import intent_index
from focal.sensing.turn_language import ENGLISH, primary

logger = logging.getLogger("focal.spaces")
DATA = Path(__file__).resolve().parent / "data"
REFERENCE = "all-MiniLM-L6-v2"  # the model the agent's thresholds are written for
UNAVAILABLE = "multilingual space unavailable"
# What a missing or broken model raises on its first use (not installed, files absent, a failed load).
LOAD_ERRORS = (ImportError, OSError, ValueError, RuntimeError, MemoryError)


@lru_cache(maxsize=8)
def score_scale(model_id: str, kind: str) -> tuple[float, float]:
    """The affine map (a, b) that puts this model's `kind` scores ("intent": nearest-example scores, "rule":
    centred cosines) on MiniLM's scale, where the agent's thresholds are written: identity for MiniLM and for a
    model with no fitted scale (data/<model name>_scale.json, written by focal bench languages --calibrate)."""
    path = DATA / f"{model_id}_scale.json"
    if model_id == REFERENCE or "/" in model_id or not path.is_file():
        return 1.0, 0.0
    a, b = json.loads(path.read_text("utf-8"))[kind]
    return float(a), float(b)


def on_reference_scale(embedder: Embedder, kind: str, score: float) -> float:
    """A score of this embedder's space on MiniLM's scale, clipped to the cosine range."""
    a, b = score_scale(str(getattr(embedder, "model_name", type(embedder).__name__)), kind)
    return max(-1.0, min(1.0, a * score + b))


class MultilingualSpaceUnavailable(RuntimeError):
    """A turn that must be matched in the multilingual space, and the model for it is absent or cannot load."""

    def __init__(self, lang: str | None, reason: str):
        super().__init__(f"{UNAVAILABLE}: a turn in {lang or 'the agent' + chr(39) + 's language'} needs the "
                         f"multilingual model ({reason})")
        self.lang, self.reason = lang, reason


def multilingual_turn(agent: AgentConfig, lang: str | None) -> bool:
    """Whether a turn in `lang` is matched in the multilingual space."""
    return (lang or primary(agent)) != ENGLISH or primary(agent) != ENGLISH


def embed_message(embedder: Embedder | None, texts: Sequence[str], lang: str | None) -> np.ndarray:
    """The vectors of the customer's text in the multilingual space; `MultilingualSpaceUnavailable` when the model
    is absent or cannot load (fail closed: never the English space instead)."""
    if embedder is None:
        raise MultilingualSpaceUnavailable(lang, "this deployment has no multilingual embedder")
    try:
        return np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    except LOAD_ERRORS as exc:
        logger.error("multilingual embedder unavailable: %s", type(exc).__name__)
        raise MultilingualSpaceUnavailable(lang, str(exc) or type(exc).__name__) from exc


def intent_scores(tenant_id: str, agent: AgentConfig, lang: str | None, english: Embedder, vector: np.ndarray,
                  multilingual: Embedder | None, text: str, notes: list[str]) -> list[IntentScore]:
    """The scenarios' scores for the message, in the turn's space, on MiniLM's scale."""
    return read_in_space(tenant_id, agent, lang, english, vector, multilingual, text, notes)[0]


def read_in_space(tenant_id: str, agent: AgentConfig, lang: str | None, english: Embedder, vector: np.ndarray,
                  multilingual: Embedder | None, text: str,
                  notes: list[str]) -> tuple[list[IntentScore], np.ndarray | None]:
    """The scenarios' scores (as `intent_scores`) and, for a turn matched in the multilingual space, the message's
    vector there (its dialogue acts are read from the same vector: focal.sensing.person_request); None otherwise."""
    if multilingual_turn(agent, lang) and text:
        found = embed_message(multilingual, [text], lang or primary(agent))
        assert multilingual is not None  # embed_message refused None
        notes.append(f"matched in the multilingual space ({lang or primary(agent)})")
        return _multilingual_scores(tenant_id, agent, lang or primary(agent), multilingual, found[0]), found[0]
    return english_scores(tenant_id, agent, english, vector, multilingual, text), None


def english_scores(tenant_id: str, agent: AgentConfig, english: Embedder, vector: np.ndarray,
                   multilingual: Embedder | None, text: str) -> list[IntentScore]:
    """An English turn: matched in the joint space of both models (focal.sensing.intent_ensemble) when the deployment
    has the multilingual one, else — or when it cannot load — in MiniLM's alone (English reads well there)."""
    if multilingual is not None and text:
        space = JointEmbedder(english, multilingual)
        try:
            return intent_index(tenant_id, agent, space).scores(space.joint_message(vector, text))
        except LOAD_ERRORS as exc:
            logger.error("multilingual embedder unavailable for the joint space: %s", type(exc).__name__)
    return intent_index(tenant_id, agent, english).scores(vector)


def _multilingual_scores(tenant_id: str, agent: AgentConfig, lang: str, embedder: Embedder,
                         vector: np.ndarray) -> list[IntentScore]:
    """The file's own examples, on the cross-language scale (or the same-language one when the message is in the
    file's language), and the translation's examples in the message's language on the same-language scale: the
    better of the two for each scenario. A message sits closer to an example in its own language than to one in
    another, so each comparison is put on MiniLM's scale by the fit for its kind."""
    own = "intent_same" if lang == primary(agent) else "intent"
    best: dict[str, IntentScore] = {}
    views = [(agent, own)]
    if lang != primary(agent) and (translated := examples_in(agent, lang)) is not None:
        views.append((translated, "intent_same"))
    for view, kind in views:
        for s in intent_index(tenant_id, view, embedder).scores(vector):
            scored = s.model_copy(update={"score": on_reference_scale(embedder, kind, s.score)})
            if s.scenario_id not in best or scored.score > best[s.scenario_id].score:
                best[s.scenario_id] = scored
    return sorted(best.values(), key=lambda s: -s.score)
