"""An in-memory stand-in for `opensearchpy.OpenSearch`: the calls the rule index makes, nothing more.

It INTERPRETS the request bodies rather than matching them: `term`, `terms`, `bool` (filter, must,
should with minimum_should_match, must_not), `match_all`, `knn` (vector, k, and a `filter` inside
it), `script_score` with the k-NN plugin's `knn_score` script, `size`, `_source` filtering, `sort`
with `search_after`. Scores follow OpenSearch's documented formulas for `cosinesimil`, as float32:
the k-NN query gives (1 + cos) / 2, the `knn_score` script gives 1 + cos.

Faithful where it matters for the contract: a `knn` clause takes the k nearest among the documents
its own `filter` admits (efficient filtering), while a filter placed *beside* `knn` in a `bool`
filters those k afterwards (post-filtering, which can return fewer than k). Mappings are `strict`
and vector dimensions checked; a `_bulk` into a missing index fails (as with auto-creation off);
anything the fake does not understand raises NotImplementedError instead of guessing.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from opensearchpy.exceptions import NotFoundError, RequestError


def _not_found(index: str) -> dict[str, Any]:
    return {"type": "index_not_found_exception", "reason": "no such index", "index": index}


class _Index:
    def __init__(self, body: dict[str, Any]) -> None:
        self.body = copy.deepcopy(body)
        self.properties: dict[str, Any] = body["mappings"]["properties"]
        self.strict = body["mappings"].get("dynamic") == "strict"
        self.docs: dict[str, dict[str, Any]] = {}  # _id → _source, in insertion order

    def vector_fields(self) -> dict[str, int]:
        return {name: p["dimension"] for name, p in self.properties.items() if p.get("type") == "knn_vector"}

    def space_type(self, field: str) -> str:
        prop = self.properties[field]
        return prop.get("space_type") or prop.get("method", {}).get("space_type", "l2")


class _Indices:
    def __init__(self, owner: FakeOpenSearch) -> None:
        self._owner = owner

    def exists(self, *, index: str, **params: Any) -> bool:
        self._owner.calls.append(("indices.exists", {"index": index}))
        return index in self._owner.data

    def create(self, *, index: str, body: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        self._owner.calls.append(("indices.create", {"index": index, "body": copy.deepcopy(body)}))
        if index in self._owner.data:
            raise RequestError(400, "resource_already_exists_exception", {"error": {"type": "resource_already_exists_exception"}})
        body = body or {}
        settings = body.get("settings", {}).get("index", {})
        for name, prop in body.get("mappings", {}).get("properties", {}).items():
            if prop.get("type") == "knn_vector" and not settings.get("knn"):
                raise RequestError(400, "mapper_parsing_exception", f"{name}: approximate k-NN needs index.knn: true")
        self._owner.data[index] = _Index(body)
        return {"acknowledged": True, "index": index}

    def delete(self, *, index: str, **params: Any) -> dict[str, Any]:
        self._owner.calls.append(("indices.delete", {"index": index}))
        if index not in self._owner.data:
            raise NotFoundError(404, "index_not_found_exception", {"error": _not_found(index)})
        del self._owner.data[index]
        return {"acknowledged": True}

    def refresh(self, *, index: str | None = None, **params: Any) -> dict[str, Any]:
        return {"_shards": {"failed": 0}}  # every write is visible at once here


class FakeOpenSearch:
    """Records every call in `calls` as (method, arguments) for tests that inspect requests."""

    def __init__(self) -> None:
        self.data: dict[str, _Index] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.indices = _Indices(self)

    # --- writes -----------------------------------------------------------------------------

    def bulk(self, *, body: list[dict[str, Any]], index: str | None = None, **params: Any) -> dict[str, Any]:
        self.calls.append(("bulk", {"body": copy.deepcopy(body), "index": index, **params}))
        items: list[dict[str, Any]] = []
        lines = list(body)
        i = 0
        while i < len(lines):
            (action, meta), = lines[i].items()
            name, doc_id = meta.get("_index", index), meta["_id"]
            target = self.data.get(name) if name else None
            if action == "index":
                source = lines[i + 1]
                i += 2
                if target is None:
                    items.append({action: {"_id": doc_id, "status": 404, "error": _not_found(str(name))}})
                    continue
                problem = self._invalid(target, source)
                if problem:
                    items.append({action: {"_id": doc_id, "status": 400, "error": problem}})
                    continue
                result = "updated" if doc_id in target.docs else "created"
                target.docs.pop(doc_id, None)
                target.docs[doc_id] = copy.deepcopy(source)
                items.append({action: {"_id": doc_id, "status": 200 if result == "updated" else 201, "result": result}})
            elif action == "delete":
                i += 1
                if target is None:
                    items.append({action: {"_id": doc_id, "status": 404, "error": _not_found(str(name))}})
                elif target.docs.pop(doc_id, None) is None:
                    items.append({action: {"_id": doc_id, "status": 404, "result": "not_found"}})
                else:
                    items.append({action: {"_id": doc_id, "status": 200, "result": "deleted"}})
            else:
                raise NotImplementedError(f"bulk action {action!r}")
        return {"took": 1, "errors": any("error" in next(iter(it.values())) for it in items), "items": items}

    @staticmethod
    def _invalid(target: _Index, source: dict[str, Any]) -> dict[str, Any] | None:
        for field, value in source.items():
            prop = target.properties.get(field)
            if prop is None:
                if target.strict:
                    return {"type": "strict_dynamic_mapping_exception", "reason": f"field [{field}] not allowed"}
                continue
            if prop.get("type") == "knn_vector" and (not isinstance(value, list) or len(value) != prop["dimension"]):
                return {"type": "mapper_parsing_exception", "reason": f"vector dimension must be {prop['dimension']}"}
            if prop.get("type") == "boolean" and not isinstance(value, bool):
                return {"type": "mapper_parsing_exception", "reason": f"[{field}] is not a boolean"}
            if prop.get("type") == "keyword" and value is not None and not isinstance(value, str):
                return {"type": "mapper_parsing_exception", "reason": f"[{field}] is not a string"}
        return None

    def delete_by_query(self, *, index: str, body: dict[str, Any], **params: Any) -> dict[str, Any]:
        self.calls.append(("delete_by_query", {"index": index, "body": copy.deepcopy(body), **params}))
        target = self._index(index)
        matched = [doc_id for doc_id, _ in self._evaluate(target, body.get("query", {"match_all": {}}))]
        for doc_id in matched:
            del target.docs[doc_id]
        return {"deleted": len(matched), "failures": []}

    # --- reads ------------------------------------------------------------------------------

    def search(self, *, index: str, body: dict[str, Any] | None = None, **params: Any) -> dict[str, Any]:
        self.calls.append(("search", {"index": index, "body": copy.deepcopy(body), **params}))
        return self._search(self._index(index), body or {})

    def msearch(self, *, body: list[dict[str, Any]], index: str | None = None, **params: Any) -> dict[str, Any]:
        self.calls.append(("msearch", {"body": copy.deepcopy(body), "index": index, **params}))
        if len(body) % 2:
            raise RequestError(400, "parse_exception", "msearch body must alternate header and query lines")
        responses = []
        for header, query in zip(body[::2], body[1::2], strict=True):
            name = header.get("index", index)
            if name not in self.data:
                responses.append({"error": {"root_cause": [_not_found(str(name))], **_not_found(str(name))}, "status": 404})
                continue
            responses.append({**self._search(self.data[name], query), "status": 200})
        return {"took": 1, "responses": responses}

    def _index(self, name: str) -> _Index:
        if name not in self.data:
            raise NotFoundError(404, "index_not_found_exception", {"error": _not_found(name)})
        return self.data[name]

    def _search(self, target: _Index, body: dict[str, Any]) -> dict[str, Any]:
        known = {"size", "_source", "query", "sort", "search_after", "track_total_hits"}
        if set(body) - known:
            raise NotImplementedError(f"search body keys {sorted(set(body) - known)}")
        matches = self._evaluate(target, body.get("query", {"match_all": {}}))
        size = body.get("size", 10)
        sort = body.get("sort")
        if sort:
            (field, order), = (sort[0].items() if isinstance(sort[0], dict) else [(sort[0], "asc")])
            if len(sort) != 1 or order not in ("asc", {"order": "asc"}):
                raise NotImplementedError(f"sort {sort!r}")
            ordered = sorted(matches, key=lambda m: target.docs[m[0]][field])
            if "search_after" in body:
                after = body["search_after"][0]
                ordered = [m for m in ordered if target.docs[m[0]][field] > after]
            hits = [self._hit(target, doc_id, None, body, [target.docs[doc_id][field]]) for doc_id, _ in ordered[:size]]
        else:
            ordered = sorted(matches, key=lambda m: -m[1])  # stable: ties keep insertion order
            hits = [self._hit(target, doc_id, score, body) for doc_id, score in ordered[:size]]
        scores = [h["_score"] for h in hits if h["_score"] is not None]
        return {
            "took": 1,
            "timed_out": False,
            "hits": {"total": {"value": len(matches), "relation": "eq"}, "max_score": max(scores, default=None), "hits": hits},
        }

    @staticmethod
    def _hit(target: _Index, doc_id: str, score: float | None, body: dict[str, Any], sort: list[Any] | None = None) -> dict[str, Any]:
        source = target.docs[doc_id]
        spec = body.get("_source", True)
        if spec is False:
            shown = None
        elif spec is True:
            shown = copy.deepcopy(source)
        else:
            includes = spec if isinstance(spec, list) else spec.get("includes") or list(source)
            excludes = [] if isinstance(spec, list) else spec.get("excludes", [])
            shown = {k: copy.deepcopy(v) for k, v in source.items() if k in includes and k not in excludes}
        hit: dict[str, Any] = {"_index": "", "_id": doc_id, "_score": score}
        if shown is not None:
            hit["_source"] = shown
        if sort is not None:
            hit["sort"] = sort
        return hit

    # --- the query interpreter ----------------------------------------------------------------

    def _evaluate(self, target: _Index, query: dict[str, Any]) -> list[tuple[str, float]]:
        """(doc id, score) of every matching document, in insertion order."""
        scored = self._scores(target, query)
        return [(doc_id, scored[doc_id]) for doc_id in target.docs if doc_id in scored]

    def _scores(self, target: _Index, query: dict[str, Any]) -> dict[str, float]:
        (kind, spec), = query.items()
        docs = target.docs
        if kind == "match_all":
            return dict.fromkeys(docs, 1.0)
        if kind == "term":
            (field, value), = spec.items()
            value = value["value"] if isinstance(value, dict) else value
            return {d: 1.0 for d, s in docs.items() if s.get(field) == value}
        if kind == "terms":
            (field, values), = spec.items()
            return {d: 1.0 for d, s in docs.items() if s.get(field) in values}
        if kind == "bool":
            return self._bool(target, spec)
        if kind == "knn":
            return self._knn(target, spec)
        if kind == "script_score":
            return self._script_score(target, spec)
        raise NotImplementedError(f"query {kind!r}")

    def _bool(self, target: _Index, spec: dict[str, Any]) -> dict[str, float]:
        def clauses(name: str) -> list[dict[str, Any]]:
            value = spec.get(name, [])
            return value if isinstance(value, list) else [value]

        unknown = set(spec) - {"filter", "must", "should", "must_not", "minimum_should_match"}
        if unknown:
            raise NotImplementedError(f"bool keys {sorted(unknown)}")
        candidates = set(target.docs)
        score = dict.fromkeys(target.docs, 0.0)
        for clause in clauses("filter"):
            candidates &= set(self._scores(target, clause))
        for clause in clauses("must"):
            matched = self._scores(target, clause)
            candidates &= set(matched)
            for d, s in matched.items():
                score[d] += s
        for clause in clauses("must_not"):
            candidates -= set(self._scores(target, clause))
        should = clauses("should")
        if should:
            default = 0 if (clauses("filter") or clauses("must")) else 1
            needed = int(spec.get("minimum_should_match", default))
            hits = dict.fromkeys(target.docs, 0)
            for clause in should:
                for d, s in self._scores(target, clause).items():
                    hits[d] += 1
                    score[d] += s
            candidates = {d for d in candidates if hits[d] >= needed}
        return {d: score[d] for d in candidates}

    def _vectors(self, target: _Index, field: str, query_value: list[float]) -> tuple[np.ndarray, int]:
        dims = target.vector_fields()
        if field not in dims:
            raise RequestError(400, "query_shard_exception", f"[{field}] is not a knn_vector field")
        q = np.asarray(query_value, dtype=np.float32)
        if q.shape != (dims[field],):
            raise RequestError(400, "query_shard_exception", f"query vector must have dimension {dims[field]}")
        if target.space_type(field) != "cosinesimil":
            raise NotImplementedError("the fake scores the cosinesimil space only")
        if not np.any(q):
            raise RequestError(400, "illegal_argument_exception", "zero vector is not supported for cosinesimil")
        return q, dims[field]

    @staticmethod
    def _cosine(q: np.ndarray, v: list[float]) -> float:
        vec = np.asarray(v, dtype=np.float32)
        return float(np.dot(q, vec) / (np.linalg.norm(q) * np.linalg.norm(vec)))

    def _knn(self, target: _Index, spec: dict[str, Any]) -> dict[str, float]:
        (field, params), = spec.items()
        unknown = set(params) - {"vector", "k", "filter"}
        if unknown:
            raise NotImplementedError(f"knn parameters {sorted(unknown)}")
        q, _ = self._vectors(target, field, params["vector"])
        k = int(params["k"])
        if k < 1:
            raise RequestError(400, "parsing_exception", "k must be > 0")
        allowed = set(self._scores(target, params["filter"])) if "filter" in params else set(target.docs)
        scored = [
            (d, float(np.float32((1.0 + self._cosine(q, s[field])) / 2.0)))
            for d, s in target.docs.items() if d in allowed and field in s
        ]
        scored.sort(key=lambda x: -x[1])
        return dict(scored[:k])

    def _script_score(self, target: _Index, spec: dict[str, Any]) -> dict[str, float]:
        script = spec["script"]
        if script.get("lang") != "knn" or script.get("source") != "knn_score":
            raise NotImplementedError(f"script {script.get('lang')}/{script.get('source')}")
        params = script["params"]
        if params.get("space_type") != "cosinesimil":
            raise NotImplementedError("the fake's knn_score supports cosinesimil only")
        q, _ = self._vectors(target, params["field"], params["query_value"])
        matched = self._scores(target, spec.get("query", {"match_all": {}}))
        field = params["field"]
        return {
            d: float(np.float32(1.0 + self._cosine(q, target.docs[d][field])))
            for d in matched if field in target.docs[d]
        }
