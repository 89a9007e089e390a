"""Pre-validation: cheap checks before any understanding; each a named check with a reason.

Checks, in order (the master switches are `features.enabled` and `features.pre_validation`; every
check but `non_empty` also has its own flag in `pre_validation`):

| name                   | flag                         | blocking | what it catches                              |
|------------------------|------------------------------|----------|----------------------------------------------|
| non_empty              | —                            | yes      | an empty or blank message                     |
| length_bounds          | check_length                 | yes      | fewer than min_length / more than max_length |
| dangerous_content      | check_dangerous_content      | yes      | shell, SQL, script, template, path payloads  |
| prompt_injection       | check_injection              | yes      | overrides, jailbreaks, prompt extraction …   |
|                        |                              |          | (focal.sensing.injection_verdict)             |
| context_completeness   | check_context_completeness   | no       | "do the same as before" with no history      |

Only a failed *blocking* check rejects the message (`blocking_failures`); a failed non-blocking
check lets the turn go on and ask (`suggested_questions`). Reasons name what was found, never the
customer's text. Cost after warm-up: a few dozen compiled regular expressions, one (n_exemplars × 384)
matrix-vector product and a small classifier on the embedding the sensor already has (one more embedding
when the message holds figures, which the injection check masks).
"""

from __future__ import annotations

import re

import numpy as np

from focal.models.agent import REFUSAL_PLACEHOLDER, AgentConfig
from focal.models.context import PreValidationCheck
from focal.models.engine_texts import english
from focal.models.session import Session
from focal.ports import Embedder, InjectionClassifier
from focal.sensing.dangerous import dangerous_findings
from focal.sensing.injection_classifier import EmbeddingClassifier
from focal.sensing.injection_verdict import detect_injection
from focal.text.views import words_view

# Phrases that point back at earlier conversation ("as before", "like I said") ...
_BACK_REFERENCE = re.compile(
    r"\b(?:(?:the )?same (?:as|thing as|like) (?:before|last time|earlier|usual|yesterday|you said|i said)"
    r"|(?:same|like|as) (?:last time|before|the other (?:time|day))"
    r"|as (?:i|we) (?:said|mentioned|discussed|agreed)|like i (?:said|mentioned)"
    r"|as (?:you|we) (?:said|suggested|mentioned|promised)|(?:you|we) (?:said|mentioned|suggested|promised) (?:earlier|before)"
    r"|the (?:one|\w+) (?:i|you|we) (?:mentioned|said|talked about|discussed)"
    r"|(?:go|carry) on (?:with|from) (?:that|it|where)|where we left off|pick up where"
    r"|(?:the|that|your) (?:previous|last|earlier) (?:answer|suggestion|option|one)"
    r"|(?:again|once more) (?:please)?$"
    r")\b"
)
# ... and whole messages that only answer or point at something ("yes do that one", "the second one").
_DEICTIC_ONLY = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|ok|okay|sure|alright|fine|no|nope|nah)[,.!]*\s*)?(?:please\s+)?"
    r"(?:(?:do|take|use|choose|pick|go with|go for|book|send|try)\s+(?:that|this|it|those|these|the same)(?:\s+one|\s+ones)?"
    r"|(?:that|this|the other|the (?:first|second|third|last|other)) ones?"
    r"|go ahead(?: with (?:it|that|this))?|do it|proceed|continue|same again|that'?s the one"
    r"|(?:yes|yeah|yep|yup|ok|okay|sure|alright|no|nope|nah|why|why not|how come|and then|what about (?:it|that|them))"
    r")(?:\s+(?:please|then|again|now|too|as well))?[\s.!?]*$"
)


def _has_context(session: Session) -> bool:
    """Whether the conversation has anything a referring message could refer to."""
    return bool(
        session.history
        or session.turn_count
        or session.active_scenario_id
        or session.flow_stack
        or session.pending_approval_id
        or getattr(session, "offer", None)
    )


def _needs_context(text: str) -> str | None:
    norm = words_view(text).strip()
    if _DEICTIC_ONLY.match(norm):
        return "it answers or points at something, but nothing was asked or offered in this conversation yet"
    if _BACK_REFERENCE.search(norm):
        return "it refers to earlier conversation, but this conversation has no history"
    return None


def prevalidate(
    agent: AgentConfig,
    message: str,
    vector: np.ndarray | None = None,
    embedder: Embedder | None = None,
    session: Session | None = None,
    classifier: InjectionClassifier | None = None,
    vector_classifier: EmbeddingClassifier | None = None,
    multilingual: Embedder | None = None,
    lang: str | None = None,
) -> list[PreValidationCheck]:
    """Run the enabled checks on one message.

    `vector` is the L2-normalised embedding of the stripped message (None if empty) and `embedder`
    the one that made it; the exemplar check and the classifier on the embedding run only when both are
    given (the exemplars are embedded once per process; `vector_classifier` None is the shipped one).
    A message in another language, or any of a turn whose language `lang` is not English, is read by the
    multilingual classifier on the `multilingual` embedder's vector (required then: the check fails closed).
    Context completeness runs only when the `session` is given.
    """
    cfg = agent.pre_validation
    text = message.strip()
    checks = [
        PreValidationCheck(name="non_empty", passed=bool(text), reason="" if text else "the message is empty"),
    ]
    if not text:
        return checks
    if cfg.check_length:
        too_short = len(text) < cfg.min_length
        too_long = len(text) > cfg.max_length
        reason = ""
        if too_short:
            reason = f"shorter than {cfg.min_length} characters"
        elif too_long:
            reason = f"{len(text)} characters, more than the limit of {cfg.max_length}"
        checks.append(PreValidationCheck(name="length_bounds", passed=not (too_short or too_long), reason=reason))
    if cfg.check_dangerous_content:
        found = dangerous_findings(text)
        checks.append(PreValidationCheck(
            name="dangerous_content", passed=not found, reason=f"found: {', '.join(found)}" if found else "",
        ))
    if cfg.check_injection:
        verdict = detect_injection(
            text,
            vector,
            embedder,
            similarity_threshold=cfg.injection_similarity_threshold,
            similarity_margin=cfg.injection_similarity_margin,
            classifier=classifier,
            classifier_threshold=cfg.injection_classifier_threshold,
            extra_attacks=cfg.extra_attack_exemplars,
            extra_ordinary=cfg.extra_ordinary_exemplars,
            signal_count=cfg.injection_signal_count,
            vector_classifier=vector_classifier,
            multilingual=multilingual,
            lang=lang,
        )
        checks.append(PreValidationCheck(
            name="prompt_injection", passed=not verdict.detected, reason="; ".join(verdict.reasons),
        ))
    if cfg.check_context_completeness and session is not None:
        missing = None if _has_context(session) else _needs_context(text)
        checks.append(PreValidationCheck(
            name="context_completeness", passed=missing is None, reason=missing or "", blocking=False,
        ))
    return checks


def blocking_failures(checks: list[PreValidationCheck]) -> list[PreValidationCheck]:
    """The failed checks that reject the message."""
    return [c for c in checks if c.blocking and not c.passed]


def suggested_questions(agent: AgentConfig, checks: list[PreValidationCheck]) -> list[str]:
    """What to ask the customer for each failed non-blocking check (empty: nothing to ask)."""
    questions: list[str] = []
    for check in checks:
        if check.passed or check.blocking:
            continue
        if check.name == "context_completeness":
            topics = [s.name for s in agent.scenarios][:4]
            if topics:
                listed = ", ".join(topics[:-1]) + (english("or") if len(topics) > 1 else "") + topics[-1]
                questions.append(english("context_lost_listed").replace("{listed}", listed))
            else:
                questions.append(english("context_lost"))
            questions.extend(agent.pre_validation.context_questions)
    return questions


def _fill(template: str, values: dict[str, str]) -> str:
    """Plain-text placeholders, never str.format (an agent file must not control a format spec)."""
    return REFUSAL_PLACEHOLDER.sub(lambda m: values[m.group(1)], template)


def refusal_text(agent: AgentConfig, failed: list[PreValidationCheck]) -> str:
    """What the customer is told when blocking checks fail: what was wrong and what to do, from the
    first failed check (`pre_validation.refusal_messages`, its defaults filling any key left out).
    Names the kind of problem only, never the customer's text."""
    cfg = agent.pre_validation
    texts = {**type(cfg).model_fields["refusal_messages"].get_default(call_default_factory=True), **cfg.refusal_messages}
    for check in failed:
        key = check.name
        if key == "length_bounds":
            key = "too_short" if check.reason.startswith("shorter") else "too_long"
        kinds = check.reason.removeprefix("found: ") if key == "dangerous_content" else ""
        if template := texts.get(key):
            return _fill(template, {"max_length": str(cfg.max_length), "min_length": str(cfg.min_length), "kinds": kinds})
    return cfg.refusal_message
