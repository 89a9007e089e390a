"""The container: builds the ports from typed settings. The only engine module that names adapters."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from focal.ports import (
    ApprovalStore,
    ConfigStore,
    EpisodeStore,
    ProfileStore,
    RuleIndex,
    SecretSource,
    SessionStore,
    TurnStore,
)
from focal.settings import Settings, get_settings
from focal.turn.deps import Deps


def local_deps(agent_path: str | Path, db_path: str | Path = ".focal/focal.db", model: str | None = None,
               configs: ConfigStore | None = None) -> Deps:
    """The embedded defaults: agent YAML, SQLite, exact numpy index, MiniLM ONNX, offline unless a model is named.
    `configs`: a config store already reading `agent_path` (the stores mask with it too), so a suite's many
    conversations parse the agent once."""
    from focal.adapters.file_config import FileConfigStore
    from focal.adapters.litellm_model import LiteLLMModel
    from focal.adapters.numpy_index import NumpyRuleIndex
    from focal.adapters.onnx_classifier import shared_injection_classifier
    from focal.adapters.onnx_cross_encoder import shared_entailment_model, shared_relevance_model
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.secrets import EnvSecretSource
    from focal.adapters.sqlite_store import open_sqlite_stores
    from focal.adapters.tool_runner import KindToolRunner
    from focal.adapters.use_embedder import shared_multilingual_embedder
    from focal.adapters.vector_cache import cached_embedder
    from focal.pii import agent_lookup

    configs = configs if configs is not None else FileConfigStore(agent_path)
    stores = open_sqlite_stores(str(db_path), agents=agent_lookup(configs))  # pii: true fields masked at rest
    return Deps(
        idempotency=sqlite_idempotency(stores.db),
        configs=configs,
        sessions=stores.sessions,
        profiles=stores.profiles,
        turns=stores.turns,
        episodes=stores.episodes,
        approvals=stores.approvals,
        events=local_event_sink(db_path),
        embedder=cached_embedder(shared_embedder(), vector_folder(db_path)),
        rule_index=NumpyRuleIndex(None if str(db_path) == ":memory:" else Path(db_path).parent / "index"),
        multilingual_embedder=cached_embedder(shared_multilingual_embedder(), vector_folder(db_path)),
        multilingual_index=NumpyRuleIndex(None),  # in memory: the agent's keys, rebuilt from the kept vectors
        model=LiteLLMModel(model),
        tools=KindToolRunner(EnvSecretSource()),
        model_factory=LiteLLMModel,
        injection_classifier=shared_injection_classifier,
        relevance_model=shared_relevance_model,
        grounding_model=shared_entailment_model,
    )


def vector_folder(db_path: str | Path) -> Path:
    """Where the agent's texts' vectors are kept (focal.adapters.vector_cache): beside the SQLite file, or beside
    FOCAL_DB_PATH (`.focal/`) for an in-memory database."""
    db = get_settings().db_path if str(db_path) == ":memory:" else str(db_path)
    return Path(db).parent / "vectors"


def sqlite_idempotency(db, expires_after_s: int = 24 * 3600):  # noqa: ANN001, ANN201 - SqliteDatabase → TurnIdempotency
    """Idempotent turns on the local SQLite file (the same file as the stores)."""
    from focal.adapters.sqlite_idempotency import SqliteTurnClaims
    from focal.turn.idempotency import TurnIdempotency

    return TurnIdempotency(SqliteTurnClaims(db), expires_after_s)


def dynamodb_idempotency(table_name: str, expires_after_s: int = 24 * 3600):  # noqa: ANN201 - TurnIdempotency
    """Idempotent turns on the stack's IdempotencyTable (`pk`, TTL `expires_at`): conditional writes."""
    from focal.adapters.dynamodb_idempotency import DynamoTurnClaims
    from focal.turn.idempotency import TurnIdempotency

    return TurnIdempotency(DynamoTurnClaims(table_name), expires_after_s)


def local_event_sink(db_path: str | Path):  # noqa: ANN201 - an EventSink
    """Events beside the SQLite file (`.focal/events.jsonl`); in memory for a `:memory:` database."""
    from focal.adapters.jsonl_events import JsonlEventSink, MemoryEventSink

    if str(db_path) == ":memory:":
        return MemoryEventSink()
    return JsonlEventSink(Path(db_path).parent / "events.jsonl")


def rule_index_from_settings(settings: Settings, dimension: int) -> RuleIndex:
    """FOCAL_INDEX: the embedded numpy index (default) or OpenSearch k-NN, one index per tenant environment."""
    if settings.index == "numpy":
        from focal.adapters.lazy import LazyRuleIndex

        return LazyRuleIndex(_numpy_index)  # numpy loads with the first search or sync, not at init
    from focal.adapters.opensearch_index import OpenSearchRuleIndex, index_name, opensearch_client

    target = settings.opensearch_url or settings.opensearch_endpoint
    if not target:
        raise ValueError("FOCAL_INDEX=opensearch needs FOCAL_OPENSEARCH_URL or FOCAL_OPENSEARCH_ENDPOINT")
    password = settings.opensearch_password.get_secret_value() if settings.opensearch_password else None
    client = opensearch_client(target, settings.opensearch_region, settings.opensearch_username, password)
    return OpenSearchRuleIndex(
        client, index_name(settings.tenant, settings.opensearch_index_prefix), dimension,
        engine=settings.opensearch_engine,
    )


def _numpy_index() -> RuleIndex:
    from focal.adapters.numpy_index import NumpyRuleIndex

    return NumpyRuleIndex()


def provider_key(settings: Settings, secrets: SecretSource, in_aws: bool) -> Callable[[str], str | None] | None:
    """In AWS, the model provider's key is the tenant's secret focal/<tenant>/<FOCAL_MODEL_API_KEY_SECRET>,
    read here at init when FOCAL_MODEL names a provider that needs one (Bedrock uses the function's role),
    else on an agent-named model's first call. Locally litellm reads the provider's own variable."""
    from focal.adapters.litellm_model import ProviderKey

    if not in_aws or not settings.model_api_key_secret:
        return None
    key = ProviderKey(secrets, settings.model_api_key_secret)
    if settings.model:
        key(settings.model)  # read at init (cached by the source; a failure is logged by name, never a value)
    return key


def deps_from_settings(settings: Settings) -> Deps:
    """What a Lambda (or `focal serve`) runs with, chosen by FOCAL_* environment variables."""
    from focal.adapters.lazy import LazyEmbedder, LazyMultilingualEmbedder, LazyRuleIndex
    from focal.adapters.litellm_model import LiteLLMModel
    from focal.adapters.secrets import secret_source
    from focal.adapters.tool_runner import KindToolRunner
    from focal.pii import agent_lookup

    configs: ConfigStore
    if settings.config_source == "dynamodb":
        from focal.adapters.dynamodb_store import DynamoConfigStore

        configs = DynamoConfigStore(settings.config_table, agents_root=settings.agents_root)
    else:
        from focal.adapters.file_config import FileConfigStore

        if not settings.agent_file:
            raise ValueError("FOCAL_AGENT_FILE must name an agent YAML when FOCAL_CONFIG_SOURCE=file")
        configs = FileConfigStore(settings.agent_file)
    agents = agent_lookup(configs)  # the stores mask each agent's `pii: true` fields at rest
    sessions: SessionStore
    profiles: ProfileStore
    turns: TurnStore
    episodes: EpisodeStore
    approvals: ApprovalStore
    if settings.store == "dynamodb":
        from focal.adapters.dynamodb_store import (
            DynamoEpisodeStore,
            DynamoProfileStore,
            DynamoSessionStore,
            DynamoTurnStore,
        )

        sessions, profiles, turns = (
            DynamoSessionStore(settings.sessions_table, agents=agents),
            DynamoProfileStore(settings.profiles_table),
            DynamoTurnStore(settings.turns_table, agents=agents),
        )
        episodes = DynamoEpisodeStore(settings.turns_table, agents=agents)
        from focal.adapters.dynamodb_store import DynamoApprovalStore

        approvals = DynamoApprovalStore(settings.sessions_table)  # key TENANT#<t>#APPROVAL#<id>
        events = None  # EventBridge when FOCAL_EVENT_BUS names a bus (the stack sets it)
        if settings.event_bus:
            from focal.adapters.eventbridge_events import EventBridgeEventSink

            events = EventBridgeEventSink(settings.event_bus)
        from focal.adapters.stepfunctions_approvals import StepFunctionsApprovalWorkflow

        # The STANDARD approval state machine (started by the tools stage, resumed by the approval endpoint).
        workflow = StepFunctionsApprovalWorkflow(settings.sessions_table, settings.approval_state_machine_arn)
        idempotency = (dynamodb_idempotency(settings.idempotency_table, settings.idempotency_ttl_hours * 3600)
                       if settings.idempotency_table else None)
    else:
        from focal.adapters.sqlite_store import open_sqlite_stores

        stores = open_sqlite_stores(settings.db_path, agents=agents)
        sessions, profiles, turns, episodes = stores.sessions, stores.profiles, stores.turns, stores.episodes
        approvals, events = stores.approvals, local_event_sink(settings.db_path)
        workflow = None  # locally `focal approve` / `focal deny` answer; nothing waits
        idempotency = sqlite_idempotency(stores.db, settings.idempotency_ttl_hours * 3600)
    embedder = LazyEmbedder(settings.model_dir, settings.onnx_threads)  # loaded by the stages that embed
    in_aws = "dynamodb" in (settings.store, settings.config_source)
    secrets = secret_source(in_aws, settings.tenant)
    key_for = provider_key(settings, secrets, in_aws)
    return Deps(
        configs=configs,
        sessions=sessions,
        profiles=profiles,
        turns=turns,
        episodes=episodes,
        approvals=approvals,
        events=events,
        approval_workflow=workflow,
        idempotency=idempotency,
        embedder=embedder,
        rule_index=rule_index_from_settings(settings, embedder.dimension),
        # loaded by the first turn in another language; the process's own index of the agent's keys in that space
        multilingual_embedder=LazyMultilingualEmbedder(settings.onnx_threads),
        multilingual_index=LazyRuleIndex(_numpy_index),
        sync_on_turn=settings.index != "opensearch",
        model=LiteLLMModel(settings.model, key_for=key_for),
        # In AWS: secrets from Secrets Manager under focal/<tenant>/, and http tools reach public hosts only.
        tools=KindToolRunner(secrets, allow_private_hosts=not in_aws),
        model_factory=partial(LiteLLMModel, key_for=key_for),
        # The optional ONNX classifiers: their modules (onnxruntime, tokenizers) load only if an agent names one.
        injection_classifier=_lazy("focal.adapters.onnx_classifier", "shared_injection_classifier"),
        relevance_model=_lazy("focal.adapters.onnx_cross_encoder", "shared_relevance_model"),
        grounding_model=_lazy("focal.adapters.onnx_cross_encoder", "shared_entailment_model"),
        session_ttl_s=settings.session_ttl_hours * 3600,
        turn_ttl_s=settings.turn_ttl_days * 24 * 3600,
    )


def _lazy(module: str, name: str) -> Callable[[str], Any]:
    def load(folder: str) -> Any:
        return getattr(importlib.import_module(module), name)(folder)

    return load


@lru_cache(maxsize=1)
def deps_from_env() -> Deps:
    """One set of ports per Lambda container (models load once, on the first invocation)."""
    return deps_from_settings(get_settings())
