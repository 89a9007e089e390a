"""Conversation state (Session) and persistent customer facts (CustomerProfile)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

UNREADABLE = -1  # failed_identity_checks could not be read: the checks count as exhausted

# blocked: a guard stopped the step's action; the flow waits at the step for a changed value, with no question open
FlowState = Literal["idle", "waiting_for_slot", "confirming", "executing_action", "blocked", "completed", "error"]


class FlowFrame(BaseModel):
    scenario_id: str
    step_id: str
    state: FlowState = "waiting_for_slot"
    slots: dict[str, Any] = Field(default_factory=dict, description="the interrupted flow's slot values, restored on resume")
    variables: dict[str, Any] = Field(default_factory=dict, description="tool outputs as they were, restored on resume")
    effects_done: list[str] = Field(default_factory=list, description="its steps whose side effects ran, restored on resume")
    outcome_unknown: list[str] = Field(default_factory=list, description="its steps whose action's outcome is unknown, "
                                                                         "restored on resume")
    stale: bool = Field(default=False, description="a side effect ran since it was interrupted: what its tools read "
                                                   "is not restored, its lookups run again")
    call: bool = Field(default=False, description="paused by its step's `call`: resumed as soon as the called flow "
                                                  "finishes, and cancelled with it")


class Offer(BaseModel):
    """A question the agent asked outside a confirmation step; the next turn answers it.

    resume: continue an interrupted flow; start: begin a flow ("what if …?" answered with a question);
    choose: which of `options` the customer means (a clarification). "yes" takes the first (or only)
    option, "the second one" / "2" / the option's name takes that one, "no" declines."""

    kind: Literal["resume", "start", "choose"]
    scenario_id: str
    options: list[str] = Field(default_factory=list, description="the scenarios offered, in the order they were named")
    values: dict[str, dict[str, Any]] = Field(
        default_factory=dict, description="per offered scenario, the slot values the message that was answered with "
                                          "this question gave, as that turn read them; taking the option sets them "
                                          "through the flow's own checks (focal.dialogue.commands)")
    read_by: str | None = Field(default=None, description="who read those values from the customer's message: "
                                                          "the offline sensor or the model")

    def choices(self) -> list[str]:
        return list(self.options) or [self.scenario_id]


class DigitTail(BaseModel):
    """The digits a customer message ended with, kept only as the Luhn check of a longer card number needs them
    (focal.pii_carry): how many and their two Luhn sums mod 10, never the digits."""

    turn_id: str
    at: float = Field(description="when that turn was persisted (its episode is found near it)")
    count: int = Field(ge=1, le=18)
    sums: tuple[int, int]
    shown: str | None = Field(default=None, pattern=r"^\d{4}$",
                              description="the number was masked as a card: the last four digits its mask shows")


class PiiCarry(BaseModel):
    """What masking at rest carries from one customer message to the next (focal.pii_carry)."""

    tails: list[DigitTail] = Field(default_factory=list, max_length=18,
                                   description="the digits the last messages ended with, oldest first, 18 digits at most")
    cvv_due: bool = Field(default=False, description="the last message gave a card or the conversation asked for its security code")


class LookupRetry(BaseModel):
    """A flow ended because a look-up found nothing for a value the customer gave: for the next turn, a new value for
    that slot is read as the correction of it and the flow runs again from the step that collects it."""

    scenario_id: str
    slots: dict[str, Any] = Field(default_factory=dict, description="the flow's slot values when it ended")
    retry_slots: list[str] = Field(default_factory=list, description="the slots whose look-up found nothing")
    tools: list[str] = Field(default_factory=list, description="the look-ups that found nothing (their answers are forgotten)")


class HistoryEntry(BaseModel):
    role: Literal["user", "assistant"]
    text: str


class Session(BaseModel):
    tenant_id: str
    agent_id: str
    session_id: str
    customer_id: str
    active_scenario_id: str | None = None
    active_step_id: str | None = None
    flow_state: FlowState = "idle"
    flow_stack: list[FlowFrame] = Field(default_factory=list, description="interrupted flows, resumed last-in first-out")
    confirmed_step: str | None = Field(default=None, description="the step whose confirmation the customer gave")
    actions_done_step: str | None = Field(default=None, description="the step whose action tools already ran")
    call_done_step: str | None = Field(default=None, description="the step whose called flow already finished")
    effects_done: list[str] = Field(
        default_factory=list, description="steps of the active flow whose side-effecting actions ran: never run twice by a correction")
    outcome_unknown: list[str] = Field(
        default_factory=list, description="steps of the active flow whose action may have run (a call's outcome is "
                                          "unknown): never run again; the flow waits there")
    action_failed_step: str | None = Field(
        default=None, description="the step whose action failed with nothing done: it runs again only after a fresh yes")
    unknown_calls: list[str] = Field(
        default_factory=list, description="digests (tool id and arguments, hashed: no customer value at rest) of the "
                                          "side-effecting calls whose outcome is unknown: never made again in this "
                                          "session, by any flow, restarted or not")
    step_attempts: dict[str, int] = Field(
        default_factory=dict,
        description="step id → how many times its action ran in this run of the active flow (the built-in step_attempts)")
    failed_identity_checks: int = Field(
        default=0, description="identity checks that failed in this session, whatever flow ran them: kept across "
        "restarts, switches and cancels (focal.dialogue.identity_checks); UNREADABLE when a stored value is not a count")
    running_totals: dict[str, float] = Field(
        default_factory=dict, description="tool.argument → total of the customer-chosen quantities this session's "
                                          "side-effecting calls moved (focal.dialogue.running_totals): a guard's cap "
                                          "holds on the conversation's total")
    slots: dict[str, Any] = Field(default_factory=dict)
    variables: dict[str, Any] = Field(default_factory=dict)
    rule_fire_counts: dict[str, int] = Field(default_factory=dict)
    rule_last_fired_turn: dict[str, int] = Field(default_factory=dict)
    clarification_counts: dict[str, int] = Field(default_factory=dict)
    offer: Offer | None = Field(default=None, description="resume an interrupted flow / start a flow, if the customer agrees")
    pending_approval_id: str | None = None
    retry: LookupRetry | None = Field(default=None, description="a look-up found nothing last turn: a new value for its "
                                      "slot runs the flow again (kept for one turn)")
    action_claims: dict[str, float] = Field(
        default_factory=dict,
        description="turn id → when it claimed the right to run its side effects (saved before they run, cleared at persist)",
    )
    history: list[HistoryEntry] = Field(default_factory=list)
    language: str | None = Field(default=None, description="the conversation's language, one the agent declares "
                                 "(focal.sensing.turn_language): kept for replies too short to tell")
    pii_carry: PiiCarry = Field(default_factory=PiiCarry, description="a card typed over several messages (focal.pii_carry)")
    turn_count: int = 0
    version: int = 0
    expires_at: int | None = None

    @field_validator("failed_identity_checks", mode="before")
    @classmethod
    def _unreadable_count(cls, value: Any) -> int:
        """A stored count that is not a count (corrupt, negative, a flag) is UNREADABLE: fail closed, as exhausted."""
        return value if type(value) is int and value >= 0 else UNREADABLE

    def remember(self, role: Literal["user", "assistant"], text: str, keep: int = 10) -> None:
        self.history.append(HistoryEntry(role=role, text=text))
        del self.history[:-keep]


class CustomerProfile(BaseModel):
    tenant_id: str
    agent_id: str
    customer_id: str
    schema_version: int = 1
    fields: dict[str, Any] = Field(default_factory=dict)
    version: int = 0
