"""A value filled into an `http` tool's URL path fills exactly one segment: it can never climb to
another path of the service ('..', in any spelling a server may decode to it), empty a segment, or
end the path early ('/', '?', '#' are encoded). A refused value is a ToolInputInvalid naming the
argument (never the value), before any request: a real server on 127.0.0.1 receives nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from recording_http_server import RecordingServer

from focal.adapters.http_tools import HttpToolRunner
from focal.adapters.secrets import EnvSecretSource
from focal.adapters.tool_runner import KindToolRunner
from focal.errors import ToolInputInvalid
from focal.models.agent import AgentConfig, Tool
from focal.tool_templates import UnsafePathValue, fill_url

AGENT = AgentConfig(id="a", name="a")
CLIMBING = [".", "..", "%2e%2e", "%2E.", ".%2e", "%252e%252e", "．．", "‥", "../status", "..%2fstatus",
            "a/../b", "..\\admin", "%2e%2e%2fadmin", "%25252e%25252e"]


@pytest.fixture
def service() -> Iterator[RecordingServer]:
    server = RecordingServer({"status": "shipped"})
    yield server
    server.close()


def runner() -> KindToolRunner:
    return KindToolRunner(EnvSecretSource({}), http=HttpToolRunner(EnvSecretSource({})))


def tool(url: str, **inputs: Any) -> Tool:
    return Tool.model_validate({"id": "lookup", "kind": "http", "url": url,
                                "input": {"order_id": {"type": "id"}, **inputs}, "output": {"status": "order_status"}})


@pytest.mark.parametrize("value", CLIMBING)
def test_a_value_that_reads_as_a_dot_segment_is_refused_before_any_request(service, value):
    with pytest.raises(ToolInputInvalid) as caught:
        runner().run(AGENT, tool(service.base + "/orders/{order_id}/status"), {"order_id": value})
    # the argument and why, never the value
    assert str(caught.value) == "tool 'lookup': argument 'order_id' would be read as a '.' or '..' path segment"
    assert caught.value.argument == "order_id"
    assert service.paths == []


def test_values_that_together_make_a_dot_segment_are_refused(service):
    url = service.base + "/orders/{order_id}{suffix}/status"
    with pytest.raises(ToolInputInvalid, match="'order_id' would be read as a '.' or '..' path segment"):
        runner().run(AGENT, tool(url, suffix={"type": "string"}), {"order_id": ".", "suffix": "."})
    with pytest.raises(UnsafePathValue, match="suffix"):
        fill_url("https://api.example.com/orders/.{suffix}", {"suffix": "."})
    assert service.paths == []


def test_a_value_that_empties_a_segment_is_refused():
    with pytest.raises(UnsafePathValue) as caught:
        fill_url("https://api.example.com/orders/{order_id}/status", {"order_id": ""})
    assert caught.value.name == "order_id" and caught.value.why == "would leave an empty path segment"


@pytest.mark.parametrize(("value", "sent"), [
    ("a/b", "/orders/a%2Fb/status"),
    ("x?y=1", "/orders/x%3Fy%3D1/status"),
    ("x#frag", "/orders/x%23frag/status"),
    ("100%", "/orders/100%25/status"),
    ("...", "/orders/.../status"),
    ("v1.2", "/orders/v1.2/status"),
    (".hidden", "/orders/.hidden/status"),
])
def test_other_values_stay_inside_their_segment(service, value, sent):
    assert runner().run(AGENT, tool(service.base + "/orders/{order_id}/status"), {"order_id": value}) == {"status": "shipped"}
    assert service.paths == [sent]


def test_a_dot_value_in_the_query_is_data_not_a_path(service):
    url = service.base + "/orders?id={order_id}"
    assert runner().run(AGENT, tool(url), {"order_id": ".."}) == {"status": "shipped"}
    assert service.paths == ["/orders?id=.."]


def test_a_placeholder_in_the_host_is_refused():
    with pytest.raises(UnsafePathValue, match="host, which must be fixed"):
        fill_url("https://{tenant}.example.com/orders", {"tenant": "evil.test#"})
