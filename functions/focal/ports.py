"""Ports: the small interfaces the engine talks to. Adapters implement them.

The engine (`models`, `stages`, `pipeline`, `ports`) never imports boto3, opensearch-py, litellm
or onnxruntime; only `focal.adapters` does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from focal.models.agent import AgentConfig, Tool
from focal.models.approval import ApprovalRequest, ApprovalState, EngineEvent
from focal.models.memory import Episode
from focal.models.session import CustomerProfile, Session
from focal.models.turn import ToolCallContext, TurnRecord

if TYPE_CHECKING:  # numpy is imported by the adapters that embed, not by every function's init
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text."""
        ...


def embed_fixed(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Vectors of fixed texts (the agent's own, the shipped exemplars; never a customer's message): an embedder
    that keeps such vectors across processes (focal.adapters.vector_cache) reads them from its store."""
    keep = getattr(embedder, "embed_fixed", None)
    return keep(texts) if callable(keep) else embedder.embed(texts)


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
    """Which documents a search may see. Rules: GLOBAL, plus the listed scenarios and steps (steps as
    'scenario_id.step_id'). Scenario examples (`kind="scenario"`): every scenario of the agent."""

    tenant_id: str
    agent_id: str
    scenario_ids: tuple[str, ...] = ()
    step_ids: tuple[str, ...] = ()
    kind: str = "rule"


@dataclass
class IndexedRule:
    """One document of the index: a rule's condition, or one entry example of a scenario."""

    rule_id: str  # the rule id, or 'scenario_id#n' for the n-th entry example
    scope: str  # GLOBAL | SCENARIO | STEP
    scope_id: str | None
    text: str
    kind: str = "rule"  # rule | scenario
    hard: bool = False  # a hard constraint (GLOBAL ones are always returned, see RuleIndex.search)
    digest: str = ""  # content hash of what was embedded: unchanged digest, no re-embedding
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Hit:
    rule_id: str
    score: float
    reason: str = "similarity"  # or "always included" for GLOBAL hard constraints outside the top k


class RuleIndex(Protocol):
    def upsert(self, tenant_id: str, agent_id: str, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        """Add these documents, replacing any with the same id."""
        ...

    def delete(self, tenant_id: str, agent_id: str, ids: Sequence[str]) -> None: ...

    def digests(self, tenant_id: str, agent_id: str) -> dict[str, str]:
        """id → content digest of every document indexed for the agent (both kinds)."""
        ...

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        """The k most similar documents the scope allows, filtered before ranking (never fewer than k
        by post-filtering). For rules, every GLOBAL hard constraint is also returned with its score
        even when it is not among the k."""
        ...


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

    def remask(self, tenant_id: str, agent_id: str, session_id: str, turn_id: str) -> None:
        """Mask a stored turn record again, under the masking rules in force now (`focal.pii.digit_rules`: the
        earlier part of a card a later message completed); nothing when it is not stored."""
        ...


class EpisodeStore(Protocol):
    def put(self, episode: Episode) -> None: ...

    def remask(self, tenant_id: str, agent_id: str, customer_id: str, turn_id: str, near: float) -> None:
        """Mask the episode of `turn_id` again, as `TurnStore.remask`; `near`: about when it was written."""
        ...

    def recent(self, tenant_id: str, agent_id: str, customer_id: str, limit: int) -> list[Episode]:
        """The customer's newest episodes first, at most `limit`, expired ones left out."""
        ...


class ConfigStore(Protocol):
    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig: ...


class AgentPublisher(Protocol):
    """Stores an agent definition (the text is validated first; raises AgentConfigInvalid)."""

    def put_agent(self, tenant_id: str, yaml_text: str) -> AgentConfig: ...


class ToolRunner(Protocol):
    def run(
        self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any], context: ToolCallContext | None = None
    ) -> dict[str, Any]:
        """Run `tool` on `arguments`. `context` names the turn and, for side-effecting calls, carries the
        idempotency key the tool receives (so a repeated call can be recognised downstream)."""
        ...


class SecretSource(Protocol):
    """Secrets that tool definitions reference as `${secret:NAME}` (environment locally, Secrets
    Manager / SSM in AWS). Values are never logged nor put in traces or errors."""

    def get(self, name: str) -> str | None:
        """The secret's value, or None when there is no such secret (or it cannot be read)."""
        ...


@runtime_checkable
class InjectionClassifier(Protocol):
    """An optional prompt-injection classifier (pre-validation); the ONNX adapter loads one from a folder."""

    def injection_score(self, text: str) -> float:
        """Probability in [0, 1] that the text is a prompt-injection or jailbreak attempt."""
        ...


@runtime_checkable
class RelevanceModel(Protocol):
    """An optional relevance cross-encoder (output checks); the ONNX adapter loads one from a folder."""

    def relevance(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """For each (query, answer) pair, the probability in [0, 1] that the answer addresses the query."""
        ...


@runtime_checkable
class EntailmentModel(Protocol):
    """An optional NLI cross-encoder (output checks); the ONNX adapter loads one from a folder."""

    def entailment(self, premise: str, hypotheses: Sequence[str]) -> list[float]:
        """For each hypothesis, the probability in [0, 1] that the premise entails it."""
        ...


class ApprovalStore(Protocol):
    """Approval requests, keyed by tenant and approval id.

    Reads report an awaiting request past its deadline as `expired` (TTL or no TTL). A transition
    is conditional on the stored state, so of two racing answers exactly one wins."""

    def create(self, request: ApprovalRequest) -> None:
        """Insert once; raises ValueError if the id is already taken."""
        ...

    def get(self, tenant_id: str, approval_id: str, now: float) -> ApprovalRequest | None: ...

    def transition(
        self, tenant_id: str, approval_id: str, from_state: ApprovalState, to_state: ApprovalState, now: float,
        outcome: dict[str, Any] | None = None,
    ) -> ApprovalRequest | None:
        """Move from `from_state` to `to_state` (stamping `decided_at=now`) if the stored state is still
        `from_state` — and, moving an awaiting request to approved or denied, only before its deadline.
        Returns the stored request after the move, or None when the condition did not hold."""
        ...

    def set_outcome(self, tenant_id: str, approval_id: str, outcome: dict[str, Any]) -> None:
        """Record what happened after the decision (tool statuses, follow-up turn); the state is not touched."""
        ...


class EventSink(Protocol):
    """Where approval requests, clarifications, execution decisions, tool results and approval
    decisions are published: a JSONL file locally, EventBridge in AWS. Never customer text."""

    def publish(self, event: EngineEvent) -> None: ...


class ApprovalWorkflow(Protocol):
    """What waits for an approval answer outside the engine: in AWS a STANDARD state machine holding a
    task token (one execution per request, named after it); locally nothing (`focal approve` answers).

    Never runs the action itself: `dialogue.approvals.answer` does that, exactly once."""

    def start(self, request: ApprovalRequest) -> None:
        """Begin waiting for `request` (never raises: a failure leaves the request answerable, unwatched)."""
        ...

    def hold(self, tenant_id: str, approval_id: str, task_token: str) -> bool:
        """Record the workflow's task token on the awaiting request; False if it is no longer awaiting."""
        ...

    def resume(self, tenant_id: str, approval_id: str, output: dict[str, Any]) -> bool:
        """Hand the decision to the waiting workflow (SendTaskSuccess); False if nothing was waiting."""
        ...


ClaimStatus = Literal["in_progress", "completed"]


@dataclass(frozen=True)
class TurnClaim:
    """One turn id's idempotency record: which execution runs it and until when (in progress), or its answer."""

    tenant_id: str
    key: str  # a hash of (tenant, agent, session, turn id); the store's key leads with the tenant
    payload_hash: str  # a hash of (customer, message): the same turn id with another message is refused
    owner: str  # the random token of the execution holding the claim
    status: ClaimStatus
    lease_until: float  # epoch seconds: an in-progress claim is not taken over before this
    expires_at: float  # epoch seconds: afterwards the turn id is free again (the record's TTL)
    result: str | None = None  # the TurnResult JSON, once completed

    def yields_to(self, claim: TurnClaim, now: float) -> bool:
        """Whether `claim` may replace this record at `now`: it has expired, or it is in progress for the same
        message and its lease has ended (its owner is presumed dead; a live one renews before it writes)."""
        if self.expires_at <= now:
            return True
        return self.status == "in_progress" and self.lease_until <= now and self.payload_hash == claim.payload_hash


class TurnClaimStore(Protocol):
    """Turn claims (focal.turn.idempotency), keyed by tenant and key. Every write is one conditional write."""

    def acquire(self, claim: TurnClaim, now: float) -> tuple[bool, TurnClaim | None]:
        """Write `claim` (in progress) if the key is absent or its record `yields_to` it at `now`.
        (True, the record it replaced or None), else (False, the record holding the key, unchanged; None if
        it vanished meanwhile)."""
        ...

    def extend(self, tenant_id: str, key: str, owner: str, lease_until: float) -> bool:
        """Move the lease of the in-progress claim held by `owner`; False if another owner holds it now, it
        is completed, or it is gone."""
        ...

    def complete(self, tenant_id: str, key: str, owner: str, result: str, expires_at: float) -> bool:
        """Store the answer if the claim is in progress and still held by `owner` (compare-and-set on the
        owner token); False otherwise, and nothing is written."""
        ...
