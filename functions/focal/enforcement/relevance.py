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
- A draft of a non-English turn (or one that clearly reads as another declared language) is scored the same way
  in the multilingual space, its cosines put on MiniLM's scale by the pair's languages
  (focal.enforcement.relevance_space): MiniLM reads other languages by their surface. The threshold is met by the
  better of that score and MiniLM's (the customer's own words repeated in their language are evidence too); the
  contrast with unrelated content is read in the multilingual space only, beyond the message's own closeness to it.
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

from focal.enforcement.domain_fit import FLOOR_SHARE, agent_scale, off_domain
from focal.enforcement.draft_parts import EARLIER_MESSAGES, Bank, read_draft, sentences
from focal.enforcement.relevance_space import CROSS, SAME, Space, relevance_space
from focal.enforcement.topic import CONVERSATIONAL_MOVES, UNRELATED_KINDS, UNRELATED_TEXTS, domain_texts, own_words
from focal.models.agent import AgentConfig
from focal.models.turn import RouteOutput, TurnState
from focal.ports import Embedder, RelevanceModel, embed_fixed
from focal.sensing.turn_language import primary
from focal.variables import render

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

_vectors: dict[tuple[int, str], np.ndarray] = {}
_vectors_lock = threading.Lock()
MAX_CACHED = 4096


def _embed(embedder: Embedder, fresh: list[str], fixed: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of `fresh` texts (embedded now) and of `fixed` texts (the agent's own and the exemplars:
    embedded once per embedder and kept, on disk too when the embedder keeps them: focal.ports.embed_fixed)."""
    key = id(embedder)
    with _vectors_lock:
        known = {t: _vectors[(key, t)] for t in fixed if (key, t) in _vectors}
    missing = list(dict.fromkeys(t for t in fixed if t not in known))
    vectors = np.asarray(embedder.embed(fresh), dtype=np.float32) if fresh else np.zeros((0, 1), dtype=np.float32)
    if missing:
        known.update(zip(missing, np.asarray(embed_fixed(embedder, missing), dtype=np.float32), strict=True))
    with _vectors_lock:
        if len(_vectors) + len(missing) > MAX_CACHED:
            _vectors.clear()
        _vectors.update({(key, t): known[t] for t in missing})
    fixed_vectors = np.stack([known[t] for t in fixed]) if fixed else np.zeros((0, 1), dtype=np.float32)
    return vectors[: len(fresh)], fixed_vectors


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
    threshold: float | None = None


def earlier_request(state: TurnState) -> list[str]:
    """The customer's previous message while a flow is active: "It's X-123" answers "I want to cancel my booking"."""
    if state.session is None or not state.route.decision.scenario_id:
        return []
    users = [h.text for h in state.session.history if h.role == "user" and h.text != state.request.message]
    return users[-1:]


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
    raw = _embed(space.embedder, [], list(refs))[1] @ answer_vec
    kinds = [space.exemplars] * len(REFUSAL_EXEMPLARS) + [space.agent_texts] * len(own)
    sims = np.asarray([space.scored(float(c), kind) for c, kind in zip(raw, kinds, strict=True)])
    best = int(np.argmax(sims))
    if float(sims[best]) >= min_similarity:
        return f"similar to a refusal ({float(sims[best]):.2f} to {refs[best][:40]!r})"
    return None


def warm_refusals(agent: AgentConfig, embedder: Embedder) -> None:
    """Embed (and keep) the refusal exemplars and the agent's own non-answers before a first answer needs them."""
    _embed(embedder, [], list(REFUSAL_EXEMPLARS + own_texts(agent)))


def route_texts(agent: AgentConfig, route: RouteOutput) -> list[str]:
    """What the route decided to say on this turn, as the agent wrote it (unrendered: embedded once)."""
    d = route.decision
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
    for match in route.matched_rules:
        rule = agent.rule(match.rule_id)
        if rule is not None:
            parts += [rule.action_text] + ([rule.response_template] if rule.response_template else [])
    if d.action == "chitchat":
        parts.append(agent.greeting)
    if d.action in ("out_of_scope", "clarify"):
        parts.append(agent.out_of_scope_message)
    return list(dict.fromkeys(p for p in parts if p and p.strip()))


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
    fixed, filled = _routed(agent, state, variables)
    if cfg.relevance_refusal_bypass and (why := refusal_reason(agent, text, None, None, 1.0, variables)):
        return RelevanceResult(True, None, f"bypass: {why}", "bypass", threshold)  # by its words: nothing embedded
    space = relevance_space(agent, state.session.language if state.session else None, text, embedder, multilingual)
    context_vec = context_vec if space.english else []  # the sensor's vector is MiniLM's
    vectors, fixed_vecs = _embed(space.embedder, [text] + ([] if context_vec else [message]), fixed)
    answer_vec = vectors[0]
    message_vec = np.asarray(context_vec, dtype=np.float32) if context_vec else vectors[-1]
    if cfg.relevance_refusal_bypass and (why := refusal_likeness(agent, answer_vec, space,
                                                                   cfg.relevance_refusal_similarity)):
        return RelevanceResult(True, None, f"bypass: {why}", "bypass", threshold)
    if model is None:
        meaning = _closeness(agent, space, answer_vec, message_vec, fixed, fixed_vecs, filled, threshold, earlier)
        surface = None if space.english else _surface(agent, state, text, embedder, fixed, filled, threshold, earlier)
        verdict = _cosine_verdict(agent, meaning, surface, threshold, state.route.decision.action == "out_of_scope")
        return _by_sentence(state, text, space, message_vec, meaning, verdict)
    return _model_verdict(model, text, [message] + filled + earlier + fixed, earlier, threshold)


OFF_DOMAIN = "the answer is not about the agent's business"


def _by_sentence(state: TurnState, text: str, space: Space, message_vec: np.ndarray, meaning: _Closeness,
                 verdict: RelevanceResult) -> RelevanceResult:
    """A draft below the domain floor as a whole passes when, read sentence by sentence, one of its sentences is about
    the business and none sits nearest unrelated content (focal.enforcement.draft_parts)."""
    parts = sentences(text)
    if verdict.passed or not verdict.reason.startswith(OFF_DOMAIN) or meaning.business is None or not parts:
        return verdict
    floor = FLOOR_SHARE * meaning.scale
    said = [h.text for h in state.session.history if h.role == "user"] if state.session else []
    earlier = [t for t in said if t != state.request.message][-EARLIER_MESSAGES:]
    reading = read_draft(parts, earlier, state.request.message, lambda fresh, fixed: _embed(space.embedder, fresh, fixed),
                         space.lang, space.exemplars, meaning.business, message_vec, meaning.message_fit < floor, floor,
                         space.scored)
    if reading.shows_business:
        why = f"as a whole below the domain floor{verdict.reason[len(OFF_DOMAIN):]}, sentence by sentence: {reading}"
        return RelevanceResult(True, verdict.score, why, "cosine", verdict.threshold)
    return RelevanceResult(False, verdict.score, f"{verdict.reason}; sentence by sentence: {reading}", "cosine",
                           verdict.threshold)


def _surface(agent: AgentConfig, state: TurnState, text: str, embedder: Embedder, fixed: list[str], filled: list[str],
             threshold: float, earlier: list[str]) -> _Closeness:
    """A non-English draft's closeness to the conversation as MiniLM reads it."""
    context_vec = state.sensor.context.embedding if state.sensor.context else []
    vectors, fixed_vecs = _embed(embedder, [text] + ([] if context_vec else [state.request.message]), fixed)
    message_vec = np.asarray(context_vec, dtype=np.float32) if context_vec else vectors[-1]
    english = Space(embedder, True, SAME, SAME)
    return _closeness(agent, english, vectors[0], message_vec, fixed, fixed_vecs, filled, threshold, earlier)


def _routed(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The routed texts rendered with the turn's values: (those that stay the agent's own words, embedded once
    and kept — with the scenario's name —, those the customer's values filled in, embedded now and not kept)."""
    rendered = [(t, render(t, variables)) for t in route_texts(agent, state.route)]
    fixed = [r for t, r in rendered if r == t]
    filled = [r for t, r in rendered if r != t]
    scenario = agent.scenario(state.route.decision.scenario_id)
    fixed += [scenario.name] if scenario else []
    return fixed, filled


def _model_verdict(model: RelevanceModel, text: str, queries: list[str], earlier: list[str],
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


@dataclass
class _Closeness:
    """How close an answer sits to the conversation and to unrelated content, in one space."""
    score: float        # the best cosine to the conversation, on MiniLM's scale
    which: str          # … to what
    raw: float          # the best cosine to the conversation as the space gives it
    unrelated: float    # the best cosine to an unrelated exemplar as the space gives it (multilingual: beyond the message's)
    kind: str           # … to which kind of unrelated content
    fit: float | None = None  # the best cosine to the agent's business, on MiniLM's scale (None: not measured)
    message_fit: float = 1.0  # … of the customer's message
    scale: float = 0.0  # how close the agent's own texts sit to one another (focal.enforcement.domain_fit)
    business: Bank | None = None  # the agent's own words as the fit read them


def _closeness(
    agent: AgentConfig, space: Space, answer_vec: np.ndarray, message_vec: np.ndarray, routed: list[str],
    routed_vecs: np.ndarray, filled: list[str], threshold: float, earlier: list[str],
) -> _Closeness:
    """The best cosine of the answer to the conversation — the message, the routed texts, the agent's domain, the
    conversational moves (then the texts with the customer's values and the earlier message, embedded only when
    those fall short) — on MiniLM's scale by the pair's languages (`space`: focal.enforcement.relevance_space), and
    its closeness to unrelated content."""
    domain, moves = list(domain_texts(agent)), list(CONVERSATIONAL_MOVES)
    fixed = routed + [t for t in domain + moves + list(UNRELATED_TEXTS) if t not in routed]
    _, vecs = _embed(space.embedder, [], fixed)
    by_text = dict(zip(fixed, vecs, strict=True))
    if len(routed_vecs) == len(routed):
        by_text.update(zip(routed, routed_vecs, strict=True))
    own, exemplar = space.agent_texts, space.exemplars
    context = [("the message", message_vec, SAME)] + [("the routed text", by_text[t], own) for t in routed]
    context += [("the agent's own texts", by_text[t], own) for t in domain]
    context += [("a conversational move", by_text[t], exemplar) for t in moves]
    raw = [_cosine(answer_vec, v) for _, v, _ in context]
    scores = [space.scored(c, kind) for c, (_, _, kind) in zip(raw, context, strict=True)]
    later = filled + earlier
    if max(scores) < threshold and later:
        more, _ = _embed(space.embedder, later, [])
        context += [("an earlier message", v, SAME) if t in earlier else ("the routed text", v, own)
                    for t, v in zip(later, more, strict=True)]
        raw += [_cosine(answer_vec, v) for _, v, _ in context[len(raw):]]
        scores += [space.scored(c, kind) for c, (_, _, kind) in zip(raw[len(scores):], context[len(scores):], strict=True)]
    best = int(np.argmax(scores))
    # In the multilingual space a draft's closeness to unrelated content counts beyond the customer's message's own:
    # an answer about money or health to a customer who asked about money or health is on the subject they brought
    # up. There unrelated texts sit near a cosine of 0 to each other; MiniLM's sit well above it, so there the
    # message's closeness would cancel the contrast for any message: the English space keeps the plain contrast.
    asked = (lambda t: 0.0) if space.english else (lambda t: max(0.0, _cosine(message_vec, by_text[t])))
    unrelated = [_cosine(answer_vec, by_text[t]) - asked(t) for t in UNRELATED_TEXTS]
    worst = int(np.argmax(unrelated))
    fit, message_fit, scale, business = _domain_fit(agent, space, answer_vec, message_vec, moves, routed, by_text)
    return _Closeness(round(float(scores[best]), 4), context[best][0], max(raw), unrelated[worst], UNRELATED_KINDS[worst],
                      fit, message_fit, scale, business)


def _domain_fit(agent: AgentConfig, space: Space, answer_vec: np.ndarray, message_vec: np.ndarray, moves: list[str],
                routed: list[str], by_text: dict[str, np.ndarray]) -> tuple[float | None, float, float, Bank | None]:
    """The draft's and the message's best cosine to the agent's business — its own words (focal.enforcement.topic
    .own_words: in the draft's language and, for a draft in another language than the file's, the file's), the
    routed texts, the conversational moves — each on MiniLM's scale by its pair's languages, and the agent's own
    scale (focal.enforcement.domain_fit). No fit (None) when the agent has no words at all."""
    in_lang, in_file = own_words(agent, space.lang)
    if not in_lang and not in_file:
        return None, 1.0, 0.0, None
    file_lang = space.lang == primary(agent)  # the routed texts are the file's words
    same = list(dict.fromkeys([*in_lang, *(routed if file_lang else [])]))
    cross = [t for t in dict.fromkeys([*in_file, *([] if file_lang else routed)]) if t not in same]
    missing = [t for t in same + cross if t not in by_text]
    if missing:
        by_text.update(zip(missing, _embed(space.embedder, [], missing)[1], strict=True))
    kinds = [SAME] * len(same) + [CROSS] * len(cross) + [space.exemplars] * len(moves)
    vecs = [by_text[t] for t in same + cross + moves]

    def best(vec: np.ndarray) -> float:
        return max(space.scored(_cosine(vec, v), kind) for v, kind in zip(vecs, kinds, strict=True))

    # The scale is read among the agent's words in one language: the draft's when it has them, else the file's (the
    # draft's cosines to those are put on the same MiniLM scale by the cross-language fit).
    words, lang = (in_lang, space.lang) if in_lang else (in_file, primary(agent))
    scale = agent_scale((id(space.embedder), lang), list(words), np.stack([by_text[t] for t in words]),
                        lambda c: space.scored(c, SAME))
    business = Bank([by_text[t] for t in same + cross], kinds[: len(same) + len(cross)])
    return best(answer_vec), best(message_vec), scale, business


def _cosine_verdict(agent: AgentConfig, meaning: _Closeness, surface: _Closeness | None,
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
    return RelevanceResult(True, score, f"cosine {score:.2f} to {which} ≥ {threshold:.2f} ({fit})", "cosine", threshold)
