"""The OpenSearch rule index's requests, asserted exactly: index name, mapping, document ids, the
filtered k-NN query (filter inside `knn`), the always-included GLOBAL hard constraints query, the
digests query, the bulk actions, the score conversions and the client factory.

No server runs here (TOOLCHAIN.md): the recording fake in tests/fakes captures what the adapter
sends; tests/functional/test_rule_index_contract.py checks what it means.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package

from fakes.opensearch import FakeOpenSearch  # noqa: E402

from focal.adapters.opensearch_index import (  # noqa: E402
    OpenSearchRuleIndex,
    RuleIndexError,
    always_included_query,
    cosine_from_knn,
    cosine_from_script,
    digests_query,
    document_id,
    index_body,
    index_name,
    knn_query,
    opensearch_client,
    scope_filter,
)
from focal.ports import IndexedRule, ScopeFilter  # noqa: E402

VEC = np.array([0.6, 0.0, 0.8], dtype=np.float32)
VEC_JSON = [float(np.float32(0.6)), 0.0, float(np.float32(0.8))]
TENANT_AGENT = [{"term": {"tenant_id": "acme"}}, {"term": {"agent_id": "shop"}}]


# --- naming --------------------------------------------------------------------------------------


def test_one_index_per_tenant_environment():
    assert index_name("acme") == "focal-acme-rules-v1"
    assert index_name("acme-eu", prefix="focal_test") == "focal_test-acme-eu-rules-v1"


@pytest.mark.parametrize("bad", ["", "Acme", "acme/x", "a b", "-acme", "acme#1", "a*"])
def test_index_names_refuse_what_opensearch_refuses(bad):
    with pytest.raises(ValueError):
        index_name(bad)


def test_document_ids_are_deterministic_and_cannot_collide_across_tenants():
    assert document_id("abc", "shop", "r1") == document_id("abc", "shop", "r1")
    assert len(document_id("abc", "shop", "r1")) == 64
    pairs = [
        (("abc", "shop", "r1"), ("abc-def", "shop", "r1")),
        (("abc", "def#shop", "r1"), ("abc#def", "shop", "r1")),
        (("abc", "shop", "a#b"), ("abc", "shop#a", "b")),
        (("a", "b", "c"), ("b", "a", "c")),
    ]
    for one, other in pairs:
        assert document_id(*one) != document_id(*other)
    with pytest.raises(ValueError):
        document_id("", "shop", "r1")


# --- the mapping -----------------------------------------------------------------------------------


def test_mapping():
    assert index_body(384) == {
        "settings": {
            "index": {
                "knn": True,
                "knn.algo_param.ef_search": 100,
                "knn.advanced.filtered_exact_search_threshold": 2000,
                "number_of_shards": 1,
                "number_of_replicas": 0,
            }
        },
        "mappings": {
            "dynamic": "strict",
            "properties": {
                "tenant_id": {"type": "keyword"},
                "agent_id": {"type": "keyword"},
                "rule_id": {"type": "keyword"},
                "kind": {"type": "keyword"},
                "scope": {"type": "keyword"},
                "scope_id": {"type": "keyword"},
                "digest": {"type": "keyword"},
                "hard": {"type": "boolean"},
                "vector": {
                    "type": "knn_vector",
                    "dimension": 384,
                    "method": {
                        "name": "hnsw",
                        "engine": "faiss",
                        "space_type": "cosinesimil",
                        "parameters": {"m": 16, "ef_construction": 128},
                    },
                },
            },
        },
    }


def test_mapping_follows_the_embedder_dimension_engine_and_replicas():
    body = index_body(768, engine="lucene", replicas=1)
    vector = body["mappings"]["properties"]["vector"]
    assert vector["dimension"] == 768 and vector["method"]["engine"] == "lucene"
    assert body["settings"]["index"]["number_of_replicas"] == 1


# --- the queries -----------------------------------------------------------------------------------


def test_global_only_scope():
    assert scope_filter(ScopeFilter("acme", "shop")) == {"bool": {"filter": [
        *TENANT_AGENT,
        {"term": {"kind": "rule"}},
        {"bool": {"should": [{"term": {"scope": "GLOBAL"}}], "minimum_should_match": 1}},
    ]}}


def test_scenario_and_step_scope():
    scope = ScopeFilter("acme", "shop", ("refund", "shipping"), ("refund.confirm",))
    assert scope_filter(scope) == {"bool": {"filter": [
        *TENANT_AGENT,
        {"term": {"kind": "rule"}},
        {"bool": {"should": [
            {"term": {"scope": "GLOBAL"}},
            {"bool": {"filter": [{"term": {"scope": "SCENARIO"}}, {"terms": {"scope_id": ["refund", "shipping"]}}]}},
            {"bool": {"filter": [{"term": {"scope": "STEP"}}, {"terms": {"scope_id": ["refund.confirm"]}}]}},
        ], "minimum_should_match": 1}},
    ]}}


def test_scenario_examples_scope_is_the_whole_agent():
    assert scope_filter(ScopeFilter("acme", "shop", ("refund",), kind="scenario")) == {"bool": {"filter": [
        *TENANT_AGENT, {"term": {"kind": "scenario"}},
    ]}}


def test_knn_query_has_the_filter_inside_knn():
    scope = ScopeFilter("acme", "shop", ("refund",))
    assert knn_query(scope, VEC, 8) == {
        "size": 8,
        "_source": ["rule_id"],
        "query": {"knn": {"vector": {"vector": VEC_JSON, "k": 8, "filter": scope_filter(scope)}}},
    }


def test_always_included_query_scores_every_global_hard_constraint_exactly():
    assert always_included_query(ScopeFilter("acme", "shop", ("refund",)), VEC) == {
        "size": 10_000,
        "_source": ["rule_id"],
        "query": {"script_score": {
            "query": {"bool": {"filter": [
                *TENANT_AGENT,
                {"term": {"kind": "rule"}},
                {"term": {"scope": "GLOBAL"}},
                {"term": {"hard": True}},
            ]}},
            "script": {
                "lang": "knn",
                "source": "knn_score",
                "params": {"field": "vector", "query_value": VEC_JSON, "space_type": "cosinesimil"},
            },
        }},
    }


def test_digests_query_pages_by_rule_id_without_vectors():
    assert digests_query("acme", "shop") == {
        "size": 1000,
        "_source": ["rule_id", "digest"],
        "query": {"bool": {"filter": TENANT_AGENT}},
        "sort": [{"rule_id": "asc"}],
    }
    assert digests_query("acme", "shop", after="r9")["search_after"] == ["r9"]


def test_scores_convert_back_to_cosine():
    # k-NN query, cosinesimil (lucene and faiss): score = (2 - d) / 2 with d = 1 - cos.
    assert [cosine_from_knn(s) for s in (1.0, 0.75, 0.5, 0.0)] == [1.0, 0.5, 0.0, -1.0]
    # knn_score script, cosinesimil: score = 1 + cos.
    assert [cosine_from_script(s) for s in (2.0, 1.5, 1.0, 0.0)] == [1.0, 0.5, 0.0, -1.0]


# --- what the adapter sends ------------------------------------------------------------------------


@pytest.fixture
def fake():
    return FakeOpenSearch()


@pytest.fixture
def index(fake):
    return OpenSearchRuleIndex(fake, "focal-acme-rules-v1", 3)


def test_search_is_one_msearch_with_both_queries(index, fake):
    scope = ScopeFilter("acme", "shop", ("refund",), ("refund.confirm",))
    fake.calls.clear()
    assert index.search(scope, VEC, 5) == []  # no index yet: nothing, no error
    assert fake.calls == [("msearch", {"index": None, "request_timeout": 2.0, "body": [  # opensearch_retry.SEARCH
        {"index": "focal-acme-rules-v1"}, knn_query(scope, VEC, 5),
        {"index": "focal-acme-rules-v1"}, always_included_query(scope, VEC),
    ]})]


def test_scenario_search_has_no_always_included_query(index, fake):
    scope = ScopeFilter("acme", "shop", kind="scenario")
    index.search(scope, VEC, 5)
    assert fake.calls[-1][1]["body"] == [{"index": "focal-acme-rules-v1"}, knn_query(scope, VEC, 5)]


def test_upsert_creates_the_index_once_then_bulk_indexes(index, fake):
    docs = [IndexedRule("r1", "STEP", "refund.confirm", "some text", hard=True, digest="d1"),
            IndexedRule("refund#0", "SCENARIO", "refund", "an example", kind="scenario", digest="d2")]
    index.upsert("acme", "shop", docs, np.stack([VEC, VEC]))
    index.upsert("acme", "shop", docs[:1], VEC[None, :])
    names = [name for name, _ in fake.calls]
    assert names == ["indices.exists", "indices.create", "bulk", "bulk"]
    assert fake.calls[1][1]["body"] == index_body(3)
    assert fake.calls[2][1] == {"index": None, "refresh": "wait_for", "request_timeout": 10.0, "body": [
        {"index": {"_index": "focal-acme-rules-v1", "_id": document_id("acme", "shop", "r1")}},
        {"tenant_id": "acme", "agent_id": "shop", "rule_id": "r1", "kind": "rule", "scope": "STEP",
         "scope_id": "refund.confirm", "digest": "d1", "hard": True, "vector": VEC_JSON},
        {"index": {"_index": "focal-acme-rules-v1", "_id": document_id("acme", "shop", "refund#0")}},
        {"tenant_id": "acme", "agent_id": "shop", "rule_id": "refund#0", "kind": "scenario", "scope": "SCENARIO",
         "scope_id": "refund", "digest": "d2", "hard": False, "vector": VEC_JSON},
    ]}


def test_an_existing_index_is_not_created_again(fake):
    fake.indices.create(index="focal-acme-rules-v1", body=index_body(3))
    index = OpenSearchRuleIndex(fake, "focal-acme-rules-v1", 3)
    assert index.ensure_index() is False
    assert [name for name, _ in fake.calls] == ["indices.create", "indices.exists"]


def test_a_concurrent_creation_is_not_an_error(fake):
    index = OpenSearchRuleIndex(fake, "focal-acme-rules-v1", 3)
    fake.indices.exists = lambda index, **params: False  # another writer creates it between the check and ours
    fake.data["focal-acme-rules-v1"] = object()
    assert index.ensure_index() is False


def test_upsert_checks_the_dimension(index):
    with pytest.raises(ValueError, match="dimension 3"):
        index.upsert("acme", "shop", [IndexedRule("r1", "GLOBAL", None, "t")], np.zeros((1, 4), np.float32))


def test_bulk_is_chunked(index, fake, monkeypatch):
    import focal.adapters.opensearch_index as module

    monkeypatch.setattr(module, "BULK_CHUNK", 2)
    docs = [IndexedRule(f"r{i}", "GLOBAL", None, "t") for i in range(5)]
    index.upsert("acme", "shop", docs, np.stack([VEC] * 5))
    assert [len(args["body"]) for name, args in fake.calls if name == "bulk"] == [4, 4, 2]


def test_a_failed_document_raises_without_its_content(index, fake):
    index.ensure_index()
    fake.data["focal-acme-rules-v1"].properties["vector"]["dimension"] = 2  # the server disagrees
    with pytest.raises(RuleIndexError) as err:
        index.upsert("acme", "shop", [IndexedRule("r1", "GLOBAL", None, "secret text")], VEC[None, :])
    assert "mapper_parsing_exception" in str(err.value) and "secret" not in str(err.value)


def test_delete_sends_tenant_scoped_ids(index, fake):
    index.upsert("acme", "shop", [IndexedRule("r1", "GLOBAL", None, "t")], VEC[None, :])
    index.delete("acme", "shop", ["r1", "r2"])
    assert fake.calls[-1] == ("bulk", {"index": None, "refresh": "wait_for", "request_timeout": 10.0, "body": [
        {"delete": {"_index": "focal-acme-rules-v1", "_id": document_id("acme", "shop", "r1")}},
        {"delete": {"_index": "focal-acme-rules-v1", "_id": document_id("acme", "shop", "r2")}},
    ]})


def test_delete_on_a_missing_index_sends_nothing(index, fake):
    index.delete("acme", "shop", ["r1"])
    assert [name for name, _ in fake.calls] == ["indices.exists"]


def test_delete_agent_is_a_filtered_delete_by_query(index, fake):
    index.upsert("acme", "shop", [IndexedRule("r1", "GLOBAL", None, "t")], VEC[None, :])
    index.upsert("acme", "other", [IndexedRule("r1", "GLOBAL", None, "t")], VEC[None, :])
    assert index.delete_agent("acme", "shop") == 1
    assert fake.calls[-1] == ("delete_by_query", {
        "index": "focal-acme-rules-v1", "refresh": "true", "conflicts": "proceed", "request_timeout": 10.0,
        "body": {"query": {"bool": {"filter": TENANT_AGENT}}},
    })
    assert index.digests("acme", "other") == {"r1": ""}


def test_digests_sends_the_digests_query(index, fake):
    index.upsert("acme", "shop", [IndexedRule("r1", "GLOBAL", None, "t", digest="d1")], VEC[None, :])
    assert index.digests("acme", "shop") == {"r1": "d1"}
    assert fake.calls[-1] == ("search", {"index": "focal-acme-rules-v1", "body": digests_query("acme", "shop"),
                                         "request_timeout": 10.0})


def test_empty_ids_are_refused(index):
    with pytest.raises(ValueError):
        index.search(ScopeFilter("", "shop"), VEC, 3)
    with pytest.raises(ValueError):
        index.digests("acme", "")


# --- bounded requests (opensearch_retry) ------------------------------------------------------------


class _Timeout(Exception):
    """As opensearch-py's ConnectionTimeout: no HTTP status."""


def _slow_call(clock: list[float], outcome):
    timeouts: list[float] = []

    def call(**params):
        timeouts.append(params["request_timeout"])
        clock[0] += params["request_timeout"]  # every attempt waits its whole timeout
        if isinstance(outcome, Exception):
            raise outcome
        return outcome
    return call, timeouts


def test_a_hanging_search_gives_up_inside_the_retrieve_functions_timeout():
    from focal.adapters.opensearch_retry import SEARCH, bounded

    clock = [0.0]
    call, timeouts = _slow_call(clock, _Timeout("read timed out"))
    with pytest.raises(_Timeout):
        bounded(call, SEARCH, sleep=lambda s: clock.__setitem__(0, clock[0] + s), clock=lambda: clock[0], body=[])
    assert timeouts == [2.0, 2.0] and clock[0] <= SEARCH.deadline_s < 10.0  # retrieve's Lambda timeout


@pytest.mark.parametrize("status, attempts", [(503, 2), (429, 2), (400, 1), (404, 1)])
def test_only_transient_statuses_are_retried(status, attempts):
    from focal.adapters.opensearch_retry import SEARCH, bounded

    class Failure(Exception):
        status_code = status

    clock = [0.0]
    call, timeouts = _slow_call(clock, Failure())
    with pytest.raises(Failure):
        bounded(call, SEARCH, sleep=lambda s: None, clock=lambda: clock[0])
    assert len(timeouts) == attempts


def test_the_client_does_not_retry_by_itself():
    client = opensearch_client("http://localhost:9200")
    assert client.transport.max_retries == 0 and client.transport.kwargs["timeout"] == 2.0


# --- the client ------------------------------------------------------------------------------------


def test_a_managed_endpoint_is_signed_with_sigv4(monkeypatch):
    from opensearchpy import AWSV4SignerAuth

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    client = opensearch_client("search-focal-acme-x.eu-west-1.es.amazonaws.com")
    auth = client.transport.kwargs["http_auth"]
    assert isinstance(auth, AWSV4SignerAuth) and auth.service == "es" and auth.signer.region == "eu-west-1"
    assert client.transport.hosts == [{"host": "search-focal-acme-x.eu-west-1.es.amazonaws.com", "port": 443}]
    assert client.transport.kwargs["use_ssl"] is True and client.transport.kwargs["verify_certs"] is True
    assert opensearch_client("search-x.es.amazonaws.com", region="us-east-1").transport.kwargs["http_auth"].signer.region == "us-east-1"


def test_a_url_uses_basic_credentials():
    client = opensearch_client("https://search.example:9200", username="focal", password="pw")
    assert client.transport.kwargs["http_auth"] == ("focal", "pw")
    assert client.transport.hosts == [{"host": "search.example", "port": 9200, "use_ssl": True}]
    assert opensearch_client("http://localhost:9200").transport.kwargs.get("http_auth") is None


# --- the wiring ------------------------------------------------------------------------------------


def test_wiring_chooses_the_index(monkeypatch):
    from focal.adapters.lazy import LazyRuleIndex
    from focal.adapters.numpy_index import NumpyRuleIndex
    from focal.settings import Settings
    from focal.wiring import rule_index_from_settings

    for name in [n for n in os.environ if n.startswith("FOCAL_")]:
        monkeypatch.delenv(name)
    embedded = rule_index_from_settings(Settings(), 384)
    assert isinstance(embedded, LazyRuleIndex) and isinstance(embedded.resolve(), NumpyRuleIndex)  # built on first use
    monkeypatch.setenv("FOCAL_INDEX", "opensearch")
    with pytest.raises(ValueError, match="FOCAL_OPENSEARCH_URL or FOCAL_OPENSEARCH_ENDPOINT"):
        rule_index_from_settings(Settings(), 384)
    monkeypatch.setenv("FOCAL_OPENSEARCH_URL", "https://search.example:9200")
    monkeypatch.setenv("FOCAL_OPENSEARCH_USERNAME", "focal")
    monkeypatch.setenv("FOCAL_OPENSEARCH_PASSWORD", "pw")
    monkeypatch.setenv("FOCAL_TENANT", "acme")
    index = rule_index_from_settings(Settings(), 384)
    assert isinstance(index, OpenSearchRuleIndex)
    assert (index.index, index.dimension, index.engine) == ("focal-acme-rules-v1", 384, "faiss")
    assert index.client.transport.kwargs["http_auth"] == ("focal", "pw")
    assert "pw" not in repr(Settings())
