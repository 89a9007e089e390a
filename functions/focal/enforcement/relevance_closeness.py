"""How close a model draft sits to the conversation, to the agent's business and to unrelated content, in one
embedding space (focal.enforcement.relevance_space) — what the relevance check's cosine verdict reads.

The conversation: the customer's message, what the route decided to say on this turn (`route_texts`: the asked
slot's prompt, the confirmation prompt, the step's instructions and template, the matched rules' action texts, the
greeting on chit-chat, the out-of-scope text), the agent's domain texts and the conversational moves
(focal.enforcement.topic); the texts that carry the customer's values and the earlier message only when the rest
leaves the draft below the threshold. The business: the agent's own words (focal.enforcement.domain_fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from focal.enforcement.domain_fit import agent_scale
from focal.enforcement.draft_parts import Bank, decline_texts
from focal.enforcement.off_domain_bank import elsewhere_texts
from focal.enforcement.relevance_space import CROSS, SAME, Space
from focal.enforcement.relevance_vectors import cosine, embed_cached
from focal.enforcement.topic import CONVERSATIONAL_MOVES, UNRELATED_KINDS, UNRELATED_TEXTS, domain_texts, own_words
from focal.models.agent import AgentConfig
from focal.models.turn import RouteOutput, TurnState
from focal.sensing.turn_language import primary
from focal.variables import render


def earlier_request(state: TurnState) -> list[str]:
    """The customer's previous message while a flow is active: "It's X-123" answers "I want to cancel my booking"."""
    if state.session is None or not state.route.decision.scenario_id:
        return []
    users = [h.text for h in state.session.history if h.role == "user" and h.text != state.request.message]
    return users[-1:]


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


def routed_texts(agent: AgentConfig, state: TurnState, variables: dict[str, Any]) -> tuple[list[str], list[str]]:
    """The routed texts rendered with the turn's values: (those that stay the agent's own words, embedded once
    and kept — with the scenario's name —, those the customer's values filled in, embedded now and not kept)."""
    rendered = [(t, render(t, variables)) for t in route_texts(agent, state.route)]
    fixed = [r for t, r in rendered if r == t]
    filled = [r for t, r in rendered if r != t]
    scenario = agent.scenario(state.route.decision.scenario_id)
    fixed += [scenario.name] if scenario else []
    return fixed, filled


@dataclass
class Closeness:
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
    elsewhere: float = -1.0  # the best cosine to the off-domain side (focal.enforcement.off_domain_bank), MiniLM's scale
    message_elsewhere: float = -1.0  # … of the customer's message
    courtesy: float = -1.0   # the best cosine to a decline (focal.enforcement.draft_parts.DECLINES), MiniLM's scale


def closeness(
    agent: AgentConfig, space: Space, answer_vec: np.ndarray, message_vec: np.ndarray, routed: list[str],
    routed_vecs: np.ndarray, filled: list[str], threshold: float, earlier: list[str],
) -> Closeness:
    """The best cosine of the answer to the conversation — the message, the routed texts, the agent's domain, the
    conversational moves (then the texts with the customer's values and the earlier message, embedded only when
    those fall short) — on MiniLM's scale by the pair's languages (`space`: focal.enforcement.relevance_space), and
    its closeness to unrelated content."""
    domain, moves = list(domain_texts(agent)), list(CONVERSATIONAL_MOVES)
    fixed = routed + [t for t in domain + moves + list(UNRELATED_TEXTS) if t not in routed]
    _, vecs = embed_cached(space.embedder, [], fixed)
    by_text = dict(zip(fixed, vecs, strict=True))
    if len(routed_vecs) == len(routed):
        by_text.update(zip(routed, routed_vecs, strict=True))
    own, exemplar = space.agent_texts, space.exemplars
    context = [("the message", message_vec, SAME)] + [("the routed text", by_text[t], own) for t in routed]
    context += [("the agent's own texts", by_text[t], own) for t in domain]
    context += [("a conversational move", by_text[t], exemplar) for t in moves]
    raw = [cosine(answer_vec, v) for _, v, _ in context]
    scores = [space.scored(c, kind) for c, (_, _, kind) in zip(raw, context, strict=True)]
    later = filled + earlier
    if max(scores) < threshold and later:
        more, _ = embed_cached(space.embedder, later, [])
        context += [("an earlier message", v, SAME) if t in earlier else ("the routed text", v, own)
                    for t, v in zip(later, more, strict=True)]
        raw += [cosine(answer_vec, v) for _, v, _ in context[len(raw):]]
        scores += [space.scored(c, kind) for c, (_, _, kind) in zip(raw[len(scores):], context[len(scores):], strict=True)]
    best = int(np.argmax(scores))
    # In the multilingual space a draft's closeness to unrelated content counts beyond the customer's message's own:
    # an answer about money or health to a customer who asked about money or health is on the subject they brought
    # up. There unrelated texts sit near a cosine of 0 to each other; MiniLM's sit well above it, so there the
    # message's closeness would cancel the contrast for any message: the English space keeps the plain contrast.
    asked = (lambda t: 0.0) if space.english else (lambda t: max(0.0, cosine(message_vec, by_text[t])))
    unrelated = [cosine(answer_vec, by_text[t]) - asked(t) for t in UNRELATED_TEXTS]
    worst = int(np.argmax(unrelated))
    fit, message_fit, scale, business = domain_fit(agent, space, answer_vec, message_vec, moves, routed, by_text)
    elsewhere, courtesy = sides(space)
    return Closeness(round(float(scores[best]), 4), context[best][0], max(raw), unrelated[worst], UNRELATED_KINDS[worst],
                      fit, message_fit, scale, business, elsewhere.best(answer_vec, space.scored),
                      elsewhere.best(message_vec, space.scored), courtesy.best(answer_vec, space.scored))


def sides(space: Space) -> tuple[Bank, Bank]:
    """The off-domain side and the declines, in the draft's language and English, as vectors with their pair kinds."""
    off, declines = elsewhere_texts(space.lang, space.exemplars), decline_texts(space.lang, space.exemplars)
    _, vecs = embed_cached(space.embedder, [], [t for t, _ in off + declines])
    return (Bank(list(vecs[: len(off)]), [k for _, k in off]),
            Bank(list(vecs[len(off):]), [k for _, k in declines]))


def domain_fit(agent: AgentConfig, space: Space, answer_vec: np.ndarray, message_vec: np.ndarray, moves: list[str],
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
        by_text.update(zip(missing, embed_cached(space.embedder, [], missing)[1], strict=True))
    kinds = [SAME] * len(same) + [CROSS] * len(cross) + [space.exemplars] * len(moves)
    vecs = [by_text[t] for t in same + cross + moves]

    def best(vec: np.ndarray) -> float:
        return max(space.scored(cosine(vec, v), kind) for v, kind in zip(vecs, kinds, strict=True))

    # The scale is read among the agent's words in one language: the draft's when it has them, else the file's (the
    # draft's cosines to those are put on the same MiniLM scale by the cross-language fit).
    words, lang = (in_lang, space.lang) if in_lang else (in_file, primary(agent))
    scale = agent_scale((id(space.embedder), lang), list(words), np.stack([by_text[t] for t in words]),
                        lambda c: space.scored(c, SAME))
    business = Bank([by_text[t] for t in same + cross], kinds[: len(same) + len(cross)])
    return best(answer_vec), best(message_vec), scale, business
