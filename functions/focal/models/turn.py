"""One turn: the request, the state that flows from stage to stage, and the result contract.

`TurnState` is the JSON document every stage handler receives and returns, locally and in the
Step Functions execution alike: one document, grouped by the stage that writes each part, so what a
stage owns is visible where it is used (`state.route.decision`, `state.generate.drafts`).
`TurnResult` is the one answer contract for CLI and API.

Who writes what. Each section is a typed model written by one stage; the top level holds the input, the
conversation and what every stage shares.

- top level
  - `request`, `resume`: the caller (resume: an approved action, focal.pipeline.approval_answer).
  - `session`, `profile`: loaded by sensor; route and tools change the session; persist saves both.
  - `response`, `execution_path`, `confidence`, `suggested_questions`: the answer, set by the stage that
    decides it (sensor's early exits, route and tools for confidence, generate, enforce; persist and the
    fallback on a failure).
  - `model_calls`, `deadline`, `degraded`: every stage that calls a model (focal.turn.budget); retrieve
    marks its own degradation.
  - `timings_ms`, `control`, `last_stage`, `error`, `result`: the pipeline (stage_io), a stage's jump or
    early exit, persist and the fallback.
- `sensor` (SensorOutput): prevalidation, context, commands, profile_migration, idempotency, claim_owner,
  foreign_session. Written by sensor (the turn id's claim: focal.turn.idempotency); persist and the
  fallback mark a claim lost to a newer attempt, persist a session another customer took meanwhile.
  Read by every later stage.
- `retrieve` (RetrieveOutput): candidates, episodes. Written by retrieve (which notes a degraded index in
  `sensor.context.notes`); read by route, generate, enforce (grounding) and persist (memory).
- `route` (RouteOutput): decision, matched_rules. Written by route (the sensor's clarification sets the
  action before it); later stages amend the decision (tools: a blocked or failed action; generate and
  enforce: notes, a withdrawn confirmation; persist: a reconciled session) and the tools' variable
  resolution adds the rule it applied. Read by tools, generate, enforce and persist.
- `tools` (ToolsOutput): tool_calls, actions_claimed, approval, request_id, confidence_factors,
  confidence_reasons. Written by tools (dialogue.tool_calls, .approvals, .resolution); an approved action's
  resume restores approval, request_id and factors. Read by generate, enforce, persist.
- `generate` (GenerateOutput): drafts. Written by generate; enforce records each draft's violations and
  the values it read on the draft. Read by enforce and persist.
- `enforce` (EnforceOutput): report, feedback. Written by enforce; read by generate (the feedback of a
  regeneration, `report.own_words`) and persist.

Documents written before the grouping (a stored turn record, an execution in flight across a deployment)
still load: their flat keys are lifted into the sections (focal.models.turn_legacy).
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, Field, field_validator, model_validator

from focal.models.context import Command, Context, PreValidationCheck
from focal.models.ids import CustomerIdStr, IdStr
from focal.models.memory import RecalledEpisode
from focal.models.session import CustomerProfile, Session
from focal.models.turn_legacy import lift_flat_keys

ExecutionPath = Literal["respond", "clarify", "approval", "rejected", "fallback", "escalate"]
ApprovalStateName = Literal["none", "awaiting_approval", "approved", "denied", "expired"]


MAX_MESSAGE_CHARS = 100_000


class TurnRequest(BaseModel):
    tenant_id: IdStr
    agent_id: IdStr
    session_id: IdStr
    customer_id: CustomerIdStr = "anonymous"
    turn_id: IdStr
    message: str = Field(max_length=MAX_MESSAGE_CHARS)


class ScoredRule(BaseModel):
    rule_id: str
    score: float  # calibrated similarity of the rule's best key (focal.retrieval.matching)
    scope: str
    reason: str = "similarity"
    flow_id: str | None = Field(default=None, description="the flow (not the rule's own) whose entry example fits the message best")
    flow_score: float | None = Field(default=None, description="that entry example's calibrated similarity")
    best_score: float | None = Field(
        default=None, description="the best rule's similarity in the search this score comes from: the whole message's, "
                                  "or one part's when the message has several (focal.retrieval.message_parts)")
    nearest_other: float | None = Field(
        default=None, description="the best score any other rule's example or any flow's entry example reaches on this "
                                  "rule's keys: the rule's own threshold (focal.dialogue.match_bounds)")
    overlaps_best: bool = Field(
        default=False, description="every example of that best rule meets this one too: it is not held to the margin "
                                   "below it (focal.retrieval.rule_overlap)")
    crowd_score: float | None = Field(
        default=None, description="the mean similarity of the rules ranked after the best few in the same search: a rule "
                                  "must stand clear of it (focal.dialogue.match_bounds)")
    answer_slot: str | None = Field(default=None, description="the variable asked last turn that the message gives a value")
    answer_score: float | None = Field(
        default=None, description="the calibrated similarity of the message to that value's words (a soft rule must not "
                                  "be beaten by it: the message is then that answer, focal.retrieval.slot_answer)")


class RouteDecision(BaseModel):
    action: Literal[
        "respond", "ask_slot", "confirm", "clarify", "clarify_step", "escalate", "complete", "out_of_scope",
        "cancelled", "chitchat", "tool_error", "declined",
        "awaiting_approval", "clarify_action", "action_rejected",  # the approval gate
        "action_blocked",  # an action guard stopped a side-effecting call before it ran
        "already_done",  # a correction of a value a side effect of this flow already used: not run again
        "not_found",  # a step would confirm or act on an object an earlier look-up did not find: the flow ended
    ] = "respond"
    not_found: str | None = Field(default=None, description="not_found: what the customer named that was not found")
    escalation_reason: str | None = Field(
        default=None, description="escalate by a flow's transition: why (the person taking over is told)")
    escalated_at: str | None = Field(
        default=None, description="escalate by a flow's transition: the step it handed over from, 'scenario_id.step_id'")
    handoff_rule_id: str | None = Field(
        default=None, description="escalate: a matched rule whose own examples ask for a person — its text announces "
        "the hand-off, so the engine's notice is not said after it")
    scenario_id: str | None = None
    step_id: str | None = None
    started_scenario_id: str | None = Field(default=None, description="the active scenario when the turn began")
    started_step_id: str | None = None
    intent_label: str | None = None
    switched: bool = False
    asked_slot: str | None = None
    invalid_slot: str | None = None
    pending_tools: list[str] = Field(default_factory=list)
    blocked_by: list[str] = Field(default_factory=list, description="the guards that stopped an action this turn")
    completed_scenario_id: str | None = None
    cancelled_scenario_id: str | None = None
    resume_offered_id: str | None = None
    executed: list[str] = Field(default_factory=list, description="the commands that changed the conversation, in order")
    notes: list[str] = Field(default_factory=list)


class GuardVerdict(BaseModel):
    """One action guard (a hard constraint naming the tool) evaluated on one call's exact arguments."""

    rule_id: str
    passed: bool
    reason: str = ""
    variables: dict[str, Any] = Field(default_factory=dict, description="the values the expression read")


class ToolCallContext(BaseModel):
    """Who a tool call is for and how to recognise a repeat of it; given to the ToolRunner with the arguments."""

    tenant_id: str
    session_id: str
    turn_id: str
    customer_id: str = "anonymous"
    idempotency_key: str | None = Field(
        default=None, description="side-effecting calls: sha256 of tenant, session, turn id, tool and arguments")


class ToolCall(BaseModel):
    tool_id: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    outputs: dict[str, Any] = Field(default_factory=dict)
    status: Literal["ok", "error", "unknown", "skipped", "blocked"] = Field(
        default="ok", description="error: it failed and nothing of it took effect; unknown: a side-effecting call that "
                                  "failed after it may have taken effect; blocked: an action guard stopped it before the tool ran")
    error: str | None = None
    error_code: str | None = Field(
        default=None,
        description="why a call failed: tool_error, tool_input_invalid, tool_output_invalid, tool_outcome_unknown (FocalError.code)")
    ms: float = 0.0
    trigger: str = ""
    guards: list[GuardVerdict] = Field(default_factory=list, description="the action guards evaluated before the call")
    idempotency_key: str | None = Field(default=None, description="side-effecting calls: tenant, session, turn, tool, arguments")


# Output checks: a violation of one names the check (lane == rule_id), not a rule of the agent.
OutputCheck = Literal["relevance", "grounding", "internals", "unbound", "language"]
OUTPUT_CHECKS: tuple[str, ...] = get_args(OutputCheck)


class Violation(BaseModel):
    rule_id: str
    lane: Literal["deterministic", "judge"] | OutputCheck
    reason: str


class Draft(BaseModel):
    text: str
    source: Literal["model", "offline", "template", "fallback"]
    violations: list[Violation] = Field(default_factory=list)
    variables: dict[str, Any] = Field(default_factory=dict)
    commitments: dict[str, Any] | None = Field(
        default=None, description="a structured model draft: the response fields it commits to (None: plain text)")
    spans: list[tuple[int, int]] = Field(default_factory=list, description="where the text shows rendered placeholders")
    bindings: dict[str, Any] = Field(default_factory=dict, description="placeholder → the known value it showed")
    unbound_placeholders: list[str] = Field(default_factory=list, description="placeholders that named nothing known")
    agent_text: bool = Field(default=False, description="the agent's own words (a guard's or rule's template): said as written")
    original_text: str | None = Field(
        default=None, description="an own text said in a translation: the same answer in the agent file's language, "
                                  "whose promises the hard rules read too (their hints are words of that language)")


class CheckVerdict(BaseModel):
    """One output check (relevance, grounding, internals) on one draft: its score against its threshold."""

    name: OutputCheck
    draft: int = Field(description="index of the checked draft in the turn's drafts")
    passed: bool
    score: float | None = Field(default=None, description="None when the check was bypassed")
    threshold: float
    reason: str
    method: str = Field(default="", description="how it was scored: cosine, cross_encoder, claims, nli, judge, bypass")
    unsupported: list[str] = Field(default_factory=list, description="grounding: the claims no source supports")
    ms: float = 0.0


class EnforcementReport(BaseModel):
    checked: list[str] = Field(default_factory=list)
    violations: list[Violation] = Field(default_factory=list)
    unverified: list[str] = Field(default_factory=list)
    not_judged: dict[str, str] = Field(
        default_factory=dict, description="subjective rules in scope but not judged on this turn, each with why")
    regenerations: int = 0
    not_regenerated: str | None = Field(
        default=None, description="why a blocked draft went straight to the fallback: a rule no draft can satisfy")
    fallback_used: bool = False
    own_words: bool = Field(
        default=False, description="the model's drafts failed on no rule of the agent's: the agent's own words were tried")
    checks: list[CheckVerdict] = Field(default_factory=list, description="every output check of every draft")
    timings: dict[str, float] = Field(
        default_factory=dict, description="milliseconds per lane (deterministic, judge), added up over the drafts")


class ModelCall(BaseModel):
    purpose: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    ms: float = 0.0
    ok: bool = True
    note: str = ""


class TurnError(BaseModel):
    code: str
    message: str
    stage: str | None = None
    retry_after_s: int | None = Field(default=None, description="turn_in_progress: seconds until a retry may be answered")


class Control(BaseModel):
    """Set by a stage to take one of the jumps the pipeline definition allows."""

    next: str | None = None


class TurnResult(BaseModel):
    success: bool = Field(description="false when the turn was refused or answered by the fallback (see error)")
    turn_id: str = Field(description="the turn's id (its idempotency key)")
    session_id: str = Field(description="the session the turn belongs to")
    response: str = Field(description="what the customer is shown: only what enforcement let through")
    execution_path: ExecutionPath = Field(
        description="respond | clarify (a question back) | approval (an action waits for a person) | rejected (an action "
                    "was refused) | fallback (no compliant answer, or a stage failed) | escalate (handed to a person)")
    confidence: float = Field(description="the turn's graded confidence (0-1); its factors are in confidence_factors")
    intent: dict[str, Any] = Field(description="{label, confidence, source: offline or model, fast_path}")
    scenario: dict[str, Any] | None = Field(description="{id, step_id} of the active scenario after the turn, or null")
    matched_rules: list[str] = Field(description="ids of the rules that applied this turn")
    enforcement: dict[str, Any] = Field(
        description="{checked, violations: [{rule_id, lane, reason}], unverified, regenerations, fallback_used, checks, …}")
    commands: list[dict[str, Any]] = Field(description="how the message was read: StartFlow, SetSlot, AffirmConfirmation, …")
    tool_calls: list[dict[str, Any]] = Field(
        description="{tool_id, status: ok | error | unknown | skipped | blocked, arguments, outputs, ms, …} per call, "
                    "blocked ones with the guard verdicts")
    model_calls: int = Field(description="model calls this turn made")
    cost_usd: float = Field(description="the cost of those calls")
    timings_ms: dict[str, float] = Field(description="milliseconds per stage")
    suggested_questions: list[str] = Field(description="questions the customer might ask next")
    error: dict[str, Any] | None = Field(description="null, or {code, message, stage} of what failed")
    # Confidence and approvals (defaults keep older results and records valid):
    approval_state: ApprovalStateName = Field(default="none", description="none | awaiting_approval | approved | denied | expired")
    approval: dict[str, Any] | None = Field(default=None, description="{id, state, tool_id, expires_at} of the approval request")
    request_id: str | None = Field(default=None, description="the approval or clarification request this turn created")
    confidence_factors: dict[str, float] = Field(default_factory=dict, description="the graded confidence's factors")
    degraded: list[str] = Field(default_factory=list, description="dependencies the turn ran without, e.g. ['retrieval']")
    prevalidation: list[dict[str, Any]] = Field(
        default_factory=list, description="failed pre-validation checks: {name, reason, blocking}; never the message")


class ApprovalResume(BaseModel):
    """An approved request resumed through the pipeline from the tools stage: run exactly these calls."""

    approval_id: str
    tools: list[str]
    arguments: dict[str, Any] = Field(default_factory=dict)
    step: str | None = None
    customer_confirmed: bool = False
    trigger: str = ""


class SensorOutput(BaseModel):
    """Written by the sensor: whether the turn runs at all, and how the message was read."""

    prevalidation: list[PreValidationCheck] = Field(default_factory=list)
    context: Context | None = None
    commands: list[Command] = Field(default_factory=list, description="how the message was read; route executes them")
    # Persistence: what migrating the stored profile did (field names only), and whether
    # this execution answers a repeated turn id from the idempotency store instead of running.
    profile_migration: dict[str, Any] | None = Field(default=None, description="the profile's schema migration on read")
    idempotency: Literal["replayed", "in_progress", "key_reused", "superseded"] | None = Field(
        default=None, description="set when the turn id was seen before (or its claim was taken over): nothing is written")
    claim_owner: str | None = Field(
        default=None, description="this execution's token on the turn id's claim (focal.turn.idempotency)")
    foreign_session: bool = Field(
        default=False, description="the session belongs to another customer: refused, nothing runs, nothing is written to it")


class RetrieveOutput(BaseModel):
    """Written by retrieve: the rules that may apply, and the customer's similar earlier episodes."""

    candidates: list[ScoredRule] = Field(default_factory=list)
    episodes: list[RecalledEpisode] = Field(default_factory=list)


class RouteOutput(BaseModel):
    """Written by route: the rules that apply and the move the turn makes (later stages amend the decision)."""

    decision: RouteDecision = Field(default_factory=RouteDecision)
    matched_rules: list[ScoredRule] = Field(default_factory=list)


class ToolsOutput(BaseModel):
    """Written by tools: the calls made, the session claim for their side effects, the approval gate's outcome."""

    tool_calls: list[ToolCall] = Field(default_factory=list)
    actions_claimed: bool = Field(
        default=False, description="this execution claimed the session for its side effects (stages/tools.py)")
    approval: dict[str, Any] | None = Field(default=None, description="the approval request this turn created or waits on")
    request_id: str | None = Field(default=None, description="the approval or clarification request id (events carry it)")
    confidence_factors: dict[str, float] = Field(default_factory=dict, description="graded confidence")
    confidence_reasons: dict[str, str] = Field(default_factory=dict, description="why each factor has its value")


class GenerateOutput(BaseModel):
    """Written by generate: every draft of the turn, in order (enforce records its verdicts on each)."""

    drafts: list[Draft] = Field(default_factory=list)
    model_refused: str | None = Field(
        default=None, description="why the model's answer was no draft this turn (an echo, a loop…): not asked again")


class EnforceOutput(BaseModel):
    """Written by enforce: what was checked and found, and the feedback a regeneration gets."""

    report: EnforcementReport = Field(default_factory=EnforcementReport)
    feedback: list[str] = Field(default_factory=list)


class TurnState(BaseModel):
    request: TurnRequest
    resume: ApprovalResume | None = Field(default=None, description="set when the turn runs an approved action")
    session: Session | None = None
    profile: CustomerProfile | None = None
    sensor: SensorOutput = Field(default_factory=SensorOutput)
    retrieve: RetrieveOutput = Field(default_factory=RetrieveOutput)
    route: RouteOutput = Field(default_factory=RouteOutput)
    tools: ToolsOutput = Field(default_factory=ToolsOutput)
    generate: GenerateOutput = Field(default_factory=GenerateOutput)
    enforce: EnforceOutput = Field(default_factory=EnforceOutput)
    # The answer, set by whichever stage decides it:
    response: str | None = None
    execution_path: ExecutionPath = "respond"
    confidence: float = 1.0
    suggested_questions: list[str] = Field(default_factory=list)
    # The pipeline's own bookkeeping, and what every model-calling stage adds to:
    model_calls: list[ModelCall] = Field(default_factory=list)
    timings_ms: dict[str, float] = Field(default_factory=dict)
    control: Control = Field(default_factory=Control)
    last_stage: str | None = Field(default=None, description="the last stage that finished (names a failing one's predecessor)")
    degraded: list[str] = Field(default_factory=list, description="dependencies the turn ran without (retrieval: index unreachable)")
    deadline: float | None = Field(
        default=None, description="epoch seconds when the turn's model budget (models.turn_budget_s) is spent; set by the first stage")
    error: TurnError | None = None
    result: TurnResult | None = None

    @model_validator(mode="before")
    @classmethod
    def _lift_flat_keys(cls, data: Any) -> Any:
        """A document written before the grouping by stage (focal.models.turn_legacy)."""
        return lift_flat_keys(data) if isinstance(data, dict) else data

    @property
    def cost_usd(self) -> float:
        return round(sum(c.cost_usd for c in self.model_calls), 6)

    def add_timing(self, stage: str, ms: float) -> None:
        # The enforcement loop can run generate/enforce more than once: add up.
        self.timings_ms[stage] = round(self.timings_ms.get(stage, 0.0) + ms, 3)

    def refuse_early(self, code: str, message: str, retry_after_s: int | None = None) -> None:
        """Answered by the sensor before anything runs (a repeated turn id, another customer's session): a
        structured error the customer reads as the answer, then straight to persist."""
        self.error = TurnError(code=code, message=message, stage="sensor", retry_after_s=retry_after_s)
        self.response = message
        self.execution_path = "rejected"
        self.confidence = 0.0
        self.result = self.to_result()
        self.control.next = "persist"

    def to_result(self) -> TurnResult:
        ctx = self.sensor.context
        scenario = (
            {"id": self.route.decision.scenario_id, "step_id": self.route.decision.step_id} if self.route.decision.scenario_id else None
        )
        return TurnResult(
            success=self.error is None,
            turn_id=self.request.turn_id,
            session_id=self.request.session_id,
            response=self.response or "",
            execution_path=self.execution_path,
            confidence=round(self.confidence, 4),
            intent={
                "label": ctx.detected_intent if ctx else None,
                "confidence": round(ctx.intent_confidence, 4) if ctx else 0.0,
                "source": ctx.source if ctx else None,
                "fast_path": ctx.fast_path if ctx else False,
            },
            scenario=scenario,
            matched_rules=[m.rule_id for m in self.route.matched_rules],
            enforcement=self.enforce.report.model_dump(),
            commands=[c.model_dump(exclude_none=True) for c in self.sensor.commands],
            tool_calls=[t.model_dump() for t in self.tools.tool_calls],
            model_calls=len(self.model_calls),
            cost_usd=self.cost_usd,
            timings_ms=dict(self.timings_ms),
            suggested_questions=list(self.suggested_questions),
            error=self.error.model_dump(exclude={"retry_after_s"} if self.error.retry_after_s is None else None)
            if self.error else None,
            approval_state=self.tools.approval["state"] if self.tools.approval else "none",
            approval=dict(self.tools.approval) if self.tools.approval else None,
            request_id=self.tools.request_id,
            confidence_factors=dict(self.tools.confidence_factors),
            degraded=list(self.degraded),
            prevalidation=[{"name": c.name, "reason": c.reason, "blocking": c.blocking} for c in self.sensor.prevalidation if not c.passed],
        )


class TurnRecord(BaseModel):
    """The audit trail of one turn, as stored."""

    tenant_id: str
    agent_id: str
    session_id: str
    turn_id: str
    turn_number: int
    customer_id: str
    created_at: float
    intent_label: str | None = None
    result: TurnResult
    state: dict[str, Any] = Field(description="the full TurnState without the embedding")
    expires_at: int | None = None

    @field_validator("state")
    @classmethod
    def _lift_flat_keys(cls, state: dict[str, Any]) -> dict[str, Any]:
        """A record stored before the grouping by stage reads like a new one (focal.models.turn_legacy)."""
        return lift_flat_keys(state)
