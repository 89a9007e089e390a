"""The RuleIndex port's contract, run against every adapter: the embedded numpy index and the
OpenSearch adapter on an in-memory fake client that interprets the request bodies.

`RuleIndexContract` is the shared suite; tests/functional/test_opensearch_live.py runs the same
class against a real cluster when OPENSEARCH_URL is set. Covered: add/replace by id, delete,
digests of both kinds, scope filtering (GLOBAL, SCENARIO, STEP, several scenarios, kinds), tenant
and agent isolation (tenant "abc" never sees "abc-def"), never fewer than k when the scope allows k,
GLOBAL hard constraints always returned with their real cosine, cosine-scale scores equal across
adapters, and `sync_index` re-embedding only what changed.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package

from fakes.opensearch import FakeOpenSearch  # noqa: E402

from focal.adapters.numpy_index import NumpyRuleIndex  # noqa: E402
from focal.adapters.opensearch_index import OpenSearchRuleIndex, index_name  # noqa: E402
from focal.config.loader import load_agent  # noqa: E402
from focal.models.agent import AgentConfig  # noqa: E402
from focal.ports import Hit, IndexedRule, ScopeFilter  # noqa: E402
from focal.retrieval.rules import rule_keys, rule_of, sync_index  # noqa: E402

DIM = 16
RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
TOL = 1e-5  # OpenSearch scores are float32: (1 + cos) / 2 converted back loses ~1e-7


def unit(seed: int | str, dim: int = DIM) -> np.ndarray:
    if isinstance(seed, str):
        seed = int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "little")
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def near(base: np.ndarray, noise: float, seed: int) -> np.ndarray:
    v = base + noise * unit(seed, base.shape[0])
    return (v / np.linalg.norm(v)).astype(np.float32)


def rule(rule_id: str, scope: str = "GLOBAL", scope_id: str | None = None, *, hard: bool = False,
         kind: str = "rule", digest: str | None = None) -> IndexedRule:
    return IndexedRule(rule_id, scope, scope_id, f"text of {rule_id}", kind=kind, hard=hard,
                       digest=digest if digest is not None else f"d-{rule_id}")


# The shop agent: every scope level and both kinds.
SHOP = [
    rule("g1"), rule("g2"),
    rule("h1", hard=True), rule("h2", hard=True),
    rule("s_refund", "SCENARIO", "refund"), rule("s_ship", "SCENARIO", "shipping"),
    rule("hs_refund", "SCENARIO", "refund", hard=True),
    rule("st_confirm", "STEP", "refund.confirm"), rule("st_address", "STEP", "shipping.address"),
    rule("refund#0", "SCENARIO", "refund", kind="scenario"), rule("refund#1", "SCENARIO", "refund", kind="scenario"),
    rule("shipping#0", "SCENARIO", "shipping", kind="scenario"),
]


def load(index, docs=SHOP, tenant="abc", agent="shop", salt=""):
    vectors = {d.rule_id: unit(f"{salt}{tenant}/{agent}/{d.rule_id}") for d in docs}
    index.upsert(tenant, agent, docs, np.stack([vectors[d.rule_id] for d in docs]))
    return vectors


def ids(hits: list[Hit]) -> list[str]:
    return [h.rule_id for h in hits]


def expected(vectors: dict[str, np.ndarray], allowed: list[str], query: np.ndarray, k: int,
             hard_global: tuple[str, ...] = ()) -> list[tuple[str, float, str]]:
    """The contract spelled out: the k nearest allowed, then the GLOBAL hard ones not among them."""
    scored = sorted(((r, float(vectors[r] @ query)) for r in allowed), key=lambda x: -x[1])
    top = [(r, s, "similarity") for r, s in scored[:k]]
    chosen = {r for r, _, _ in top}
    rest = [(r, s, "always included") for r, s in scored if r in hard_global and r not in chosen]
    return top + rest


def assert_hits(hits: list[Hit], want: list[tuple[str, float, str]]) -> None:
    assert [(h.rule_id, h.reason) for h in hits] == [(r, why) for r, _, why in want]
    for h, (_, score, _) in zip(hits, want, strict=True):
        assert h.score == pytest.approx(score, abs=TOL)


class CountingEmbedder:
    """Deterministic unit vectors per text; counts the texts it embedded."""

    dimension = DIM
    model_id = "counting-hash"

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts):
        self.embedded += len(texts)
        return np.stack([unit(t) for t in texts]) if texts else np.zeros((0, DIM), np.float32)


class RuleIndexContract:
    """The behaviour every RuleIndex adapter shares. Subclasses' modules provide the `index` fixture."""

    # --- add, replace, delete, digests --------------------------------------------------------

    def test_an_empty_index_finds_nothing(self, index):
        assert index.digests("abc", "shop") == {}
        assert index.search(ScopeFilter("abc", "shop"), unit(1), 5) == []
        assert index.search(ScopeFilter("abc", "shop", kind="scenario"), unit(1), 5) == []

    def test_digests_cover_both_kinds(self, index):
        load(index)
        assert index.digests("abc", "shop") == {d.rule_id: d.digest for d in SHOP}

    def test_upsert_replaces_by_id(self, index):
        load(index)
        fresh = unit("replacement")
        index.upsert("abc", "shop", [rule("g1", digest="d-new")], fresh[None, :])
        assert index.digests("abc", "shop")["g1"] == "d-new"
        assert len(index.digests("abc", "shop")) == len(SHOP)
        hits = index.search(ScopeFilter("abc", "shop"), fresh, 10)
        assert ids(hits).count("g1") == 1
        assert hits[0].rule_id == "g1" and hits[0].score == pytest.approx(1.0, abs=TOL)

    def test_a_replaced_document_may_change_scope_kind_and_hardness(self, index):
        load(index)
        index.upsert("abc", "shop", [rule("g1", "SCENARIO", "refund", hard=True)], unit("g1b")[None, :])
        assert "g1" not in ids(index.search(ScopeFilter("abc", "shop"), unit("g1b"), 10))  # no longer GLOBAL
        hits = index.search(ScopeFilter("abc", "shop", ("refund",)), unit("g1b"), 1)
        assert hits[0] == Hit("g1", pytest.approx(1.0, abs=TOL), "similarity")
        assert {h.rule_id for h in hits[1:]} == {"h1", "h2"}  # a SCENARIO hard constraint is not always included

    def test_delete_removes_documents(self, index):
        vectors = load(index)
        index.delete("abc", "shop", ["g1", "refund#0", "not-there"])
        digests = index.digests("abc", "shop")
        assert "g1" not in digests and "refund#0" not in digests and len(digests) == len(SHOP) - 2
        assert "g1" not in ids(index.search(ScopeFilter("abc", "shop"), vectors["g1"], 10))
        assert "refund#0" not in ids(index.search(ScopeFilter("abc", "shop", kind="scenario"), vectors["refund#0"], 10))

    def test_delete_on_an_unknown_agent_is_harmless(self, index):
        index.delete("abc", "nobody", ["x"])
        load(index)
        index.delete("abc", "nobody", ["g1"])
        assert "g1" in index.digests("abc", "shop")

    # --- scope ------------------------------------------------------------------------------

    def test_without_a_scenario_only_global_rules(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop"), vectors["s_refund"], 20)
        assert set(ids(hits)) == {"g1", "g2", "h1", "h2"}

    def test_a_scenario_adds_its_rules_only(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop", ("refund",)), vectors["s_ship"], 20)
        assert set(ids(hits)) == {"g1", "g2", "h1", "h2", "s_refund", "hs_refund"}

    def test_a_step_adds_its_rules_only(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop", ("refund",), ("refund.confirm",)), vectors["st_address"], 20)
        assert set(ids(hits)) == {"g1", "g2", "h1", "h2", "s_refund", "hs_refund", "st_confirm"}

    def test_a_step_does_not_bring_its_scenario(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop", (), ("shipping.address",)), vectors["s_ship"], 20)
        assert set(ids(hits)) == {"g1", "g2", "h1", "h2", "st_address"}

    def test_several_scenarios(self, index):
        vectors = load(index)
        scope = ScopeFilter("abc", "shop", ("refund", "shipping"), ("refund.confirm", "shipping.address"))
        hits = index.search(scope, vectors["g1"], 20)
        assert set(ids(hits)) == {d.rule_id for d in SHOP if d.kind == "rule"}

    def test_scenario_examples_are_their_own_kind(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop", kind="scenario"), vectors["refund#1"], 20)
        assert set(ids(hits)) == {"refund#0", "refund#1", "shipping#0"}  # every scenario, whatever the scope
        assert all(h.reason == "similarity" for h in hits)
        assert hits[0].rule_id == "refund#1" and hits[0].score == pytest.approx(1.0, abs=TOL)
        rules = index.search(ScopeFilter("abc", "shop", ("refund", "shipping")), vectors["refund#1"], 20)
        assert not {"refund#0", "refund#1", "shipping#0"} & set(ids(rules))

    def test_ranking_and_scores_are_cosine(self, index):
        vectors = load(index)
        query = unit("a customer message")
        scope = ScopeFilter("abc", "shop", ("refund",), ("refund.confirm",))
        allowed = ["g1", "g2", "h1", "h2", "s_refund", "hs_refund", "st_confirm"]
        assert_hits(index.search(scope, query, 3), expected(vectors, allowed, query, 3, ("h1", "h2")))
        assert_hits(index.search(scope, query, 20), expected(vectors, allowed, query, 20, ("h1", "h2")))

    def test_never_fewer_than_k_when_the_scope_allows_k(self, index):
        query = unit("refund please")
        # 30 out-of-scope rules (another scenario, another agent, another tenant) sit right on the query;
        # the 5 rules in scope are far from it. A post-filter over the global top k would find none.
        crowd = [rule(f"other{i}", "SCENARIO", "shipping") for i in range(30)]
        index.upsert("abc", "shop", crowd, np.stack([near(query, 0.05, i) for i in range(30)]))
        index.upsert("abc", "other", [rule(f"x{i}") for i in range(30)], np.stack([near(query, 0.05, 100 + i) for i in range(30)]))
        index.upsert("abc-def", "shop", [rule(f"y{i}") for i in range(30)], np.stack([near(query, 0.05, 200 + i) for i in range(30)]))
        mine = [rule(f"mine{i}", "SCENARIO", "refund") for i in range(5)]
        index.upsert("abc", "shop", mine, np.stack([near(-query, 0.5, 300 + i) for i in range(5)]))
        hits = index.search(ScopeFilter("abc", "shop", ("refund",)), query, 4)
        assert len(hits) == 4 and set(ids(hits)) <= {f"mine{i}" for i in range(5)}
        assert len(index.search(ScopeFilter("abc", "shop", ("refund",)), query, 10)) == 5  # all there are

    # --- always-included GLOBAL hard constraints --------------------------------------------

    def test_global_hard_constraints_always_come_back_with_their_cosine(self, index):
        vectors = load(index)
        query = near(vectors["g2"], 0.01, 7)
        hits = index.search(ScopeFilter("abc", "shop", ("refund",)), query, 1)
        assert hits[0] == Hit("g2", pytest.approx(float(vectors["g2"] @ query), abs=TOL), "similarity")
        always = hits[1:]
        assert {h.rule_id for h in always} == {"h1", "h2"}  # not hs_refund: only GLOBAL ones
        assert all(h.reason == "always included" for h in always)
        for h in always:
            assert h.score == pytest.approx(float(vectors[h.rule_id] @ query), abs=TOL)
        assert [h.score for h in always] == sorted((h.score for h in always), reverse=True)

    def test_a_hard_constraint_in_the_top_k_appears_once(self, index):
        vectors = load(index)
        hits = index.search(ScopeFilter("abc", "shop"), vectors["h1"], 2)
        assert ids(hits).count("h1") == 1 and hits[0] == Hit("h1", pytest.approx(1.0, abs=TOL), "similarity")
        assert [h.reason for h in hits if h.rule_id == "h2"] in (["similarity"], ["always included"])

    def test_hard_constraints_of_others_are_not_included(self, index):
        load(index)
        load(index, [rule("foreign_hard", hard=True)], tenant="abc-def")
        load(index, [rule("sibling_hard", hard=True)], agent="shop2")
        hits = index.search(ScopeFilter("abc", "shop"), unit(5), 1)
        assert {h.rule_id for h in hits if h.reason == "always included"} <= {"h1", "h2"}
        assert not {"foreign_hard", "sibling_hard"} & set(ids(hits))

    # --- isolation --------------------------------------------------------------------------

    @pytest.mark.parametrize(("one", "other"), [
        (("abc", "shop"), ("abc-def", "shop")),
        (("abc", "shop"), ("abc", "shop-2")),
        (("abc", "def#shop"), ("abc#def", "shop")),  # a naive 'tenant#agent' key would collide here
    ])
    def test_tenants_and_agents_are_isolated(self, index, one, other):
        mine = load(index, tenant=one[0], agent=one[1])
        theirs = load(index, tenant=other[0], agent=other[1], salt="x")
        for (tenant, agent), vectors in ((one, mine), (other, theirs)):
            assert index.digests(tenant, agent) == {d.rule_id: d.digest for d in SHOP}
            hits = index.search(ScopeFilter(tenant, agent, ("refund",)), vectors["g1"], 3)
            assert hits[0] == Hit("g1", pytest.approx(1.0, abs=TOL), "similarity")
        index.delete(one[0], one[1], ["g1"])
        index.upsert(one[0], one[1], [rule("g2", digest="changed")], unit("g2 changed")[None, :])
        assert "g1" in index.digests(*other) and index.digests(*other)["g2"] == "d-g2"
        assert index.search(ScopeFilter(*other), theirs["g2"], 1)[0].score == pytest.approx(1.0, abs=TOL)

    # --- syncing an agent config --------------------------------------------------------------

    def test_sync_index_reembeds_only_what_changed(self, index):
        agent: AgentConfig = load_agent(RETAIL)
        embedder = CountingEmbedder()
        first = sync_index(index, embedder, "abc", agent)
        total = first.embedded
        assert total == embedder.embedded > 0 and first.unchanged == 0 and first.deleted == 0
        assert len(index.digests("abc", agent.id)) == total

        again = sync_index(index, embedder, "abc", agent)
        assert (again.embedded, again.unchanged, again.deleted) == (0, total, 0) and embedder.embedded == total

        changed = agent.model_copy(deep=True)
        target = next(r for r in changed.rules if r.scope.value == "GLOBAL" and not r.is_hard_constraint)
        target.condition_text = "A brand new condition about gift wrapping"
        disabled = next(r for r in changed.rules if r.id != target.id and r.enabled)
        disabled.enabled = False
        report = sync_index(index, embedder, "abc", changed)
        # the changed condition is re-embedded alone and with its action; every key of the disabled rule (its
        # condition, alone and with its action, and its examples) leaves the index
        assert (report.embedded, report.deleted) == (2, len(rule_keys(disabled))) and embedder.embedded == total + 2
        assert not any(rule_of(i) == disabled.id for i in index.digests("abc", agent.id))
        hits = index.search(ScopeFilter("abc", agent.id), unit(target.condition_text), 1)
        assert hits[0].rule_id == target.id and hits[0].score == pytest.approx(1.0, abs=TOL)

        other_tenant = sync_index(index, embedder, "abc-def", agent)  # same agent, another tenant: its own copy
        assert other_tenant.embedded == total and disabled.id in index.digests("abc-def", agent.id)


# --- the adapters under test -----------------------------------------------------------------------


def opensearch_on_fake() -> OpenSearchRuleIndex:
    return OpenSearchRuleIndex(FakeOpenSearch(), index_name("test"), DIM)


@pytest.fixture(params=["numpy", "opensearch"])
def index(request):
    return NumpyRuleIndex() if request.param == "numpy" else opensearch_on_fake()


class TestRuleIndexContract(RuleIndexContract):
    pass


# --- both adapters agree ---------------------------------------------------------------------------


def test_both_adapters_return_the_same_hits_and_scores():
    numpy_index, os_index = NumpyRuleIndex(), opensearch_on_fake()
    rng = np.random.default_rng(42)
    scopes_ = [("GLOBAL", None), ("SCENARIO", "refund"), ("SCENARIO", "shipping"),
               ("STEP", "refund.confirm"), ("STEP", "shipping.address")]
    docs = [rule(f"r{i}", *scopes_[int(rng.integers(len(scopes_)))], hard=bool(rng.random() < 0.4)) for i in range(60)]
    docs += [rule(f"refund#{i}", "SCENARIO", "refund", kind="scenario") for i in range(5)]
    vectors = np.stack([unit(7000 + i) for i in range(len(docs))])
    for idx in (numpy_index, os_index):
        idx.upsert("abc", "shop", docs, vectors)
    scopes = [
        ScopeFilter("abc", "shop"),
        ScopeFilter("abc", "shop", ("refund",), ("refund.confirm",)),
        ScopeFilter("abc", "shop", ("refund", "shipping"), ("shipping.address",)),
        ScopeFilter("abc", "shop", kind="scenario"),
    ]
    for trial in range(25):
        query = unit(9000 + trial)
        for scope in scopes:
            for k in (1, 5, 8):
                a, b = numpy_index.search(scope, query, k), os_index.search(scope, query, k)
                assert [(h.rule_id, h.reason) for h in a] == [(h.rule_id, h.reason) for h in b]
                assert np.allclose([h.score for h in a], [h.score for h in b], atol=TOL)


def test_the_fake_would_catch_a_post_filter():
    """The fake is faithful: a filter BESIDE knn (post-filter) loses hits that a filter inside keeps."""
    from focal.adapters.opensearch_index import knn_query, scope_filter

    index = opensearch_on_fake()
    query = unit("q")
    index.upsert("abc", "shop", [rule(f"near{i}", "SCENARIO", "shipping") for i in range(10)],
                 np.stack([near(query, 0.05, i) for i in range(10)]))
    index.upsert("abc", "shop", [rule(f"far{i}") for i in range(3)], np.stack([near(-query, 0.5, 50 + i) for i in range(3)]))
    scope = ScopeFilter("abc", "shop")
    inside = index.client.search(index=index.index, body=knn_query(scope, query, 3))
    assert len(inside["hits"]["hits"]) == 3
    post = knn_query(scope, query, 3)
    knn = post["query"]["knn"]["vector"]
    post["query"] = {"bool": {"must": [{"knn": {"vector": {"vector": knn["vector"], "k": 3}}}], "filter": [scope_filter(scope)]}}
    assert index.client.search(index=index.index, body=post)["hits"]["hits"] == []
