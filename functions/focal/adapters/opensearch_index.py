"""The OpenSearch rule index: k-NN with efficient filtering, one index per tenant environment.

Same semantics as the embedded `NumpyRuleIndex` (the contract tests run both):

- One index per tenant environment (`index_name`), yet every document carries `tenant_id` and
  `agent_id`, every query filters on both, and document ids are a hash of (tenant, agent, rule id),
  so tenant "abc" can never read, overwrite or delete the documents of tenant "abc-def".
- The scope filter sits INSIDE the `knn` clause (efficient filtering: the engine searches only the
  documents the filter admits, switching to an exact search for small filtered sets), so a filter
  never leaves fewer than k hits the way a post-filter would.
- For rules, a second query in the same `_msearch` scores EVERY GLOBAL hard constraint of the agent
  exactly (the k-NN plugin's `knn_score` script over a filtered set); those not among the k come
  back with reason "always included".
- Scores are converted back to cosine similarity so thresholds mean what they mean on the numpy
  index (see `cosine_from_knn` and `cosine_from_script`).

Mapping choices (`index_body`): `faiss` HNSW (efficient filtering since OpenSearch 2.9, ef_search
honoured from the dynamic index setting, SIMD; `cosinesimil` needs OpenSearch ≥ 2.19, which the CDK
domain runs — pass engine="lucene" for an older self-managed cluster: it also filters efficiently,
but sets ef_search to k). Space `cosinesimil` rather than `innerproduct`: the score is a single
linear function of the cosine ((1 + cos) / 2) instead of innerproduct's piecewise one, and it stays
correct for an embedder that does not normalise its vectors. `filtered_exact_search_threshold`
makes the engine score an agent's filtered documents exactly while there are fewer than that
(most agents), so rankings equal the numpy index's.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from focal.adapters.opensearch_retry import SEARCH, WRITE, bounded
from focal.ports import Hit, IndexedRule, ScopeFilter

MAPPING_VERSION = 1  # part of the index name: a mapping change means a new index and a re-sync
VECTOR_FIELD = "vector"
HNSW_M = 16  # graph links per node: 16 is the engines' default and ample for 384-d sentence vectors
HNSW_EF_CONSTRUCTION = 128  # build-time beam: slightly above the default for better recall, rules change rarely
HNSW_EF_SEARCH = 100  # query-time beam (dynamic index setting; must be ≥ k, which is ~8 here)
EXACT_SEARCH_THRESHOLD = 2000  # filtered sets smaller than this (per segment) are scored exactly
BULK_CHUNK = 500  # documents per _bulk request (384 floats each: ~2 MB per request)
PAGE = 1000  # digests page size (search_after on rule_id)
MAX_ALWAYS_INCLUDED = 10_000  # GLOBAL hard constraints scored per search (index.max_result_window)
ALWAYS_INCLUDED = "always included"

Engine = Literal["faiss", "lucene"]
_NAME_PART = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


class RuleIndexError(RuntimeError):
    """OpenSearch refused a request (the message names the error type, never document content)."""


# --- naming and ids ------------------------------------------------------------------------------


def index_name(environment: str, prefix: str = "focal") -> str:
    """The rule index of one tenant environment, e.g. 'focal-acme-rules-v1'."""
    for label, part in (("prefix", prefix), ("environment", environment)):
        if not _NAME_PART.fullmatch(part):
            raise ValueError(f"invalid index {label} {part!r}: lowercase letters, digits, '-' and '_' only")
    return f"{prefix}-{environment}-rules-v{MAPPING_VERSION}"


def document_id(tenant_id: str, agent_id: str, rule_id: str) -> str:
    """A deterministic id that cannot collide across tenants or agents, whatever characters ids hold."""
    for label, value in (("tenant", tenant_id), ("agent", agent_id), ("rule", rule_id)):
        if not value:
            raise ValueError(f"{label} id must be non-empty")
    return hashlib.sha256(json.dumps([tenant_id, agent_id, rule_id]).encode()).hexdigest()


# --- request bodies (pure functions: the unit tests assert them exactly) -------------------------


def index_body(dimension: int, engine: Engine = "faiss", replicas: int = 0) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "knn": True,
        "knn.algo_param.ef_search": HNSW_EF_SEARCH,
        "knn.advanced.filtered_exact_search_threshold": EXACT_SEARCH_THRESHOLD,
        "number_of_shards": 1,  # rules per tenant are few: one shard, one HNSW graph per segment
        "number_of_replicas": replicas,  # 0 on the stack's single-node domain (else it stays yellow)
    }
    keyword = {"type": "keyword"}
    return {
        "settings": {"index": settings},
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": keyword,
                "agent_id": keyword,
                "rule_id": keyword,
                "kind": keyword,
                "scope": keyword,
                "scope_id": keyword,
                "digest": keyword,
                "hard": {"type": "boolean"},
                VECTOR_FIELD: {
                    "type": "knn_vector",
                    "dimension": dimension,
                    "method": {
                        "name": "hnsw",
                        "engine": engine,
                        "space_type": "cosinesimil",
                        "parameters": {"m": HNSW_M, "ef_construction": HNSW_EF_CONSTRUCTION},
                    },
                },
            },
        },
    }


def agent_terms(tenant_id: str, agent_id: str) -> list[dict[str, Any]]:
    return [{"term": {"tenant_id": tenant_id}}, {"term": {"agent_id": agent_id}}]


def scope_filter(scope: ScopeFilter) -> dict[str, Any]:
    """What a search may see: the agent's documents of the kind; for rules GLOBAL + listed scenarios + steps."""
    clauses = [*agent_terms(scope.tenant_id, scope.agent_id), {"term": {"kind": scope.kind}}]
    if scope.kind == "rule":
        allowed: list[dict[str, Any]] = [{"term": {"scope": "GLOBAL"}}]
        for level, ids in (("SCENARIO", scope.scenario_ids), ("STEP", scope.step_ids)):
            if ids:
                allowed.append({"bool": {"filter": [{"term": {"scope": level}}, {"terms": {"scope_id": list(ids)}}]}})
        clauses.append({"bool": {"should": allowed, "minimum_should_match": 1}})
    return {"bool": {"filter": clauses}}


def _floats(vector: np.ndarray) -> list[float]:
    return [float(x) for x in np.asarray(vector, dtype=np.float32).ravel()]


def knn_query(scope: ScopeFilter, vector: np.ndarray, k: int) -> dict[str, Any]:
    """The k nearest documents the scope allows; the filter is inside `knn` (efficient filtering)."""
    return {
        "size": k,
        "_source": ["rule_id"],
        "query": {"knn": {VECTOR_FIELD: {"vector": _floats(vector), "k": k, "filter": scope_filter(scope)}}},
    }


def always_included_query(scope: ScopeFilter, vector: np.ndarray) -> dict[str, Any]:
    """Every GLOBAL hard constraint of the agent, scored exactly (knn_score script: 1 + cosine)."""
    hard_global = [
        *agent_terms(scope.tenant_id, scope.agent_id),
        {"term": {"kind": "rule"}},
        {"term": {"scope": "GLOBAL"}},
        {"term": {"hard": True}},
    ]
    return {
        "size": MAX_ALWAYS_INCLUDED,
        "_source": ["rule_id"],
        "query": {
            "script_score": {
                "query": {"bool": {"filter": hard_global}},
                "script": {
                    "lang": "knn",
                    "source": "knn_score",
                    "params": {"field": VECTOR_FIELD, "query_value": _floats(vector), "space_type": "cosinesimil"},
                },
            }
        },
    }


def digests_query(tenant_id: str, agent_id: str, after: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "size": PAGE,
        "_source": ["rule_id", "digest"],
        "query": {"bool": {"filter": agent_terms(tenant_id, agent_id)}},
        "sort": [{"rule_id": "asc"}],  # rule ids are unique within an agent: a total ordering for search_after
    }
    if after is not None:
        body["search_after"] = [after]
    return body


def agent_query(tenant_id: str, agent_id: str) -> dict[str, Any]:
    return {"query": {"bool": {"filter": agent_terms(tenant_id, agent_id)}}}


def cosine_from_knn(score: float) -> float:
    """k-NN query score for cosinesimil (lucene and faiss): (2 - (1 - cos)) / 2 = (1 + cos) / 2."""
    return 2.0 * float(score) - 1.0


def cosine_from_script(score: float) -> float:
    """knn_score script for cosinesimil: 1 + cos (scores cannot be negative)."""
    return float(score) - 1.0


# --- the adapter ---------------------------------------------------------------------------------


def _status(exc: Exception) -> Any:
    return getattr(exc, "status_code", None)


def _error_type(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("type", "unknown"))
    return str(error)


class OpenSearchRuleIndex:
    """`RuleIndex` on OpenSearch k-NN. `client` is an `opensearchpy.OpenSearch` (or a fake of it)."""

    def __init__(
        self, client: Any, index_name: str, dimension: int, *, engine: Engine = "faiss", replicas: int = 0,
        refresh: str = "wait_for",
    ) -> None:
        self.client = client
        self.index = index_name
        self.dimension = dimension
        self.engine: Engine = engine
        self.replicas = replicas
        self.refresh = refresh  # writes are searchable when they return: a changed rule applies next turn
        self._ready = False

    def ensure_index(self) -> bool:
        """Create the index with its mapping if missing; True if this call created it."""
        if self._ready:
            return False
        created = False
        if not bounded(self.client.indices.exists, WRITE, index=self.index):
            try:
                bounded(self.client.indices.create, WRITE, index=self.index,
                        body=index_body(self.dimension, self.engine, self.replicas))
                created = True
            except Exception as exc:  # another writer may have created it a moment ago
                if _status(exc) != 400 or "resource_already_exists" not in str(getattr(exc, "error", "")):
                    raise
        self._ready = True
        return created

    # writes ----------------------------------------------------------------------------------

    def upsert(self, tenant_id: str, agent_id: str, docs: Sequence[IndexedRule], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(docs) == 0:
            return
        if vectors.ndim != 2 or vectors.shape != (len(docs), self.dimension):
            raise ValueError(f"expected {len(docs)} vectors of dimension {self.dimension}, got {vectors.shape}")
        self.ensure_index()  # never let _bulk auto-create the index with a dynamic (non-k-NN) mapping
        actions: list[dict[str, Any]] = []
        for doc, vector in zip(docs, vectors, strict=True):
            actions.append({"index": {"_index": self.index, "_id": document_id(tenant_id, agent_id, doc.rule_id)}})
            actions.append({
                "tenant_id": tenant_id,
                "agent_id": agent_id,
                "rule_id": doc.rule_id,
                "kind": doc.kind,
                "scope": doc.scope,
                "scope_id": doc.scope_id,
                "digest": doc.digest,
                "hard": bool(doc.hard),
                VECTOR_FIELD: _floats(vector),
            })
        self._bulk(actions, per_doc=2)

    def delete(self, tenant_id: str, agent_id: str, ids: Sequence[str]) -> None:
        actions = [{"delete": {"_index": self.index, "_id": document_id(tenant_id, agent_id, i)}} for i in ids]
        # Nothing to delete from an index that does not exist (and a _bulk must not auto-create it).
        if actions and (self._ready or bounded(self.client.indices.exists, WRITE, index=self.index)):
            self._bulk(actions, per_doc=1)

    def delete_agent(self, tenant_id: str, agent_id: str) -> int:
        """Remove every document of one agent (both kinds); returns how many were deleted."""
        document_id(tenant_id, agent_id, "-")  # validates the ids
        try:
            response = bounded(self.client.delete_by_query, WRITE, index=self.index, body=agent_query(tenant_id, agent_id),
                               refresh="true", conflicts="proceed")
        except Exception as exc:
            if _status(exc) == 404:
                return 0
            raise
        return int(response.get("deleted", 0))

    def _bulk(self, actions: list[dict[str, Any]], per_doc: int) -> None:
        step = BULK_CHUNK * per_doc
        for start in range(0, len(actions), step):
            response = bounded(self.client.bulk, WRITE, body=actions[start:start + step], refresh=self.refresh)
            if response.get("errors"):
                failed = [
                    item for entry in response.get("items", []) for item in entry.values() if item.get("error")
                ]
                if failed:
                    kinds = sorted({_error_type(item["error"]) for item in failed})
                    raise RuleIndexError(f"{len(failed)} document(s) failed in {self.index}: {', '.join(kinds)}")

    # reads -----------------------------------------------------------------------------------

    def digests(self, tenant_id: str, agent_id: str) -> dict[str, str]:
        document_id(tenant_id, agent_id, "-")
        out: dict[str, str] = {}
        after: str | None = None
        while True:
            try:
                response = bounded(self.client.search, WRITE, index=self.index, body=digests_query(tenant_id, agent_id, after))
            except Exception as exc:
                if _status(exc) == 404:
                    return {}
                raise
            hits = response["hits"]["hits"]
            for hit in hits:
                out[hit["_source"]["rule_id"]] = hit["_source"].get("digest") or ""
            if len(hits) < PAGE:
                return out
            after = hits[-1]["_source"]["rule_id"]

    def search(self, scope: ScopeFilter, vector: np.ndarray, k: int) -> list[Hit]:
        document_id(scope.tenant_id, scope.agent_id, "-")
        bodies: list[dict[str, Any]] = []
        if k > 0:
            bodies += [{"index": self.index}, knn_query(scope, vector, k)]
        if scope.kind == "rule":
            bodies += [{"index": self.index}, always_included_query(scope, vector)]
        if not bodies:
            return []
        responses = bounded(self.client.msearch, SEARCH, body=bodies)["responses"]  # inside retrieve's budget
        results = [self._hits(r) for r in responses]
        hits = [Hit(rule_id, cosine_from_knn(score)) for rule_id, score in results[0]] if k > 0 else []
        if scope.kind == "rule":
            seen = {h.rule_id for h in hits}
            hits += [
                Hit(rule_id, cosine_from_script(score), ALWAYS_INCLUDED)
                for rule_id, score in results[-1]
                if rule_id not in seen
            ]
        return hits

    def _hits(self, response: dict[str, Any]) -> list[tuple[str, float]]:
        if "error" in response:
            kind = _error_type(response["error"])
            if kind == "index_not_found_exception":
                return []  # nothing indexed yet in this environment
            raise RuleIndexError(f"search failed in {self.index}: {kind}")
        return [(h["_source"]["rule_id"], float(h["_score"])) for h in response["hits"]["hits"]]


# --- the client ----------------------------------------------------------------------------------


def opensearch_client(
    endpoint_or_url: str, region: str | None = None, username: str | None = None, password: str | None = None,
    timeout_s: float = SEARCH.timeout_s,
) -> Any:
    """An `opensearchpy.OpenSearch` client.

    A bare host name (the managed domain endpoint the CDK stack passes) is signed with SigV4
    (service 'es', the function's boto3 credentials and region). A URL ('https://host:9200') is a
    self-managed cluster: basic credentials when a username is given, none otherwise.
    """
    from opensearchpy import OpenSearch, RequestsHttpConnection

    common: dict[str, Any] = {
        "connection_class": RequestsHttpConnection,
        "timeout": timeout_s,  # each request passes its own request_timeout (focal.adapters.opensearch_retry)
        "max_retries": 0,  # retries are bounded by the adapter, within a deadline
        "retry_on_timeout": False,
    }
    if "://" not in endpoint_or_url:
        from opensearchpy import AWSV4SignerAuth

        from focal.adapters import aws

        region = region or aws.region()
        credentials = aws.session(region).get_credentials() if region else None
        if credentials is None or not region:
            raise ValueError("SigV4 for the managed OpenSearch endpoint needs AWS credentials and a region")
        return OpenSearch(
            hosts=[{"host": endpoint_or_url, "port": 443}],
            http_auth=AWSV4SignerAuth(credentials, region, "es"),
            use_ssl=True,
            verify_certs=True,
            **common,
        )
    auth = (username, password or "") if username else None
    return OpenSearch(
        hosts=[endpoint_or_url],
        http_auth=auth,
        use_ssl=endpoint_or_url.startswith("https://"),
        verify_certs=endpoint_or_url.startswith("https://"),
        **common,
    )
