"""The ports a stage is given. Built by `focal.wiring` (adapters) or by tests (fakes)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from focal.models.agent import AgentConfig
from focal.pipeline.idempotency import TurnIdempotency
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
    # Builds a model for an agent that names one in its file when no deployment-wide model is set.
    model_factory: Callable[[str], LanguageModel] | None = None
    episodes: EpisodeStore | None = None  # episodic memory; None: off
    # Loads the optional ONNX prompt-injection classifier an agent names (a folder), once per folder.
    injection_classifier: Callable[[str], InjectionClassifier | None] | None = None
    # Load the optional ONNX cross-encoders of the output checks (enforcement.*_model_dir), once per folder.
    relevance_model: Callable[[str], RelevanceModel | None] | None = None
    grounding_model: Callable[[str], EntailmentModel | None] | None = None
    approvals: ApprovalStore | None = None  # approval requests (seed 004); None: the gate cannot ask, it rejects
    events: EventSink | None = None  # approval / clarification / decision / tool events; None: not published
    approval_workflow: ApprovalWorkflow | None = None  # AWS: the STANDARD state machine; None: local
    idempotency: TurnIdempotency | None = None  # repeated turn ids answered from the store (issue 7); None: off
    session_ttl_s: int = 24 * 3600
    turn_ttl_s: int = 90 * 24 * 3600
    clock: Callable[[], float] = time.time
    indexed: dict[tuple[str, str], str] = field(default_factory=dict)  # (tenant, agent) → rules hash
    # Locally the first turn after a config change syncs the index; in AWS publishing does it
    # (the retrieve function may only read OpenSearch).
    sync_on_turn: bool = True

    def llm(self, agent: AgentConfig) -> LanguageModel:
        if agent.models.model and self.model_factory and not self.model.available("generate"):
            return self.model_factory(agent.models.model)
        return self.model
