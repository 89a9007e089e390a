"""API Gateway mapping templates (VTL) between the turn endpoint and StartSyncExecution.

Request: `POST /v1/agents/{agent_id}/sessions/{session_id}/turns` with body
`{"message": str, "customer_id"?: str, "turn_id"?: str}` becomes the execution input

    {"request": {"tenant_id": <authorizer context>, "agent_id": <path>, "session_id": <path>,
                 "customer_id": <see below>, "turn_id": <see below>, "message": <body>}}

turn_id: the body's `turn_id`, else the `Idempotency-Key` header, else the API request id (a retry
after a 504 with the same body or header is then the same turn: idempotent).
Ids (agent_id, session_id, turn_id) must match `ID_PATTERN`; otherwise the template asks Step
Functions for an execution with an invalid name (`INVALID_ID_NAME`), which StartSyncExecution refuses
with `InvalidName` (HTTP 400) before anything runs, and the 4xx response answers 400 `invalid_id`.
(A REST API validates path parameters only for presence; the body's turn_id has the same pattern in
the request model.)

tenant_id comes from `$context.authorizer.tenant_id` only; anything in the body is ignored.
customer_id is the authorizer's (`$context.authorizer.customer_id`: a verified customer token's
subject, else "anonymous"); the body's `customer_id` is used only when the authorizer says the key
is a trusted backend (`$context.authorizer.trusted_backend == "true"`), and ignored otherwise (the
REQUEST authorizer sees the headers, not the body, so this one decision is made here).
Each value is escaped twice (once for the inner JSON document, once for the `input` string that
carries it) without any placeholder substitution, so no user text can inject a key. `$util.
escapeJavaScript` also escapes `'`, which JSON does not allow; `.replaceAll("\\'", "'")` undoes it
(the same fix CDK's own Step Functions template applies).

Response: the execution output is the TurnResult (the state machine's Succeed states output
`$.result`), with the status `focal serve` gives it (focal.cli.serve_api.turn_reply): 404 for an
unknown agent, 409 for a session conflict or a reused / in-progress turn id, 403 for another
customer's session, else 200. A failed or
timed-out execution answers 500 with a structured error, never the cause. StartSyncExecution's own
4xx: throttling → 429 `throttled`, an invalid id → 400 `invalid_id`, anything else → 400.
"""

from __future__ import annotations

from focal.ids import ID

ID_PATTERN = ID.body  # the engine's id rule (focal.ids); VTL's String.matches matches it whole
INVALID_ID_NAME = "invalid id"  # not a valid execution name (a space): StartSyncExecution → InvalidName
IDEMPOTENCY_HEADER = "Idempotency-Key"
NOT_FOUND_CODES = ("agent_not_found", "stage_failed:AgentNotFound")
CONFLICT_CODES = ("session_conflict", "turn_id_reused", "turn_in_progress")
FORBIDDEN_CODES = ("session_not_yours",)  # the session belongs to another customer (focal.dialogue.ownership)
THROTTLING_TYPES = ("Throttling", "LimitExceeded", "TooManyRequests")

FIELDS: tuple[tuple[str, str], ...] = (
    ("tenant_id", "$context.authorizer.tenant_id"),
    ("agent_id", "$agentId"),
    ("session_id", "$sessionId"),
    ("customer_id", "$customerId"),
    ("turn_id", "$turnId"),
    ("message", "$input.path('$.message')"),
)
ID_FIELDS = ("agent_id", "session_id", "turn_id")

# The customer of the turn (checked verbatim by tests/infra/test_infra_api_mapping.py).
CUSTOMER_LINES: tuple[str, ...] = (
    '#set($customerId = "$!context.authorizer.customer_id")',
    '#if("$!context.authorizer.trusted_backend" == "true")#set($asserted = $input.path(\'$.customer_id\'))'
    '#if("$!asserted" != "")#set($customerId = $asserted)#end#end',
    '#if("$!customerId" == "")#set($customerId = "anonymous")#end',
)
TURN_ID_LINES: tuple[str, ...] = (
    "#set($turnId = $input.path('$.turn_id'))",
    f"#if(\"$!turnId\" == \"\")#set($turnId = $input.params().header.get('{IDEMPOTENCY_HEADER}'))#end",
    f"#if(\"$!turnId\" == \"\")#set($turnId = $input.params().header.get('{IDEMPOTENCY_HEADER.lower()}'))#end",
    '#if("$!turnId" == "")#set($turnId = $context.requestId)#end',
)
ID_LINES: tuple[str, ...] = (
    "#set($agentId = $input.params().path.get('agent_id'))",
    "#set($sessionId = $input.params().path.get('session_id'))",
    '#set($invalid = false)',
    # A missing value is invalid too: a method called on null is null, and !null is true.
    *(f'#if(!${var}.matches("{ID_PATTERN}"))#set($invalid = true)#end' for var in ("agentId", "sessionId", "turnId")),
)

_FIX_QUOTE = """.replaceAll("\\\\'", "'")"""  # VTL text: .replaceAll("\\'", "'")


def request_template(state_machine_arn: str) -> str:
    lines = [
        "## Turn request -> StartSyncExecution input (see infra/focal_infra/api_mapping.py).",
        *CUSTOMER_LINES,
        *TURN_ID_LINES,
        *ID_LINES,
    ]
    for name, source in FIELDS:
        lines.append(f"#set($raw_{name} = {source})")
        lines.append(f'#set($v_{name} = $util.escapeJavaScript("$!raw_{name}"){_FIX_QUOTE})')
        lines.append(f"#set($v_{name} = $util.escapeJavaScript($v_{name}){_FIX_QUOTE})")
    inner = ", ".join(f'\\"{name}\\": \\"$v_{name}\\"' for name, _ in FIELDS)
    lines += [
        "#if($invalid)",
        f'{{"stateMachineArn": "{state_machine_arn}", "name": "{INVALID_ID_NAME}", "input": "{{}}"}}',
        "#else",
        "{",
        f'  "stateMachineArn": "{state_machine_arn}",',
        f'  "input": "{{\\"request\\": {{{inner}}}}}"',
        "}",
        "#end",
    ]
    return "\n".join(lines) + "\n"


def _error(code: str, message: str) -> str:
    return (f'{{"success": false, "error": {{"code": "{code}", "message": "{message}", '
            '"request_id": "$context.requestId"}}')


def _any(var: str, values: tuple[str, ...], op: str = "==") -> str:
    if op == "contains":
        return " || ".join(f'{var}.contains("{v}")' for v in values)
    return " || ".join(f'{var} == "{v}"' for v in values)


_EXECUTION_FAILED = ('{"success": false, "execution_path": "fallback", "response": "", "error": '
                     '{"code": "execution_$util.escapeJavaScript($status).toLowerCase()", '
                     '"message": "The turn could not be completed.", "request_id": "$context.requestId"}}')

RESPONSE_TEMPLATE = f"""## StartSyncExecution response -> the TurnResult (200, 403, 404, 409), or a structured 500.
#set($status = $input.path('$.status'))
#if($status == "SUCCEEDED")
#set($result = $util.parseJson($input.path('$.output')))
#set($code = "$!result.error.code")
#if({_any("$code", NOT_FOUND_CODES)})
#set($context.responseOverride.status = 404)
{_error("agent_not_found", "No such agent for this tenant.")}
#else
#if({_any("$code", CONFLICT_CODES)})#set($context.responseOverride.status = 409)#end
#if({_any("$code", FORBIDDEN_CODES)})#set($context.responseOverride.status = 403)#end
$input.path('$.output')
#end
#else
#set($context.responseOverride.status = 500)
{_EXECUTION_FAILED}
#end
"""

ERROR_TEMPLATE_4XX = f"""## StartSyncExecution refused the request: throttled (429), an invalid id (400), or another 400.
#set($type = $input.path('$.__type'))
#if("$!type" != "" && ({_any("$type", THROTTLING_TYPES, "contains")}))
#set($context.responseOverride.status = 429)
{_error("throttled", "Too many turns right now: retry in a moment.")}
#elseif("$!type" != "" && $type.contains("InvalidName"))
{_error("invalid_id", "agent_id, session_id, turn_id and Idempotency-Key: 1-128 characters A-Z a-z 0-9 _ . : -")}
#else
{_error("bad_request", "The turn request was rejected.")}
#end
"""
ERROR_TEMPLATE_5XX = _error("unavailable", "The turn service is unavailable.")
