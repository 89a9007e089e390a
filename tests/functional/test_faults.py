"""Faults, each with a test: the turn keeps answering, is recorded, and the trace says why.

- model timeout, provider 5xx and invalid/empty answers for generate and judge (the sensor's are in
  tests/functional/test_sensor_paths.py): a fake `LanguageModel` at the port;
- OpenSearch unreachable: the OpenSearch adapter on the fake client of tests/fakes made to fail;
  retrieval is marked degraded and GLOBAL hard constraints are still enforced from the config;
- DynamoDB throttling: the real DynamoDB adapters on moto, with `ProvisionedThroughputExceededException`
  injected at botocore's send (before moto answers), so botocore's own retry handler sees it;
- a stage Lambda failing (Catch → structured answer, turn recorded): tests/e2e/test_e2e_conversation.py
  (test_a_failing_stage_is_caught_and_the_turn_recorded) and, for the state machine's retry and
  catch, tests/e2e/test_e2e_harness_control_flow.py;
- the API's structured error bodies: tests/infra/test_infra_stack.py
  (test_api_answers_structured_bodies_never_a_bare_5xx).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from store_fixtures import TABLES, mocked_dynamodb
from store_fixtures import dynamo_deps as store_dynamo_deps

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the `fakes` package
from example_tools import reset_state
from fakes.opensearch import FakeOpenSearch  # noqa: E402

from focal.errors import ModelError  # noqa: E402
from focal.models.turn import TurnRequest  # noqa: E402
from focal.pipeline.runner import LocalRunner  # noqa: E402
from focal.ports import ModelReply  # noqa: E402
from focal.wiring import local_deps  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RETAIL = ROOT / "examples" / "retail" / "agent.yaml"
GUARDRAILS = ROOT / "examples" / "guardrails" / "agent.yaml"

TIMEOUT = ModelError("Timeout: the model provider did not answer within 30s")
PROVIDER_5XX = ModelError("APIError: 503 Service Unavailable")


class FakeModel:
    """A model for the given purposes only, answering from a script (text, or an exception to raise)."""
    spends_no_time = True  # scripted: read the same on a loaded machine (focal.turn.budget)

    def __init__(self, purposes: set[str], script: list[str | Exception]):
        self.purposes = purposes
        self.script = list(script)
        self.calls: list[str] = []

    def available(self, purpose: str) -> bool:
        return purpose in self.purposes

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.calls.append(purpose)
        item = self.script.pop(0) if self.script else PROVIDER_5XX
        if isinstance(item, Exception):
            raise item
        return ModelReply(text=item, model="fake/model", input_tokens=10, output_tokens=5)


def _reset_tools(deps) -> None:
    reset_state(deps.configs.get_agent("t1", "retail"), "t1")


def turn(runner: LocalRunner, agent_id: str, message: str, n: int = 0, session: str = "s1", customer: str = "anonymous"):
    result = runner.turn(TurnRequest(tenant_id="t1", agent_id=agent_id, session_id=session, customer_id=customer,
                                     turn_id=f"{session}-{n}", message=message))
    records = runner.deps.turns.list_for_session("t1", agent_id, session)
    return result, records


# --- generate and judge ---------------------------------------------------------------------------


@pytest.mark.parametrize("failure, note", [
    (TIMEOUT, "Timeout"),
    (PROVIDER_5XX, "503"),
    ("   ", "empty answer"),  # the generation call's junk: an answer with no text
])
def test_a_failing_generation_model_falls_back_to_the_offline_composer(tmp_path, failure, note):
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    deps.model = FakeModel({"generate"}, [failure])
    result, records = turn(LocalRunner(deps), "retail", "how long does shipping take?")

    assert result.success and result.error is None and result.execution_path == "respond"
    assert "3-5 business days" in result.response  # the offline composer answered from the rule
    assert len(records) == 1 and records[0].result.response == result.response
    state = records[0].state
    call = state["model_calls"][0]
    assert call["purpose"] == "generate" and call["ok"] is False and note in call["note"]
    assert any(n.startswith("generation model gave no usable answer") for n in state["route"]["decision"]["notes"])
    assert state["generate"]["drafts"][0]["source"] == "offline"


@pytest.mark.parametrize("failure, note", [
    (TIMEOUT, "Timeout"),
    (PROVIDER_5XX, "503"),
    ("this is not JSON", "invalid answer"),
    ('{"verdicts": "all fine"}', "invalid answer"),  # JSON, but not the verdicts schema
])
def test_a_failing_judge_marks_the_subjective_rule_unverified_and_the_turn_answers(tmp_path, failure, note):
    """guardrails: `acknowledge_frustration` is a GLOBAL subjective hard constraint, judged on every
    draft; the agent opts explicitly into `unverifiable_subjective: mark_unverified`."""
    deps = local_deps(GUARDRAILS, tmp_path / "focal.db")
    model = FakeModel({"judge"}, [failure])
    deps.model = model
    result, records = turn(LocalRunner(deps), "guardrails", "do you offer any discounts?")

    assert result.success and result.error is None and model.calls == ["judge"]
    assert result.enforcement["unverified"] == ["acknowledge_frustration"]
    assert result.enforcement["violations"] == [] and result.response
    assert len(records) == 1 and records[0].result.response == result.response
    call = records[0].state["model_calls"][0]
    assert call["purpose"] == "judge" and call["ok"] is False and note in call["note"]


@pytest.mark.parametrize("failure", [TIMEOUT, PROVIDER_5XX, "this is not JSON"])
def test_a_failing_judge_fails_closed_by_default(tmp_path, failure):
    """The same agent without the opt-in (the shipped default, fail_closed): the draft cannot be verified, so the
    rule's own fallback text answers — the agent's words, said as written (never judged, never replaced)."""
    agent = tmp_path / "agent.yaml"
    text = GUARDRAILS.read_text(encoding="utf-8")
    assert "  unverifiable_subjective: mark_unverified\n" in text
    agent.write_text(text.replace("  unverifiable_subjective: mark_unverified\n", ""), encoding="utf-8")
    deps = local_deps(agent, tmp_path / "focal.db")
    model = FakeModel({"judge"}, [failure])
    deps.model = model
    result, records = turn(LocalRunner(deps), "guardrails", "do you offer any discounts?")

    assert result.success and result.error is None and model.calls == ["judge"]
    violations = result.enforcement["violations"]
    assert violations and {v["rule_id"] for v in violations} == {"acknowledge_frustration"}
    assert all(v["lane"] == "judge" and "cannot verify" in v["reason"] for v in violations)
    assert result.enforcement["fallback_used"] is True and result.enforcement["regenerations"] == 1
    assert result.response == "I'm sorry this has been frustrating. A member of our team will follow up with you today."
    assert len(records) == 1 and records[0].result.response == result.response
    assert [c["ok"] for c in records[0].state["model_calls"]] == [False]


# --- OpenSearch unreachable -----------------------------------------------------------------------


class UnreachableOpenSearch(FakeOpenSearch):
    """The fake cluster, but every search fails as a dead endpoint does (opensearch-py's ConnectionError)."""

    def msearch(self, **params: Any) -> dict[str, Any]:
        from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

        self.calls.append(("msearch", params))
        raise OpenSearchConnectionError("N/A", "connection refused", Exception("connection refused"))

    def search(self, **params: Any) -> dict[str, Any]:
        from opensearchpy.exceptions import ConnectionError as OpenSearchConnectionError

        self.calls.append(("search", params))
        raise OpenSearchConnectionError("N/A", "connection refused", Exception("connection refused"))


class RefusingOpenSearch(FakeOpenSearch):
    """Reachable, but every search in the batch is refused (the adapter raises RuleIndexError)."""

    def msearch(self, *, body, index=None, **params: Any) -> dict[str, Any]:
        self.calls.append(("msearch", {"body": body}))
        error = {"root_cause": [{"type": "search_phase_execution_exception"}], "type": "search_phase_execution_exception"}
        return {"responses": [{"error": error, "status": 503} for _ in body[::2]]}


@pytest.mark.parametrize("client_class, error_name", [
    (UnreachableOpenSearch, "ConnectionError"),
    (RefusingOpenSearch, "RuleIndexError"),
])
def test_opensearch_down_degrades_retrieval_and_global_hard_constraints_still_hold(tmp_path, client_class, error_name):
    from focal.adapters.opensearch_index import OpenSearchRuleIndex, index_name

    deps = local_deps(RETAIL, tmp_path / "focal.db")
    _reset_tools(deps)
    client = client_class()
    deps.rule_index = OpenSearchRuleIndex(client, index_name("t1"), deps.embedder.dimension)
    deps.sync_on_turn = False  # as in AWS: publishing indexes, the turn only reads
    # The offline draft offers the $75 refund of order A1002: refund_cap (GLOBAL, hard) must block it.
    result, records = turn(LocalRunner(deps), "retail", "I want a refund for order A1002", customer="c-100")  # A1002 is c-100's

    # the index was asked and failed: a dead endpoint once more after a short backoff, a refusal not again
    assert [name for name, _ in client.calls] == ["msearch"] * (2 if client_class is UnreachableOpenSearch else 1)
    if client_class is UnreachableOpenSearch:
        assert [params["request_timeout"] for _, params in client.calls] == [2.0, 2.0]  # inside retrieve's 10 s
    assert result.success and result.error is None
    assert result.degraded == ["retrieval"]
    assert "refund_cap" in [v["rule_id"] for v in result.enforcement["violations"]]
    assert "refund_cap" in result.enforcement["checked"]
    assert "$75" not in result.response and "review" in result.response
    assert not [t for t in result.tool_calls if t["tool_id"] == "issue_refund"]
    assert len(records) == 1
    state = records[0].state
    assert state["retrieve"]["candidates"] == [] and state["degraded"] == ["retrieval"]
    note = next(n for n in state["sensor"]["context"]["notes"] if n.startswith("retrieve: retrieval degraded"))
    assert error_name in note


def test_a_healthy_index_does_not_mark_the_turn_degraded(tmp_path):
    deps = local_deps(RETAIL, tmp_path / "focal.db")
    result, records = turn(LocalRunner(deps), "retail", "how long does shipping take?")
    assert result.degraded == [] and records[0].state["degraded"] == []
    assert "shipping_times" in result.matched_rules


# --- DynamoDB throttling --------------------------------------------------------------------------


class Throttle:
    """Answers chosen DynamoDB calls with ProvisionedThroughputExceededException in place of moto
    (whose `before-send` responder is wrapped by the `dynamo` fixture), so the client's own retry
    handler sees a real throttling response and moto never applies the throttled write.
    `remaining` None: every matching call, for ever."""

    def __init__(self, operation: str, table: str | None = None, remaining: int | None = 1):
        self.operation, self.table, self.remaining = operation, table, remaining
        self.injected = 0
        self.sent = 0  # matching requests that reached moto

    def install(self, client: Any = None) -> Throttle:
        ACTIVE.append(self)
        return self

    def __call__(self, event_name: str, request: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        if not event_name.endswith(f".dynamodb.{self.operation}"):
            return None
        body = json.loads(request.body or b"{}")
        if self.table is not None and body.get("TableName") != self.table:
            return None
        if self.remaining is not None and self.remaining <= 0:
            self.sent += 1
            return None
        if self.remaining is not None:
            self.remaining -= 1
        self.injected += 1
        payload = json.dumps({"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                              "message": "The level of configured provisioned throughput for the table was exceeded."})
        return AWSResponse(request.url, 400, {"x-amzn-requestid": "throttled"}, _Raw(payload.encode()))


ACTIVE: list[Throttle] = []


class _Raw:
    def __init__(self, data: bytes):
        self.data = data

    def stream(self, **kwargs: Any):
        yield self.data


@pytest.fixture
def dynamo(monkeypatch):
    """moto tables and one client made the way the adapters make theirs; retry sleeps recorded, not slept."""
    from moto.core.botocore_stubber import BotocoreStubber

    from focal.adapters.dynamodb_store import dynamodb_client

    delays: list[float] = []
    monkeypatch.setattr("botocore.endpoint.time.sleep", delays.append)
    moto_call = BotocoreStubber.__call__

    def throttled(self, event_name, request, **kwargs):
        for throttle in ACTIVE:
            if (response := throttle(event_name, request)) is not None:
                return response
        return moto_call(self, event_name, request, **kwargs)

    monkeypatch.setattr(BotocoreStubber, "__call__", throttled)
    ACTIVE.clear()
    with mocked_dynamodb(monkeypatch):
        yield dynamodb_client(region_name="us-east-1"), delays
    ACTIVE.clear()


def test_the_adapters_clients_use_botocore_standard_retries():
    from focal.adapters.dynamodb_store import DYNAMODB_CLIENT_CONFIG, DYNAMODB_MAX_ATTEMPTS

    assert DYNAMODB_CLIENT_CONFIG.retries == {"mode": "standard", "total_max_attempts": DYNAMODB_MAX_ATTEMPTS}
    assert 3 <= DYNAMODB_MAX_ATTEMPTS <= 10


def test_one_throttled_call_succeeds_on_the_retry(dynamo):
    from focal.adapters.dynamodb_store import DynamoSessionStore
    from store_fixtures import make_session

    client, delays = dynamo
    store = DynamoSessionStore(TABLES["sessions"], client)
    throttle = Throttle("PutItem")
    throttle.install(client)
    store.save(make_session(), expected_version=0)  # throttled once, then stored
    assert throttle.injected == 1 and throttle.sent == 1
    assert len(delays) == 1 and 0 <= delays[0] <= 1.0  # one backoff, full jitter: random in [0, base)
    assert store.get("acme", "support", "s1").version == 1

    reads = Throttle("GetItem", remaining=2)
    reads.install(client)
    assert store.get("acme", "support", "s1") is not None
    assert reads.injected == 2 and len(delays) == 3


def test_throttling_that_outlasts_the_retries_raises_to_the_stage(dynamo):
    from botocore.exceptions import ClientError

    from focal.adapters.dynamodb_store import DYNAMODB_MAX_ATTEMPTS, DynamoTurnStore
    from store_fixtures import make_record

    client, delays = dynamo
    throttle = Throttle("PutItem", remaining=None)
    throttle.install(client)
    with pytest.raises(ClientError) as caught:
        DynamoTurnStore(TABLES["turns"], client).put(make_record("t1", 1))
    assert caught.value.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert throttle.injected == DYNAMODB_MAX_ATTEMPTS and len(delays) == DYNAMODB_MAX_ATTEMPTS - 1
    assert len(set(delays)) > 1  # jittered, not a fixed schedule


def dynamo_deps(client: Any, tmp_path: Path):
    deps = store_dynamo_deps(RETAIL, tmp_path, client)
    _reset_tools(deps)
    return deps


def test_a_throttled_session_write_is_retried_and_the_turn_completes(dynamo, tmp_path):
    client, delays = dynamo
    runner = LocalRunner(dynamo_deps(client, tmp_path))
    throttle = Throttle("PutItem", table=TABLES["sessions"], remaining=2)
    throttle.install(client)
    result, records = turn(runner, "retail", "how long does shipping take?")
    assert result.success and throttle.injected == 2 and len(delays) == 2
    assert len(records) == 1 and runner.deps.sessions.get("t1", "retail", "s1").turn_count == 1


def test_persistent_throttling_of_the_sessions_table_answers_with_the_fallback_and_records_the_turn(dynamo, tmp_path):
    client, _ = dynamo
    runner = LocalRunner(dynamo_deps(client, tmp_path))
    turn(runner, "retail", "how long does shipping take?", 0)
    throttle = Throttle("PutItem", table=TABLES["sessions"], remaining=None)
    throttle.install(client)
    result, records = turn(runner, "retail", "how long does shipping take?", 1)

    assert runner.visited[-2:] == ["persist", "fallback"]
    assert result.success is False and result.execution_path == "fallback"
    assert result.error["code"] == "stage_failed:ProvisionedThroughputExceededException" and result.error["stage"] == "persist"
    assert result.response  # the agent's fallback message, a structured answer
    assert sorted(r.turn_id for r in records) == ["s1-0", "s1-1"]  # the turns table was not throttled: recorded
    assert next(r for r in records if r.turn_id == "s1-1").result.error == result.error


def test_persistent_throttling_of_every_table_still_answers(dynamo, tmp_path):
    client, _ = dynamo
    runner = LocalRunner(dynamo_deps(client, tmp_path))
    for operation in ("GetItem", "PutItem", "Query", "UpdateItem"):
        Throttle(operation, remaining=None).install(client)
    result = runner.turn(TurnRequest(tenant_id="t1", agent_id="retail", session_id="s1", turn_id="x",
                                     message="how long does shipping take?"))
    assert runner.visited == ["sensor", "fallback"]
    assert result.success is False and result.execution_path == "fallback"
    assert result.error["code"] == "stage_failed:ProvisionedThroughputExceededException" and result.response
