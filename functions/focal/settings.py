"""Typed settings from the environment, read in one place."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FOCAL_", extra="ignore")

    # Which adapters back the ports.
    store: Literal["sqlite", "dynamodb"] = "sqlite"
    config_source: Literal["file", "dynamodb"] = "file"

    # Local (embedded defaults).
    db_path: str = ".focal/focal.db"
    agent_file: str | None = None  # path to the agent YAML when config_source=file
    tenant: str = "local"

    # AWS.
    sessions_table: str = "focal-sessions"
    profiles_table: str = "focal-profiles"
    turns_table: str = "focal-turns"
    config_table: str = "focal-agent-config"
    # Idempotent turns (focal.turn.idempotency): the DynamoDB table of turn claims
    # (unset with FOCAL_STORE=dynamodb: off); records live this long.
    idempotency_table: str | None = None
    idempotency_ttl_hours: int = 24
    agents_root: str = "agents"  # folder in the code asset holding agent tool modules
    # Python modules whose functions agents may name as 'module:function' tool entrypoints (FOCAL_TOOL_MODULES,
    # comma-separated; exact module names). Set by the deployment only: otherwise a tool is 'file.py:function'
    # in the agent's own folder (focal.adapters.python_tools).
    tool_modules: Annotated[list[str], NoDecode] = []
    # Python tools run in worker processes, one per tenant and agent (focal.adapters.tool_workers): at most
    # this many calls of one agent's tools at once (FOCAL_TOOL_CALLS_PER_AGENT), and this many idle workers
    # kept (FOCAL_TOOL_IDLE_WORKERS; past it the least recently used is closed, its tools' state with it).
    tool_calls_per_agent: int = Field(default=4, ge=1, le=64)
    tool_idle_workers: int = Field(default=16, ge=0, le=1024)
    turn_ttl_days: int = 90
    session_ttl_hours: int = 24
    # Approvals in AWS: EventBridge bus for engine events (unset: not published) and the
    # STANDARD approval state machine the tools stage starts per request (unset: no workflow).
    event_bus: str | None = None
    approval_state_machine_arn: str | None = None

    # Rule index (FOCAL_INDEX): the embedded exact numpy index, or OpenSearch k-NN
    # (focal.adapters.opensearch_index). With "opensearch", FOCAL_OPENSEARCH_URL (a self-managed
    # cluster, optional FOCAL_OPENSEARCH_USERNAME / FOCAL_OPENSEARCH_PASSWORD basic credentials) wins
    # over FOCAL_OPENSEARCH_ENDPOINT (the managed domain's host, which the CDK stack sets; SigV4,
    # service 'es', the function's credentials, FOCAL_OPENSEARCH_REGION or the function's region).
    # One index per tenant environment: '<FOCAL_OPENSEARCH_INDEX_PREFIX>-<FOCAL_TENANT>-rules-v1'.
    # Every function that searches (retrieve) or indexes (config upload) needs the same values.
    index: Literal["numpy", "opensearch"] = "numpy"
    opensearch_endpoint: str | None = None
    opensearch_url: str | None = None
    opensearch_username: str | None = None
    opensearch_password: SecretStr | None = None
    opensearch_region: str | None = None
    opensearch_index_prefix: str = "focal"
    opensearch_engine: Literal["faiss", "lucene"] = "faiss"  # lucene for clusters older than 2.19

    # Models.
    model: str | None = None  # litellm model name; unset → offline components
    model_dir: str | None = None  # folder with the ONNX models (the layer's /opt/models in AWS)
    onnx_threads: int = 1
    # Time for slow (local) models, overriding the agent file's `models` section for every agent this process
    # runs: FOCAL_MODEL_TIMEOUT_S per attempt of a call (models.timeout_s), FOCAL_TURN_BUDGET_S for all the
    # turn's model calls together (models.turn_budget_s, at most 25 s in the file). Up to an hour each; in a
    # Lambda the turn budget stays at most 25 s (API Gateway stops waiting at 29 s). Unset: the agent file's.
    model_timeout_s: float | None = Field(default=None, gt=0, le=3600)
    turn_budget_s: float | None = Field(default=None, gt=0, le=3600)

    @field_validator("tool_modules", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    # The model provider's API key in AWS: the Secrets Manager secret focal/<FOCAL_TENANT>/<this name>, read at
    # init for a provider that needs a key and passed to litellm as `api_key` (never logged). Bedrock (and
    # SageMaker) models use the function's IAM role instead. Empty: no secret is read.
    model_api_key_secret: str = "model_api_key"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
