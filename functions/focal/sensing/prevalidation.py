"""Pre-validation (seed 004): cheap checks before any understanding; each a named check with a reason."""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.models.context import PreValidationCheck


def prevalidate(agent: AgentConfig, message: str) -> list[PreValidationCheck]:
    cfg = agent.pre_validation
    text = message.strip()
    checks = [
        PreValidationCheck(name="non_empty", passed=bool(text), reason="" if text else "the message is empty"),
    ]
    if text:
        too_short = len(text) < cfg.min_length
        too_long = len(text) > cfg.max_length
        reason = ""
        if too_short:
            reason = f"shorter than {cfg.min_length} characters"
        elif too_long:
            reason = f"{len(text)} characters, more than the limit of {cfg.max_length}"
        checks.append(PreValidationCheck(name="length_bounds", passed=not (too_short or too_long), reason=reason))
    return checks
