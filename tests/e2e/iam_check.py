"""Every AWS call a function's code makes, checked against that function's IAM role in the synthesized template.

moto enforces no IAM, so a missing permission shows only in a real account. Here every botocore call is
recorded (`BaseClient._make_api_call`, which every client goes through, whenever it was created) with the
function it ran for (the handler the harness dispatched to, or one a test names with `acting_as`), turned
into the IAM request AWS would authorize (action, resource ARN, `dynamodb:LeadingKeys`), and evaluated
against the statements of that function's role: an explicit Deny wins, else some Allow must match action,
resource and condition. OpenSearch calls (through the fake client) become `es:ESHttp<Method>` requests on
the domain's index paths the same way.
"""

from __future__ import annotations

import fnmatch
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from harness import ACCOUNT, REGION, PipelineHarness, resolve

_ACTING = threading.local()


@dataclass(frozen=True)
class IamRequest:
    function: str  # the handler path of the function the call ran for
    action: str
    resource: str | None  # None: the action names no resource in its request (checked on action only)
    leading_keys: tuple[str, ...] = ()

    def __str__(self) -> str:
        keys = f" keys {list(self.leading_keys)}" if self.leading_keys else ""
        return f"{self.function}: {self.action} on {self.resource or '*'}{keys}"


@contextmanager
def acting_as(handler: str) -> Iterator[None]:
    """Attribute the AWS calls made inside to the function with this handler (thread-local, nests)."""
    previous = getattr(_ACTING, "handler", None)
    _ACTING.handler = handler
    try:
        yield
    finally:
        _ACTING.handler = previous


def _partition_key_value(params: dict[str, Any], key_name: str) -> str | None:
    for holder in ("Key", "Item"):
        value = (params.get(holder) or {}).get(key_name)
        if value:
            return value.get("S")
    expression = params.get("KeyConditionExpression") or ""
    names = params.get("ExpressionAttributeNames") or {}
    for name, placeholder in re.findall(r"(#?\w+)\s*=\s*(:\w+)", expression):
        if names.get(name, name) == key_name:
            return ((params.get("ExpressionAttributeValues") or {}).get(placeholder) or {}).get("S")
    return None


# API operations authorized by an IAM action of another name.
IAM_ACTION = {("lambda", "Invoke"): "InvokeFunction", ("s3", "HeadObject"): "GetObject"}


@dataclass
class Recorder:
    harness: PipelineHarness
    calls: list[IamRequest] = field(default_factory=list)
    unattributed: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def install(self, monkeypatch) -> None:
        from botocore.client import BaseClient

        original = BaseClient._make_api_call
        recorder = self

        def recording(client, operation_name, api_params):
            recorder.record(client, operation_name, api_params)
            return original(client, operation_name, api_params)

        monkeypatch.setattr(BaseClient, "_make_api_call", recording)
        dispatch = self.harness.invoke

        def invoke(function_name, body, response_headers):  # the harness's Lambda dispatch: attribute to it
            key = function_name.split(":function:")[-1].split(":")[0]
            fn = self.harness.by_name.get(key)
            if fn is None:
                return dispatch(function_name, body, response_headers)
            with acting_as(fn["handler"]):
                return dispatch(function_name, body, response_headers)

        monkeypatch.setattr(self.harness, "invoke", invoke)

    def _add(self, request: IamRequest) -> None:
        with self._lock:
            self.calls.append(request)

    def record(self, client: Any, operation: str, params: dict[str, Any]) -> None:
        handler = getattr(_ACTING, "handler", None)
        if handler is None:
            with self._lock:
                self.unattributed += 1  # the test's own set-up and moto's interpreter: no function's role
            return
        prefix = client.meta.service_model.signing_name
        action = f"{prefix}:{IAM_ACTION.get((prefix, operation), operation)}"
        self._add(IamRequest(handler, action, *self._resource(prefix, params)))

    def record_opensearch(self, method: str, domain: str, index: str | None) -> None:
        handler = getattr(_ACTING, "handler", None)
        if handler is not None:
            path = f"arn:aws:es:{REGION}:{ACCOUNT}:domain/{domain}/{index or '_bulk'}"
            self._add(IamRequest(handler, f"es:ESHttp{method.capitalize()}", path))

    def _resource(self, prefix: str, params: dict[str, Any]) -> tuple[str | None, tuple[str, ...]]:
        if prefix == "dynamodb":
            table = params["TableName"]
            key = _partition_key_value(params, "pk")
            return f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/{table}", (key,) if key else ()
        if prefix == "events":
            (bus,) = {entry.get("EventBusName", "default") for entry in params["Entries"]}
            return f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/{bus}", ()
        if prefix == "secretsmanager":
            return f"arn:aws:secretsmanager:{REGION}:{ACCOUNT}:secret:{params['SecretId']}-AbCdEf", ()
        if prefix == "lambda":
            return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{params['FunctionName']}", ()
        if prefix == "s3" and "Key" in params:
            return f"arn:aws:s3:::{params['Bucket']}/{params['Key']}", ()
        if prefix == "states" and "stateMachineArn" in params:
            return params["stateMachineArn"], ()
        return None, ()  # e.g. states:SendTaskSuccess names a task token, not a resource


class RolePolicies:
    """The IAM statements of each function's role, from the template, tokens resolved as the harness does."""

    def __init__(self, harness: PipelineHarness) -> None:
        resources = harness.template["Resources"]
        by_role: dict[str, list[dict[str, Any]]] = {}
        for policy in resources.values():
            if policy["Type"] == "AWS::IAM::Policy":
                statements = resolve(policy["Properties"]["PolicyDocument"]["Statement"],
                                     _Known(harness.refs), _Known(harness.attrs))
                for role in policy["Properties"]["Roles"]:
                    by_role.setdefault(role["Ref"], []).extend(statements)
        self.statements = {fn["handler"]: by_role.get(fn["props"]["Role"]["Fn::GetAtt"][0], [])
                           for fn in harness.functions.values()}

    def allows(self, request: IamRequest) -> bool:
        statements = self.statements[request.function]
        if any(_matches(st, request) for st in statements if st["Effect"] == "Deny"):
            return False
        return any(_matches(st, request) for st in statements if st["Effect"] == "Allow")


class _Known(dict):
    """The harness's names, and a placeholder for a resource the harness does not create (a log group):
    no AWS call of the engine names one, so a statement on it never matches a recorded request."""

    def __contains__(self, key: object) -> bool:
        return True

    def __missing__(self, key: Any) -> str:
        return f"unresolved:{key}"


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _matches(statement: dict[str, Any], request: IamRequest) -> bool:
    if not any(fnmatch.fnmatchcase(request.action.lower(), a.lower()) for a in _listed(statement["Action"])):
        return False
    if request.resource is not None and not any(
            fnmatch.fnmatchcase(request.resource, r) for r in _listed(statement["Resource"])):
        return False
    for operator, conditions in (statement.get("Condition") or {}).items():
        for key, patterns in conditions.items():
            if (operator, key) != ("ForAllValues:StringLike", "dynamodb:LeadingKeys"):
                return False  # a condition this checker does not know: never assumed to hold
            if not all(any(fnmatch.fnmatchcase(k, p) for p in _listed(patterns)) for k in request.leading_keys):
                return False
    return True


def denied(recorder: Recorder, policies: RolePolicies) -> list[str]:
    """Every distinct recorded request the function's role does not allow, as text."""
    return sorted({str(r) for r in recorder.calls if not policies.allows(r)})


class RecordingOpenSearch:
    """Wraps the fake OpenSearch client: each call is also an `es:ESHttp<Method>` request of the function."""

    METHODS = {"bulk": "post", "search": "post", "msearch": "post", "delete_by_query": "post"}
    INDEX_METHODS = {"exists": "head", "create": "put", "delete": "delete", "refresh": "post"}

    def __init__(self, inner: Any, recorder: Recorder, domain: str) -> None:
        self._inner, self._recorder, self._domain = inner, recorder, domain
        self.indices = _RecordingIndices(inner.indices, recorder, domain)

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name not in self.METHODS:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            self._recorder.record_opensearch(self.METHODS[name], self._domain, kwargs.get("index"))
            return attribute(*args, **kwargs)

        return call


class _RecordingIndices:
    def __init__(self, inner: Any, recorder: Recorder, domain: str) -> None:
        self._inner, self._recorder, self._domain = inner, recorder, domain

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if name not in RecordingOpenSearch.INDEX_METHODS:
            return attribute

        def call(*args: Any, **kwargs: Any) -> Any:
            self._recorder.record_opensearch(RecordingOpenSearch.INDEX_METHODS[name], self._domain, kwargs.get("index"))
            return attribute(*args, **kwargs)

        return call
