"""API Gateway mapping templates (VTL) between the turn endpoint and StartSyncExecution.

Request: `POST /v1/agents/{agent_id}/sessions/{session_id}/turns` with body
`{"message": str, "customer_id"?: str, "turn_id"?: str}` becomes the execution input

    {"request": {"tenant_id": <authorizer context>, "agent_id": <path>, "session_id": <path>,
                 "customer_id": <see below>, "turn_id": <body or the API request id>,
                 "message": <body>}}

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
`$.result`). A failed or timed-out execution answers 500 with a structured error, never the cause.
"""

from __future__ import annotations

FIELDS: tuple[tuple[str, str], ...] = (
    ("tenant_id", "$context.authorizer.tenant_id"),
    ("agent_id", "$input.params().path.get('agent_id')"),
    ("session_id", "$input.params().path.get('session_id')"),
    ("customer_id", "$customerId"),
    ("turn_id", "$turnId"),
    ("message", "$input.path('$.message')"),
)

# The customer of the turn (checked verbatim by tests/infra/test_infra_api_mapping.py).
CUSTOMER_LINES: tuple[str, ...] = (
    '#set($customerId = "$!context.authorizer.customer_id")',
    '#if("$!context.authorizer.trusted_backend" == "true")#set($asserted = $input.path(\'$.customer_id\'))'
    '#if("$!asserted" != "")#set($customerId = $asserted)#end#end',
    '#if("$!customerId" == "")#set($customerId = "anonymous")#end',
)

_FIX_QUOTE = """.replaceAll("\\\\'", "'")"""  # VTL text: .replaceAll("\\'", "'")


def request_template(state_machine_arn: str) -> str:
    lines = [
        "## Turn request -> StartSyncExecution input (see infra/focal_infra/api_mapping.py).",
        *CUSTOMER_LINES,
        "#set($turnId = $input.path('$.turn_id'))",
        '#if("$!turnId" == "")#set($turnId = $context.requestId)#end',
    ]
    for name, source in FIELDS:
        lines.append(f"#set($raw_{name} = {source})")
        lines.append(f'#set($v_{name} = $util.escapeJavaScript("$!raw_{name}"){_FIX_QUOTE})')
        lines.append(f"#set($v_{name} = $util.escapeJavaScript($v_{name}){_FIX_QUOTE})")
    inner = ", ".join(f'\\"{name}\\": \\"$v_{name}\\"' for name, _ in FIELDS)
    lines += [
        "{",
        f'  "stateMachineArn": "{state_machine_arn}",',
        f'  "input": "{{\\"request\\": {{{inner}}}}}"',
        "}",
    ]
    return "\n".join(lines) + "\n"


RESPONSE_TEMPLATE = """## StartSyncExecution response → the TurnResult, or a structured 500.
#set($status = $input.path('$.status'))
#if($status == "SUCCEEDED")
$input.path('$.output')
#else
#set($context.responseOverride.status = 500)
{"success": false, "execution_path": "fallback", "response": "", "error": {"code": "execution_$util.escapeJavaScript($status).toLowerCase()", "message": "The turn could not be completed.", "request_id": "$context.requestId"}}
#end
"""

ERROR_TEMPLATE_4XX = """{"success": false, "error": {"code": "bad_request", "message": "The turn request was rejected.", "request_id": "$context.requestId"}}"""
ERROR_TEMPLATE_5XX = """{"success": false, "error": {"code": "unavailable", "message": "The turn service is unavailable.", "request_id": "$context.requestId"}}"""
