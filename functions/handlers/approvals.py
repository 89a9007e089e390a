"""POST /v1/approvals/{approval_id} with `{"decision": "approve" | "deny"}`: answer an approval request
of the caller's tenant (from the authorizer's context only, never the body).

200 the decision was taken (approve: the action ran once, the follow-up answer is in `response`);
404 no such request for this tenant (another tenant's id reads the same); 409 already decided;
410 expired (no answer within the timeout, or the conversation moved on); 400 a bad body (`bad_decision`
naming the field and why; also one nested too deeply) or an approval id that cannot be one (`bad_request`); 413 a
body over MAX_BODY_BYTES.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response

from focal.api_bodies import ApprovalDecision, BodyInvalid, read_body
from focal.ids import ID
from focal.pipeline.approval_workflow import decide
from focal.safe_json import BodyRejected, loads_bounded
from focal.wiring import deps_from_env
from handlers._api import caller_tenant, path_param
from handlers._api import error as _error

MAX_BODY_BYTES = 16_384  # {"decision": "approve"} is 23 bytes
DECISIONS = {"approve": True, "deny": False}
REFUSED = {"unknown": (404, "not_found"), "expired": (410, "expired"),
           "approved": (409, "already_decided"), "denied": (409, "already_decided")}

app = APIGatewayRestResolver()
logger = Logger(service="focal")


@app.post("/v1/approvals/<approval_id>")
def post_approval(approval_id: str) -> Response | dict[str, Any]:
    tenant_id = caller_tenant(app)
    if isinstance(tenant_id, Response):
        return tenant_id
    approval_id = path_param(app, "approval_id", approval_id)
    if not ID.matches(approval_id):
        return _error(400, "bad_request", f"approval_id: must be {ID.rule}")
    try:
        doc = loads_bounded(app.current_event.decoded_body or "{}", max_bytes=MAX_BODY_BYTES)
    except BodyRejected as exc:
        return _error(exc.status, exc.code, str(exc))
    except ValueError:
        return _error(400, "bad_decision", 'the body is not JSON: send {"decision": "approve"} or {"decision": "deny"}')
    try:
        decision = read_body(ApprovalDecision, doc).decision
    except BodyInvalid as exc:
        return _error(400, "bad_decision", f'{exc}; send {{"decision": "approve"}} or {{"decision": "deny"}}')
    result, decided = decide(deps_from_env(), tenant_id, approval_id, DECISIONS[decision])
    logger.info("approval answered", extra={"approval_id": approval_id, "decision": decision,
                                            "approval_state": result.state, "decided": decided})
    if not decided:
        status, code = REFUSED.get(result.state, (409, "refused"))
        return _error(status, code, result.message, approval_state=result.state, approval=result.approval)
    return {"success": True, **result.to_dict()}


@logger.inject_lambda_context(log_event=False)  # no request bodies in logs
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return app.resolve(event, context)
