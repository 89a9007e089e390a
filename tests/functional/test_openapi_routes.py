"""Every route the `focal serve` app has is in the OpenAPI document it serves (GET /openapi.json, read from a real
server): the turn API's and the local ones — the playground's page, files and reads, and the document itself —
these tagged `local`, the key-less ones with `security: []`; a playground read answers what its route declares."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import jsonschema
import pytest

from focal.cli.serve import LocalApiKeyStore, ServeSettings, build_api, make_app, serving

AGENT = Path(__file__).resolve().parents[2] / "examples" / "tutorial" / "agent.yaml"
KEY = "k-admin"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    api = build_api([str(AGENT)], str(tmp_path_factory.mktemp("openapi") / "focal.db"), None, LocalApiKeyStore({KEY: "acme"}))
    routes = {(route.path, method) for route in make_app(api).routes for method in route.methods if method != "HEAD"}
    with serving(api, settings=ServeSettings(rate_per_key=0)) as url:
        yield url, routes


def _get(url: str, key: str | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url)
    if key:
        request.add_header("x-api-key", key)
    with urllib.request.urlopen(request, timeout=60) as response:
        return response.status, response.read()


def test_every_route_of_the_app_is_in_the_served_document(served):
    url, routes = served
    status, raw = _get(url + "/openapi.json")  # no key: the document is public
    doc = json.loads(raw)
    documented = {(path, method.upper()) for path, operations in doc["paths"].items() for method in operations}
    assert status == 200 and documented == routes
    local = {(path, method) for path, operations in doc["paths"].items() for method, op in operations.items()
             if "local" in op.get("tags", [])}
    assert {("/", "get"), ("/playground/static/{name}", "get"), ("/openapi.json", "get"),
            ("/playground/api/agents/{agent_id}/sessions/{session_id}/turns", "get")} <= local
    assert not any(path.startswith("/v1/") for path, _ in local)  # the API Gateway routes are not local


def test_the_keyless_routes_say_so_and_answer_without_a_key(served):
    url, _ = served
    doc = json.loads(_get(url + "/openapi.json")[1])
    for path, operations in doc["paths"].items():
        for op in operations.values():
            if op.get("security") == []:
                concrete = path.replace("{name}", op["parameters"][0]["schema"]["enum"][0]) if op.get("parameters") else path
                assert _get(url + concrete)[0] == 200, path


def test_a_playground_read_answers_the_schema_its_route_declares(served):
    url, _ = served
    doc = json.loads(_get(url + "/openapi.json")[1])
    answer = doc["paths"]["/playground/api/agents"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    schema = {**answer, "components": doc["components"]}
    body = json.loads(_get(url + "/playground/api/agents", KEY)[1])
    jsonschema.validate(body, schema)
    assert [agent["id"] for agent in body["items"]] == ["library"]
