"""Runs `lambda` tools: a synchronous Invoke of `function` (name, ARN or 'name:alias') with the
arguments as the JSON payload; the function's JSON object answer is the tool result.

A `FunctionError` (the function raised), an unreadable answer, a missing function, a denied call
or a timeout is a `ToolError` that names the tool and the kind of failure — a `ToolOutcomeUnknown` when the call
may have done its work (a timeout or a lost connection once sent, a function that stopped midway, an unreadable answer) (the function's
`errorType`, never its `errorMessage`, which may echo customer text). boto3 is imported and the
client created on first use, one client per timeout value.

The payload is the tool's arguments and nothing else. A call whose context carries an idempotency
key (the side-effecting ones) sends it in the Invoke `ClientContext` instead, as
`{"custom": {"idempotency_key": KEY}}`, so it can never collide with a tool argument of the same
name nor change the event a function already reads. A Python handler reads it as
`context.client_context.custom["idempotency_key"]` (Node.js: `context.clientContext.custom`). The
same key goes with every attempt, and it is never logged. The authenticated customer id
(`ToolCallContext.customer_id`, "anonymous" when the request had none) goes in the same place,
`custom["customer_id"]`, never in the payload, so the function can check ownership.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from focal.adapters.tool_retry import BACKOFF_BASE_S, TransientToolError, json_object, with_retries
from focal.errors import ToolError, ToolOutcomeUnknown
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.models.turn import ToolCallContext

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 6 * 1024 * 1024  # the synchronous Invoke payload limit
# The function did not finish (timed out, its process exited): what it did before is unknown. Any other function
# error is the function's own report that the call failed.
_STOPPED_MIDWAY = ("Sandbox.Timedout", "Runtime.ExitError", "Runtime.OutOfMemory")
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

    def _attempt(self, tool: Tool, payload: bytes, client_context: str | None = None) -> dict[str, Any]:
        from botocore.exceptions import BotoCoreError, ClientError, ConnectTimeoutError, EndpointConnectionError, ReadTimeoutError
        from botocore.exceptions import ConnectionError as BotoConnectionError

        started = time.perf_counter()
        extra = {"ClientContext": client_context} if client_context else {}
        try:
            response = self.client(tool.timeout_s).invoke(
                FunctionName=tool.function, InvocationType="RequestResponse", Payload=payload, **extra,
            )
            raw = response["Payload"].read(MAX_RESPONSE_BYTES + 1)
        except ReadTimeoutError:
            raise TransientToolError(f"tool {tool.id!r} timed out after {tool.timeout_s}s") from None
        except (EndpointConnectionError, ConnectTimeoutError) as exc:  # no connection: nothing was sent
            raise TransientToolError(f"tool {tool.id!r}: connection failed ({type(exc).__name__})", maybe_sent=False) from None
        except BotoConnectionError as exc:
            raise TransientToolError(f"tool {tool.id!r}: connection failed ({type(exc).__name__})") from None
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "ClientError")
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
            message = f"tool {tool.id!r}: lambda invoke failed ({code})"
            if code in _TRANSIENT_CODES or status >= 500:
                # throttled or not ready: the function was not invoked; Lambda's own server error may follow an invoke
                raise TransientToolError(message, maybe_sent=code in _TRANSIENT_CODES and code != "ServiceException") from None
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
            failure = ToolOutcomeUnknown if error_type.startswith(_STOPPED_MIDWAY) else ToolError
            raise failure(f"tool {tool.id!r}: function error ({response['FunctionError']}: {error_type})")
        return json_object(tool.id, raw, MAX_RESPONSE_BYTES, null_is_empty=True)

    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any],  # noqa: ARG002
            context: ToolCallContext | None = None) -> dict[str, Any]:
        if tool.kind != ToolKind.lambda_ or not tool.function:
            raise ToolError(f"tool {tool.id!r} is not a lambda tool")
        payload = json.dumps(arguments, default=str).encode()
        client_context = client_context_of(context.idempotency_key if context else None,
                                           context.customer_id if context else None)
        return with_retries(tool, lambda: self._attempt(tool, payload, client_context),
                            sleep=self.sleep, base_s=self.backoff_base_s)


def client_context_of(idempotency_key: str | None, customer_id: str | None = None) -> str | None:
    """The base64 JSON ClientContext carrying the key and the customer id (at most about 350 bytes;
    Invoke allows 3,583), or None when there is neither."""
    custom = {k: v for k, v in (("idempotency_key", idempotency_key), ("customer_id", customer_id)) if v}
    if not custom:
        return None
    text = json.dumps({"custom": custom}, separators=(",", ":"))
    return base64.b64encode(text.encode()).decode("ascii")


def _boto3_client(timeout_s: float) -> Any:
    """botocore's own retries are off: `Tool.retries` decides, so a side effect is never repeated silently."""
    from botocore.config import Config

    from focal.adapters import aws

    return aws.client("lambda", config=Config(
        read_timeout=timeout_s, connect_timeout=min(timeout_s, 5.0), retries={"total_max_attempts": 1},
    ))
