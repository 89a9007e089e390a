"""Runs `lambda` tools: a synchronous Invoke of `function` (name, ARN or 'name:alias') with the
arguments as the JSON payload; the function's JSON object answer is the tool result.

A `FunctionError` (the function raised), an unreadable answer, a missing function, a denied call
or a timeout is a `ToolError` that names the tool and the kind of failure (the function's
`errorType`, never its `errorMessage`, which may echo customer text). boto3 is imported and the
client created on first use, one client per timeout value.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from focal.adapters.tool_retry import BACKOFF_BASE_S, TransientToolError, json_object, with_retries
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool, ToolKind

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 6 * 1024 * 1024  # the synchronous Invoke payload limit
_TRANSIENT_CODES = {
    "TooManyRequestsException", "ThrottlingException", "ServiceException", "EC2ThrottledException",
    "ENILimitReachedException", "ResourceNotReadyException", "SubnetIPAddressLimitReachedException",
}


class LambdaToolRunner:
    def __init__(self, client_factory: Callable[[float], Any] | None = None, *,
                 sleep: Callable[[float], None] = time.sleep, backoff_base_s: float = BACKOFF_BASE_S):
        self._factory = client_factory or _boto3_client
        self._clients: dict[float, Any] = {}
        self._lock = threading.Lock()
        self.sleep = sleep
        self.backoff_base_s = backoff_base_s

    def client(self, timeout_s: float) -> Any:
        with self._lock:
            if timeout_s not in self._clients:
                self._clients[timeout_s] = self._factory(timeout_s)
            return self._clients[timeout_s]

    def _attempt(self, tool: Tool, payload: bytes) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError, ReadTimeoutError
        from botocore.exceptions import ConnectionError as BotoConnectionError

        started = time.perf_counter()
        try:
            response = self.client(tool.timeout_s).invoke(
                FunctionName=tool.function, InvocationType="RequestResponse", Payload=payload,
            )
            raw = response["Payload"].read(MAX_RESPONSE_BYTES + 1)
        except ReadTimeoutError:
            raise TransientToolError(f"tool {tool.id!r} timed out after {tool.timeout_s}s") from None
        except BotoConnectionError as exc:
            raise TransientToolError(f"tool {tool.id!r}: connection failed ({type(exc).__name__})") from None
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "ClientError")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            message = f"tool {tool.id!r}: lambda invoke failed ({code})"
            if code in _TRANSIENT_CODES or status >= 500:
                raise TransientToolError(message) from None
            raise ToolError(message) from None
        except BotoCoreError as exc:  # no credentials, no region, bad parameters
            raise ToolError(f"tool {tool.id!r}: lambda invoke failed ({type(exc).__name__})") from None
        log.info("tool %s: lambda answered in %.0f ms", tool.id, (time.perf_counter() - started) * 1000)
        if response.get("FunctionError"):
            error_type = "unknown"
            try:
                error_type = str(json.loads(raw).get("errorType") or error_type)[:80]
            except (ValueError, AttributeError):
                pass
            raise ToolError(f"tool {tool.id!r}: function error ({response['FunctionError']}: {error_type})")
        return json_object(tool.id, raw, MAX_RESPONSE_BYTES, null_is_empty=True)

    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:  # noqa: ARG002
        if tool.kind != ToolKind.lambda_ or not tool.function:
            raise ToolError(f"tool {tool.id!r} is not a lambda tool")
        payload = json.dumps(arguments, default=str).encode()
        return with_retries(tool, lambda: self._attempt(tool, payload), sleep=self.sleep, base_s=self.backoff_base_s)


def _boto3_client(timeout_s: float) -> Any:
    """botocore's own retries are off: `Tool.retries` decides, so a side effect is never repeated silently."""
    import boto3
    from botocore.config import Config

    return boto3.client("lambda", config=Config(
        read_timeout=timeout_s, connect_timeout=min(timeout_s, 5.0), retries={"total_max_attempts": 1},
    ))
