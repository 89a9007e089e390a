"""Ports: the small interfaces the engine talks to. Adapters implement them.

The engine (`models`, `stages`, `pipeline`, `ports`) never imports boto3, opensearch-py, litellm
or onnxruntime; only `focal.adapters` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from focal.models.agent import AgentConfig, Tool
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord


@runtime_checkable
class Embedder(Protocol):
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        ...


@dataclass
class ModelReply:
    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0


class LanguageModel(Protocol):
    def available(self, purpose: str) -> bool:
        """Whether a model is configured for this purpose (sensor, generate, judge)."""
        ...

    def complete(
        self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None
    ) -> ModelReply: ...


@dataclass(frozen=True)
class ScopeFilter:
    """Which rules a turn may see: GLOBAL, plus the active scenario and step if any."""

    tenant_id: str
    agent_id: str
    scenario_id: str | None = None
    step_id: str | None = None


@dataclass
class IndexedRule:
    rule_id: str
    scope: str
    scope_id: str | None
    text: str
    extra: dict[str, Any] = field(default_factory=dict)


class RuleIndex(Protocol):
    def upsert(self, tenant_id: str, agent_id: str, rules: Sequence[IndexedRule], vectors: np.ndarray) -> None: ...

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[tuple[str, float]]: ...


class SessionStore(Protocol):
    def get(self, tenant_id: str, agent_id: str, session_id: str) -> Session | None: ...

    def save(self, session: Session, expected_version: int) -> Session:
        """Write if the stored version equals `expected_version`; return it with version + 1.

        Raises VersionConflict otherwise."""
        ...


class ProfileStore(Protocol):
    def get(self, tenant_id: str, agent_id: str, customer_id: str) -> CustomerProfile | None: ...

    def save(self, profile: CustomerProfile) -> None: ...


class TurnStore(Protocol):
    def put(self, record: TurnRecord) -> None:
        """Insert once; raises DuplicateTurn if this turn id is already recorded."""
        ...

    def list_for_session(self, tenant_id: str, agent_id: str, session_id: str) -> list[TurnRecord]: ...


class ConfigStore(Protocol):
    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig: ...


class ToolRunner(Protocol):
    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]: ...


@runtime_checkable
class InjectionClassifier(Protocol):
    """An optional prompt-injection classifier (pre-validation); the ONNX adapter loads one from a folder."""

    def injection_score(self, text: str) -> float:
        """Probability in [0, 1] that the text is a prompt-injection or jailbreak attempt."""
        ...
