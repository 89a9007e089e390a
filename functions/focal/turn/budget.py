"""The per-turn time budget: the slowest path must answer before API Gateway stops waiting (29 s).

The first stage sets `TurnState.deadline` (epoch seconds, so every Lambda of the turn reads the same
instant) to now + `turn_budget_s(agent)`: `models.turn_budget_s`, or FOCAL_TURN_BUDGET_S when set (a slow
local model needs minutes; in a Lambda it is held to `LAMBDA_MAX_BUDGET_S`). Every model call of the turn
goes through `BudgetedModel`:

- a call is started only with at least `MIN_CALL_S` left, and gets `min(timeout_s, time left)` for all
  its attempts together (a model that supports `configured(total_s=…)`, i.e. the litellm adapter);
- once the budget is spent, `available()` answers False, so each stage takes its offline path (offline
  sensor, offline composer, heuristic grounding) and the turn lists `model_budget` in `degraded`;
- a model whose outputs are scripted (`spends_no_time`: a conversation suite's) is never turned down: the budget
  is for real calls, and a suite must read the same on a slow, loaded machine;
- enforcement is never skipped: a subjective rule whose judge cannot be called blocks with
  "cannot verify: time budget spent" (or is marked unverified where the agent opted into that).

This module must not import `focal.model_calls` (the infra derives the model-calling stages from
which stages import it, and every stage imports the Deps that use this module).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from focal.errors import ModelError
from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import LanguageModel, ModelReply

MODEL_BUDGET = "model_budget"
MIN_CALL_S = 1.0  # no model call is started with less time left than this
SPENT = "cannot verify: time budget spent"
LAMBDA_MAX_BUDGET_S = 25.0  # the stage Lambdas time out at 25 s and API Gateway stops waiting at 29 s


def turn_budget_s(agent: AgentConfig) -> float:
    """The turn's model budget: FOCAL_TURN_BUDGET_S when set (at most 25 s in a Lambda), else the agent's."""
    from focal.settings import get_settings

    override = get_settings().turn_budget_s
    if override is None:
        return agent.models.turn_budget_s
    return min(override, LAMBDA_MAX_BUDGET_S) if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") else override


def start_budget(state: TurnState, agent: AgentConfig, clock: Callable[[], float]) -> None:
    """Set the turn's deadline once (the first stage that runs; a resumed approval on its first stage)."""
    if state.deadline is None:
        state.deadline = clock() + turn_budget_s(agent)


def time_left(state: TurnState, clock: Callable[[], float]) -> float | None:
    return None if state.deadline is None else state.deadline - clock()


def mark_spent(state: TurnState) -> None:
    if MODEL_BUDGET not in state.degraded:
        state.degraded.append(MODEL_BUDGET)


def budget_spent(model: Any) -> bool:
    """Whether `model` (as Deps.llm returned it) turned a call down for lack of time: stages say why they went offline."""
    return bool(getattr(model, "skipped", False))


class BudgetedModel:
    """A LanguageModel that keeps its calls inside the turn's remaining time."""

    def __init__(self, inner: LanguageModel, state: TurnState, clock: Callable[[], float],
                 min_call_s: float = MIN_CALL_S):
        self.inner, self.state, self.clock, self.min_call_s = inner, state, clock, min_call_s
        self.skipped = False  # available() said no because the budget is spent

    @property
    def spent(self) -> bool:
        if getattr(self.inner, "spends_no_time", False):
            return False  # scripted outputs (a conversation suite's): no call of theirs waits on a provider
        left = time_left(self.state, self.clock)
        return left is not None and left < self.min_call_s

    def available(self, purpose: str) -> bool:
        if not self.inner.available(purpose):
            return False
        if self.spent:
            mark_spent(self.state)  # a call this turn wanted is skipped: the answer is degraded
            self.skipped = True
            return False
        return True

    def complete(self, purpose: str, messages: list[dict[str, str]],
                 json_schema: dict[str, Any] | None = None) -> ModelReply:
        left = time_left(self.state, self.clock)
        if self.spent:
            mark_spent(self.state)
            raise ModelError(f"time budget spent before the {purpose} call")
        model = self.inner
        configure = getattr(model, "configured", None)
        if left is not None and callable(configure) and not getattr(model, "spends_no_time", False):
            model = configure(total_s=left)
        try:
            return model.complete(purpose, messages, json_schema=json_schema)
        except ModelError:
            if self.spent:  # the call used up what was left: what follows this turn runs offline
                mark_spent(self.state)
            raise
