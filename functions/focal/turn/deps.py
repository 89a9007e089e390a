"""The ports a stage is given. Built by `focal.wiring` (adapters) or by tests (fakes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from focal.models.agent import AgentConfig
from focal.models.turn import TurnState
from focal.ports import (
    ApprovalStore,
    ApprovalWorkflow,
    ConfigStore,
    Embedder,
    EntailmentModel,
    EpisodeStore,
    EventSink,
    InjectionClassifier,
    LanguageModel,
    ProfileStore,
    RelevanceModel,
    RuleIndex,
    SessionStore,
    ToolRunner,
    TurnStore,
)
from focal.turn.budget import BudgetedModel, start_budget
from focal.turn.idempotency import TurnIdempotency


@dataclass
class Deps:
    configs: ConfigStore
    sessions: SessionStore
    profiles: ProfileStore
    turns: TurnStore
    embedder: Embedder
    rule_index: RuleIndex
    model: LanguageModel
    tools: ToolRunner
    # Builds a model for an agent that names one in its file when no deployment-wide model is set:
    # model_factory(name, timeout_s=…, temperature=…, retries=…) (LiteLLMModel's signature).
    model_factory: Callable[..., LanguageModel] | None = None
    episodes: EpisodeStore | None = None  # episodic memory; None: off
    # The multilingual space (focal.sensing.spaces): a turn in another language than English is matched there,
    # against an in-process index of the agent's rule keys; None: every turn is matched in the English space.
    multilingual_embedder: Embedder | None = None
    multilingual_index: RuleIndex | None = None
    # Loads the optional ONNX prompt-injection classifier an agent names (a folder), once per folder.
    injection_classifier: Callable[[str], InjectionClassifier | None] | None = None
    # Load the optional ONNX cross-encoders of the output checks (enforcement.*_model_dir), once per folder.
    relevance_model: Callable[[str], RelevanceModel | None] | None = None
    grounding_model: Callable[[str], EntailmentModel | None] | None = None
    approvals: ApprovalStore | None = None  # approval requests; None: the gate cannot ask, it rejects
    events: EventSink | None = None  # approval / clarification / decision / tool events; None: not published
    approval_workflow: ApprovalWorkflow | None = None  # AWS: the STANDARD state machine; None: local
    idempotency: TurnIdempotency | None = None  # repeated turn ids answered from the store; None: off
    session_ttl_s: int = 24 * 3600
    turn_ttl_s: int = 90 * 24 * 3600
    clock: Callable[[], float] = time.time
    indexed: dict[tuple[str, str], str] = field(default_factory=dict)  # (tenant, agent) → rules hash
    # Locally the first turn after a config change syncs the index; in AWS publishing does it
    # (the retrieve function may only read OpenSearch).
    sync_on_turn: bool = True

    # (model, timeout_s, temperature, retries) → (the base it was made from, the configured model)
    _models: dict[tuple[Any, ...], tuple[Any, LanguageModel]] = field(default_factory=dict, repr=False)

    def llm(self, agent: AgentConfig, state: TurnState | None = None) -> LanguageModel:
        """The model for this agent with its `models` settings (timeout, temperature, retries), whether
        the name comes from FOCAL_MODEL or the agent file; with `state`, bounded by the turn's time budget."""
        model = self._configured(agent)
        if state is None:
            return model
        start_budget(state, agent, self.clock)
        return BudgetedModel(model, state, self.clock)

    def _configured(self, agent: AgentConfig) -> LanguageModel:
        s = agent.models
        named = bool(s.model and self.model_factory and not self.model.available("generate"))
        base: Any = self.model_factory if named else self.model
        configure = getattr(self.model, "configured", None)
        if not named and not callable(configure):
            return self.model  # a model without settings (a fake at the port): used as it is
        key = (s.model if named else getattr(self.model, "model", None), s.timeout_s, s.temperature, s.retries)
        hit = self._models.get(key)
        if hit is not None and hit[0] is base:
            return hit[1]
        settings = {"timeout_s": s.timeout_s, "temperature": s.temperature, "retries": s.retries}
        made = self.model_factory(s.model, **settings) if named else configure(**settings)  # type: ignore[misc]
        self._models[key] = (base, made)
        return made
