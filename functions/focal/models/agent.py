"""The agent definition: everything a business describes as data (DESIGN.md §2).

Field names follow the seed documents; defaults are the seeds' defaults.
Cross-field checks (references, expressions) live in `focal.config.validate`, so that
`focal validate` can report every problem at once instead of stopping at the first.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator, model_validator
from pydantic.json_schema import GenerateJsonSchema, SkipJsonSchema
from pydantic_core import PydanticCustomError

from focal.models.engine_texts import check_overrides, english
from focal.models.translations import REFUSAL_PLACEHOLDER as REFUSAL_PLACEHOLDER  # read by the pre-validation
from focal.models.translations import LanguageTexts, plain_refusal_placeholders


# Every boolean setting is a StrictBool: YAML reads true/false (and unquoted yes/no/on/off) as booleans, and a
# quoted "off" is a text that lax parsing would silently turn into false; it is refused instead (config.hints).
class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Scope(str, Enum):
    GLOBAL = "GLOBAL"
    SCENARIO = "SCENARIO"
    STEP = "STEP"


FieldType = Literal["string", "integer", "number", "money", "percentage", "boolean", "enum", "date", "id", "entity_list"]
VariableSource = Literal["message", "response", "tool", "profile"]


def _all_sources() -> list[VariableSource]:
    return ["message", "response", "tool", "profile"]


class AmountWords(Strict):
    """The business words around a money or percentage amount an answer states (focal.enforcement.draft_reading).

    The engine knows only generic money talk (reimburse, credit, pay back, give you, the whole amount, a price, a fee,
    a total…); the words of a domain are given here, per field. Each entry is a plain word or phrase, matched
    case-insensitively as whole words (a space matches any run of spaces)."""

    verbs: list[str] = Field(
        default_factory=list,
        description="verbs that move this amount to the customer, also read as their nouns; matched as word starts (a verb "
        "'settle' also reads 'settles', 'settlement'): a cue, and 'a full <verb>', 'fully <verb>ed', '<verb> it', "
        "'<verb> the booking', 'the booking will be <verb>ed', 'half <verb> of it' promise a whole or a share",
    )
    purchases: list[str] = Field(
        default_factory=list,
        description="nouns for what the customer paid, beside the built-in purchase, payment and charge: 'the whole "
        "<noun>', '<noun> B-123' after a verb, 'the <noun> will be credited', 'half of your <noun>' promise its known "
        "amount; '… back <noun>s' is not money coming back",
    )
    other_roles: list[str] = Field(
        default_factory=list,
        description="words or phrases that give an amount in the answer another role than this field, beside the built-in "
        "price, cost, fee, charge, tax, total, paid, bought…: an amount in a clause without a cue, next to one of them, "
        "is attributed to that role (e.g. 'postage', 'service charge', 'bookings over')",
    )


class ProfileFieldDefinition(Strict):
    """A variable/profile field definition."""

    field_name: str = Field(description="the variable's name, as expressions, templates and tool arguments write it")
    display_name: str = Field(default="", description="a human-readable name")
    description: str = Field(default="", description="what the variable means (given to the model)")
    field_type: FieldType = Field(default="string", description="the value's type; checked on extraction")
    validation_rules: list[str] = Field(
        default_factory=list,
        description="simpleeval expressions over `value`, all of which must hold: a value from a message that fails one is "
        "not taken (as a slot it counts as an invalid attempt)",
    )
    extraction_hints: list[str] = Field(default_factory=list, description="keywords that anchor extraction")
    amount_words: AmountWords = Field(
        default_factory=AmountWords,
        description="money and percentage fields read from answers: the domain's verbs, purchase nouns and other amount "
        "roles around the amount (generic money talk is built in)",
    )
    date_side: Literal["either", "future", "past"] = Field(
        default="either",
        description="date fields: where from the turn's date a date the customer gives without its year or month lies. "
        "'future' (an arrival): the next such day, today included; 'past' (an incident): the latest, today included; "
        "'either': a day and month are the nearest such day within 120 days (further away the date is unknown), and a "
        "day of the month alone is the next one",
    )
    pattern: str | None = Field(default=None, description="regex for id-like values")
    allowed_values: list[str] = Field(default_factory=list, description="enum values or entity names")
    value_synonyms: dict[str, list[str]] = Field(
        default_factory=dict,
        description="enum and entity_list fields: other words customers use for an allowed value (water: [flood, leak, "
        "burst pipe]), read as whole words like the value itself, a refused one included ('not a flood')",
    )
    value_labels: dict[str, str] = Field(
        default_factory=dict,
        description="enum fields: how an allowed value is said to the customer wherever a text shows it (small_animal: "
        "rabbit or guinea pig); a value without a label is said with its underscores as spaces ('small animal'). A "
        "customer's answer in the label's words is read as the value",
    )
    sources: list[VariableSource] = Field(
        default_factory=_all_sources,
        description="where a value for this variable may come from",
    )
    persist_to_profile: StrictBool = Field(default=False, description="facts about the customer kept across sessions")
    privileged: StrictBool = Field(
        default=False,
        description="set only by tools or the profile store (e.g. is_premium, is_verified): never from what the customer "
        "says, what a model reads from it, or what the agent's own answer states, whatever `sources` lists",
    )
    pii: StrictBool = Field(
        default=False,
        description="personal data: the value is used in the turn that gives it but stored as '[redacted:<field>]' in "
        "sessions, turn records and episodes, and so are its occurrences in the stored text (focal.pii)",
    )
    default: Any = Field(default=None, description="value when no source provides one")
    prompt: str | None = Field(
        default=None, description="how to ask the customer for this variable when no tool can provide it ({name} reads a variable)"
    )

    @model_validator(mode="after")
    def _date_side_of_a_date(self) -> ProfileFieldDefinition:
        if self.date_side != "either" and self.field_type != "date":
            raise PydanticCustomError("date_side_not_date", "'date_side' is for date fields (field_type: date) only")
        return self

    def spoken(self, value: Any) -> Any:
        """How a value of this field is said to the customer: an enum's allowed value by its label (its underscores
        as spaces without one); any other value as it is."""
        if self.field_type != "enum" or not isinstance(value, str) or value not in self.allowed_values:
            return value
        return self.value_labels.get(value) or value.replace("_", " ")


class Rule(Strict):
    id: str = Field(description="the rule's id, unique within the agent")
    condition_text: str = Field(description="when the rule applies, in words (embedded and matched against each message)")
    examples: list[str] = Field(
        default_factory=list,
        description="customer messages that meet the condition, as customers write them: each is embedded and matched "
        "like the condition (the best of them counts). A few varied ones lift recall far more than a longer condition; "
        "an action guard (guarded_tool_ids) is matched on messages only through its examples",
    )
    action_text: str = Field(description="what the agent must do or never do when it applies")
    scope: Scope = Field(default=Scope.GLOBAL, description="where the rule applies: everywhere, in one scenario, or at one step")
    scope_id: str | None = Field(
        default=None,
        description="SCENARIO: a scenario id; STEP: 'scenario_id.step_id' (or a step id unique in the agent)",
    )
    is_hard_constraint: StrictBool = Field(
        default=False,
        description="checked on every answer (and tool call, with guarded_tool_ids); a violation blocks it",
    )
    enforcement_expression: str | None = Field(
        default=None,
        description="simpleeval expression over declared variables that must hold (e.g. refund_amount <= 50)",
    )
    subjective: StrictBool = Field(default=False, description="a hard constraint judged by the model instead of an expression")
    unverifiable: Literal["fail_closed", "mark_unverified"] | None = Field(
        default=None,
        description="subjective rules: what happens when nobody can judge it (no judge model, an error, a timeout), "
        "overriding enforcement.unverifiable_subjective for this rule — e.g. fail_closed for medical advice while a "
        "tone rule is only marked unverified",
    )
    attached_tool_ids: list[str] = Field(default_factory=list, description="tools run when the rule matches")
    guarded_tool_ids: list[str] = Field(
        default_factory=list,
        description="hard constraints only: the side-effecting tools this rule guards. Its expression is then evaluated on "
        "each call's exact arguments (argument names read the call's values, other names the session and profile) "
        "before the tool runs; a violation or an expression that cannot be evaluated stops the call. A guard is about "
        "the action and is not evaluated on the answer's text",
    )
    priority: int = Field(default=0, description="higher wins when excludes_rule_ids conflict and when ordering matched rules")
    enabled: StrictBool = Field(default=True, description="false: the rule is ignored (and leaves the index on the next sync)")
    max_fires_per_session: int = Field(default=0, ge=0, description="0 = unlimited")
    cooldown_turns: int = Field(default=0, ge=0, description="turns after firing before the rule may fire again (0 = none)")
    response_template: str | None = Field(default=None, description="what the offline composer says for this rule")
    fallback_text: str | None = Field(default=None, description="what to say instead when this rule blocks an answer")
    entails_rule_ids: list[str] = Field(default_factory=list, description="rules pulled in whenever this one matches")
    excludes_rule_ids: list[str] = Field(default_factory=list, description="lower-priority rules dropped whenever this one matches")
    depends_on_definitions: list[str] = Field(default_factory=list, description="field definitions this rule reads")
    required_variables: list[str] = Field(
        default_factory=list,
        description="variables this rule needs before it is answered (besides its expression's and template's names): "
        "resolved from the session, the profile, read-only tools that provide them, else asked",
    )


class Slot(Strict):
    name: str = Field(description="the variable the slot fills")
    type: FieldType = Field(default="string", description="the value's type")
    prompt: str = Field(description="how to ask the customer for it ({name} reads a variable)")
    validation: str | None = Field(default=None, description="simpleeval expression over `value`")
    required: StrictBool = Field(default=True, description="the step waits for this slot")


class Transition(Strict):
    target: str | None = Field(default=None, description="the step to go to, in the same scenario (not with escalate)")
    when: str | None = Field(default=None, description="simpleeval expression over session variables")
    escalate: StrictBool = Field(
        default=False,
        description="instead of a target: hand the conversation to a person when this transition is taken (the flow "
                    "ends and the agent's handoff_tool runs with conversation_summary, which says why), e.g. "
                    "{escalate: true, when: 'amount > 300', reason: 'above the limit for self-service'}")
    reason: str = Field(default="", description="escalate: why the conversation is handed over (given to the person in the summary)")

    @model_validator(mode="after")
    def _target_or_escalate(self) -> Transition:
        if self.escalate and self.target is not None:
            raise PydanticCustomError("transition_both", "a transition either goes to a 'target' or has 'escalate: true', not both")
        if not self.escalate and self.target is None:
            raise PydanticCustomError("transition_target_missing", "a transition needs a 'target' step (or 'escalate: true')")
        if self.reason and not self.escalate:
            raise PydanticCustomError("transition_reason", "'reason' is only for a transition with 'escalate: true'")
        return self


class Step(Strict):
    id: str = Field(description="the step's id, unique within its scenario")
    instructions: str = Field(default="", description="what the agent does at this step (given to the model)")
    slots: list[Slot] = Field(default_factory=list, description="values the step collects")
    transitions: list[Transition] = Field(
        default_factory=list, description="where the flow goes next, in order; the first that holds wins"
    )
    clarification_hint: str = Field(default="", description="how to ask again when the customer gave nothing the step can use")
    requires_confirmation: StrictBool = Field(default=False, description="ask the customer to confirm before the step's action runs")
    confirmation_prompt: str = Field(default="", description="the confirmation question ({name} reads a variable)")
    response_template: str = Field(default="", description="what the offline composer says at this step; {name} reads a variable")
    action: list[str] = Field(default_factory=list, description="tool ids run when the step completes")
    call: str | None = Field(
        default=None,
        description="a scenario run as this step's first part (e.g. verify_identity), written once and called from any "
                    "flow: the flow resumes here when it finishes, with the values it collected; cancelling it cancels "
                    "this flow too",
    )


class Scenario(Strict):
    id: str = Field(description="the scenario's id, unique within the agent")
    name: str = Field(description="a human-readable name")
    intent_label: str = Field(default="", description="the intent that enters it (default: its id)")
    entry_examples: list[str] = Field(default_factory=list, description="customer messages that start it (embedded; at least one)")
    steps: list[Step] = Field(description="the steps of the flow")
    entry_step_id: str = Field(description="the step the scenario starts at")


class ToolKind(str, Enum):
    python = "python"
    http = "http"
    # `lambda` is a Python keyword, hence the alias.
    lambda_ = "lambda"


class ToolParameter(Strict):
    type: FieldType = Field(default="string", description="the argument's type; checked before any call")
    required: StrictBool = Field(default=True, description="the call waits until this argument has a value")
    default: str | int | float | bool | None = Field(
        default=None, description="the value sent when the argument's variable is unknown (an empty string is a value)")
    description: str = Field(default="", description="what the argument means")


HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
HANDOFF_SUMMARY = "conversation_summary"  # built-in variable a handoff tool receives (dialogue.handoff)
ClaimKind = Literal["money", "percentage", "date", "id", "number", "entity"]


def _default_strict_kinds() -> list[ClaimKind]:
    return ["money", "percentage", "date", "id"]

# Which fields belong to which kind (any other kind must leave them unset).
_KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "entrypoint": ("python",),
    "method": ("http",),
    "url": ("http",),
    "body": ("http",),
    "headers": ("http",),
    "function": ("lambda",),
    "retries": ("http", "lambda"),
}
_KIND_REQUIRED = {"python": "entrypoint", "http": "url", "lambda": "function"}


class Tool(Strict):
    id: str = Field(description="the tool's id, unique within the agent")
    kind: ToolKind = Field(default=ToolKind.python, description="how the tool is called: python, http or lambda")
    # python
    entrypoint: str | None = Field(
        default=None, validate_default=True,
        description="python: 'file.py:function' inside the agent's folder (symlinks resolved; a plain def of that file); "
                    "'module:function' only for modules the deployment lists in FOCAL_TOOL_MODULES")
    # http
    method: HttpMethod | None = Field(default=None, validate_default=True, description="http: the HTTP method (GET when unset)")
    url: str | None = Field(
        default=None, validate_default=True,
        description="http: http(s) URL template; '{argument}' placeholders are URL-encoded. "
                    "GET/DELETE send the arguments not in the URL as query parameters")
    body: dict[str, Any] | None = Field(
        default=None, validate_default=True,
        description="http: JSON body; a value '{argument}' is that argument's typed value, other text is filled with placeholders, "
                    "anything else is a constant. Unset: POST/PUT/PATCH send every argument")
    headers: dict[str, str] = Field(
        default_factory=dict, validate_default=True,
        description="http: header → value; '${secret:NAME}' is read from the secret source, never logged")
    # lambda
    function: str | None = Field(
        default=None, validate_default=True,
        description="lambda: function name or ARN (optionally ':alias'), invoked with the arguments as JSON")
    # http and lambda
    retries: int = Field(
        default=0, ge=0, le=3, validate_default=True,
        description="extra attempts on timeout, 5xx / throttling or connection errors; never for side_effect tools unless idempotent")
    idempotent: StrictBool = Field(default=False, description="a side-effecting call that is safe to repeat (allows retries)")
    description: str = Field(default="", description="what the tool does (given to the model)")
    input: dict[str, ToolParameter] = Field(
        default_factory=dict,
        description="argument name → schema; values come from the variable of the same name unless `arguments` maps it")
    arguments: dict[str, str] = Field(
        default_factory=dict,
        description="argument name → the variable, or simpleeval expression over variables, it takes its value from "
                    "(e.g. {zip: new_zip}); unmapped arguments read the variable of their own name")
    output: dict[str, str] = Field(
        default_factory=dict,
        description="tool output key → session variable name; a value that does not fit the variable's declared type "
                    "fails the call and none of the answer is kept")
    found: str | None = Field(
        default=None,
        description="read-only tools: the key of `output` whose value says whether the tool found what its inputs name "
                    "(true: found). A step that asks to confirm, or acts, on what such a look-up did not find is never "
                    "offered: the flow says what was not found and ends")
    side_effect: StrictBool = Field(
        default=False,
        description="the call changes something (a payment, a booking): approval gates and guards apply, no retries unless idempotent",
    )
    deterministic: StrictBool = Field(default=True, description="the same arguments give the same output (raises confidence)")
    timeout_s: float = Field(default=5.0, gt=0, le=60, description="per attempt")

    @field_validator(*_KIND_FIELDS, mode="after")
    @classmethod
    def _kind_specific(cls, value: Any, info: ValidationInfo) -> Any:
        """Each kind names its own fields: say exactly which one is missing, or which does not belong."""
        kind = info.data.get("kind")
        if kind is None or info.field_name is None:
            return value  # the kind itself is invalid; that error is reported on its own
        kind_name, field = kind.value, info.field_name
        if _KIND_REQUIRED[kind_name] == field and not value:
            raise PydanticCustomError("tool_field_missing", "a tool of kind '{kind}' needs '{field}'", {"kind": kind_name, "field": field})
        if kind_name not in _KIND_FIELDS[field] and value not in (None, {}, 0):
            allowed = " and ".join(f"'{k}'" for k in _KIND_FIELDS[field])
            raise PydanticCustomError(
                "tool_field_kind", "'{field}' is only for tools of kind {allowed}, not '{kind}'",
                {"field": field, "allowed": allowed, "kind": kind_name},
            )
        return value

    @property
    def http_method(self) -> str:
        return self.method or "GET"

    @property
    def may_retry(self) -> bool:
        """Retries never repeat a side effect unless the tool says repeating is safe."""
        return not self.side_effect or self.idempotent


class NavigationConfig(Strict):
    stickiness_boost: float = Field(default=0.15, ge=0, le=1, description="how much an active scenario is favoured over a new intent")
    exit_intent_threshold: float = Field(default=0.85, ge=0, le=1,
        description="intent score another scenario needs to interrupt the active one",
    )
    entry_threshold: float = Field(default=0.55, ge=0, le=1, description="minimum intent score to start a scenario")
    max_clarifications_per_step: int = Field(default=2, ge=0,
        description="clarifying questions at one step before fallback_behavior applies",
    )
    fallback_behavior: Literal["clarify", "stay", "escalate"] = Field(
        default="clarify",
        description="what a step does after too many clarifications: clarify again, stay, or escalate to a human",
    )
    # Defaults calibrated on CLINC150's validation split by `focal bench intents` (never on test):
    # the out-of-scope threshold that costs ≤ 1 point of in-scope accuracy (0.43), and the widest
    # top-2 gap under which a guess is right at most half the time (0.125, with the intent head).
    ambiguity_margin: float = Field(default=0.125, ge=0, le=1, description="top-2 intents closer than this are ambiguous")
    clarify_floor: float = Field(
        default=0.43, ge=0, le=1, description="an intent scoring between this and entry_threshold is too weak to act on: ask"
    )
    intent_head_weight: float = Field(
        default=0.3, ge=0, le=1,
        description="weight of the intent classifier head trained on entry_examples (0 = nearest example only); "
        "the best scenario keeps its nearest-example cosine, the others lose weight × log(p_best / p)",
    )


class SensorConfig(Strict):
    fast_path: StrictBool = Field(default=True, description="skip the model call when the offline sensor is sure")
    fast_path_confidence: float = Field(
        default=0.75, ge=0, le=1, description="an intent must score at least this for the offline sensor to be sure"
    )
    act_similarity: float = Field(
        default=0.7, ge=0, le=1, description="similarity to the built-in dialogue-act exemplars that counts as that act"
    )
    no_intent_floor: float = Field(
        default=0.25, ge=0, le=1,
        description="outside a flow, with nothing pending and nothing read offline, a message whose best intent scores "
        "below this is about none of the scenarios: no sensor call (CLINC150 validation split, 5 examples per intent: "
        "0.7% of in-scope queries score below 0.25, 33% of out-of-scope ones; `focal bench floor`)",
    )


class RetrievalConfig(Strict):
    top_k: int = Field(default=10, ge=1, le=100, description="rules retrieved per message")
    rule_match_threshold: float = Field(default=0.25, ge=0, le=1,
        description="least calibrated similarity of a rule to the message for the rule to match: the cosine, after "
        "centring both on the model's background mean, of the message and the rule's best key (its condition_text, "
        "its condition_text followed by its action_text, or one of its examples), plus the words they share in "
        "character n-grams; unrelated texts score about 0. A rule that no other rule's example nor flow's entry "
        "example comes near matches down to the best score they reach on it, at most 0.1 lower",
    )
    rule_match_margin: float = Field(default=0.1, ge=0, le=1,
        description="a rule also matches only within this (or a quarter of the best rule's score, when larger) of the "
        "turn's best rule, and within this of the best entry example of any flow but the rule's own (a request "
        "that starts a flow is the flow's, not a rule's)",
    )
    model_filter: StrictBool = Field(
        default=False,
        description="with a model configured, one extra batched call judges which soft candidates truly apply before "
        "their attached tools run; off by default: the generation call is told each soft rule's condition and applies "
        "only those that hold, so no call is spent on it",
    )
    max_expansion_depth: int = Field(default=2, ge=0, le=5, description="hops of entails_rule_ids followed")


class MemoryConfig(Strict):
    """Episodic memory: earlier turns of the same customer that resemble the new message."""

    enabled: StrictBool = Field(default=True, description="recall earlier episodes of the same customer")
    recall_k: int = Field(default=3, ge=0, le=10, description="episodes a turn sees at most")
    scan_limit: int = Field(default=50, ge=1, le=500, description="newest episodes compared with the message")
    max_age_days: int = Field(default=90, ge=1, description="older episodes are forgotten (TTL)")
    min_similarity: float = Field(default=0.3, ge=0, le=1,
        description="least cosine similarity of an episode to the message to be recalled",
    )


_ALWAYS_ON = "hard constraints are always enforced: no switch turns them off (remove the key or set it to true)"


class EnforcementConfig(Strict):
    enabled: StrictBool = Field(default=True, description="must be true: " + _ALWAYS_ON)
    max_retries: int = Field(default=1, ge=0, le=5, description="regenerations of a blocked draft before the fallback answer")
    deterministic_enabled: StrictBool = Field(default=True, description="must be true: " + _ALWAYS_ON)
    llm_judge_enabled: StrictBool = Field(
        default=True, description="false: no judge call; subjective hard rules then block (or are marked unverified)")
    always_enforce_global: StrictBool = Field(default=True, description="must be true: " + _ALWAYS_ON)
    unverifiable_subjective: Literal["fail_closed", "mark_unverified"] = Field(
        default="fail_closed",
        description="a subjective hard rule nobody can judge (no judge model, a judge error or timeout): fail_closed "
        "blocks the answer; mark_unverified lets it through marked UNVERIFIED in the trace and the result",
    )

    @field_validator("enabled", "deterministic_enabled", "always_enforce_global")
    @classmethod
    def _always_on(cls, value: bool) -> bool:
        if value is not True:
            raise PydanticCustomError("enforcement_always_on", _ALWAYS_ON)
        return value
    relevance_check_enabled: StrictBool = Field(
        default=False, description="relevance: does a model-written answer address the message (and the step it answers)?"
    )
    relevance_threshold: float = Field(
        default=0.5, ge=0, le=1, description="the least relevance probability of the cross-encoder (relevance_model_dir)"
    )
    relevance_cosine_threshold: float = Field(
        default=0.3, ge=0, le=1,
        description="the least MiniLM cosine between the answer and its best query — the message, the routed texts, the "
        "agent's own texts or a conversational move (the default scorer, no model folder)",
    )
    relevance_off_topic_margin: float = Field(
        default=0.0, ge=0, le=1,
        description="the default scorer also fails an answer closer to unrelated content (a poem, a recipe, health or "
        "money advice, trivia, code) than to the conversation by more than this",
    )
    relevance_refusal_bypass: StrictBool = Field(
        default=True, description="refusals, 'I don't know', hand-offs, clarifying questions and the agent's own fallback texts pass"
    )
    relevance_refusal_similarity: float = Field(
        default=0.75, ge=0, le=1, description="an answer this similar (cosine) to a refusal exemplar counts as a refusal"
    )
    relevance_model_dir: str | None = Field(
        default=None,
        description="optional ONNX cross-encoder folder (model.onnx, tokenizer.json, config.json) used instead of the cosine",
    )
    figure_context_margin: float = Field(
        default=0.08, ge=0, le=1,
        description="a model's figure the agent's texts declare must be said for the fact they declare it for: its "
        "sentence must fit a passage of the agent's holding that value within this cosine of the passage it fits best "
        "(focal.enforcement.figure_context; always on, larger is more lenient)",
    )
    grounding_check_enabled: StrictBool = Field(
        default=False, description="grounding: every amount, number, date, id and name in the answer must come from the context"
    )
    grounding_threshold: float = Field(
        default=0.75, ge=0, le=1, description="the least share of the answer's claims the sources support (or NLI entailment)"
    )
    grounding_strict_kinds: list[ClaimKind] = Field(
        default_factory=_default_strict_kinds,
        description="claim kinds of which a single unsupported one fails the check, whatever the share",
    )
    grounding_model_dir: str | None = Field(
        default=None, description="optional ONNX NLI folder (model.onnx, tokenizer.json, config.json with an entailment label)"
    )
    grounding_judge_enabled: StrictBool = Field(
        default=True, description="with a model configured, one call re-checks only the claims the heuristic could not support"
    )
    fallback_message: str = Field(
        default=english("enforcement_fallback"),
        description="the answer when no compliant draft could be produced",
    )


class ApprovalConfig(Strict):
    execute_threshold: float = Field(default=0.85, ge=0, le=1, description="confidence at or above which an action runs at once")
    approval_threshold: float = Field(default=0.55, ge=0, le=1,
        description="confidence at or above which (and below execute_threshold) an action waits for a human approval; "
        "below it the agent asks",
    )
    timeout_seconds: int = Field(default=300, ge=1, description="seconds a pending approval request stays open")
    weights: dict[str, float] = Field(
        default_factory=lambda: {
            "goal_understanding": 0.30,
            "tool_availability": 0.30,
            "context_richness": 0.20,
            "tool_determinism": 0.20,
        },
        description="weight of each confidence factor (goal_understanding, tool_availability, context_richness, "
        "tool_determinism); they add up to 1",
    )


class PreValidationConfig(Strict):
    """Pre-validation. The master switches are `features.enabled` and `features.pre_validation`;
    `non_empty` always runs under them, every other check has its own flag here."""

    min_length: int = Field(default=1, ge=0, description="fewest characters of a message (check_length)")
    max_length: int = Field(default=2000, ge=1, description="most characters of a message (check_length)")
    refusal_message: str = Field(
        default=english("refusal"),
        description="said when a blocking check fails that refusal_messages has no text for",
    )
    refusal_messages: dict[str, str] = Field(
        default_factory=lambda: {
            check: english(f"refusal_{check}")
            for check in ("non_empty", "too_long", "too_short", "dangerous_content", "prompt_injection")
        },
        description="what the customer is told per failed blocking check (non_empty, too_long, too_short, "
                    "dangerous_content, prompt_injection; {max_length}, {min_length} and {kinds} are filled in); "
                    "never the message itself. Keys given here replace those defaults one by one",
    )

    _plain_placeholders = field_validator("refusal_messages", mode="after")(plain_refusal_placeholders)

    check_length: StrictBool = Field(default=True, description="length_bounds: min_length ≤ characters ≤ max_length")
    check_dangerous_content: StrictBool = Field(
        default=True, description="dangerous_content: shell, SQL, script, template and path-traversal payloads"
    )
    check_injection: StrictBool = Field(
        default=True, description="prompt_injection: heuristics, jailbreak vocabulary, exemplar similarity, the shipped "
                                  "classifier on the embedding and the optional ONNX classifier"
    )
    check_context_completeness: StrictBool = Field(
        default=True, description="context_completeness (non-blocking): a message that needs history the session lacks"
    )
    injection_similarity_threshold: float = Field(
        default=0.6, ge=0, le=1,
        description="cosine to the closest attack exemplar that counts as an attack (with the margin below); the default "
                    "is the one chosen with the injection classifier on a validation split "
                    "(`python -m focal.bench.injection_training`)",
    )
    injection_similarity_margin: float = Field(
        default=0.15, ge=0, le=1, description="the closest attack exemplar must beat the closest ordinary one by this much"
    )
    injection_classifier_dir: str | None = Field(
        default=None, description="folder with model.onnx + tokenizer.json of an optional injection classifier"
    )
    injection_classifier_threshold: float = Field(
        default=0.5, ge=0, le=1,
        description="probability that counts as an attack for the optional ONNX classifier of injection_classifier_dir "
                    "only; the shipped classifiers (English and multilingual) carry the thresholds chosen with their "
                    "training data, which an agent file does not change (no setting lowers enforcement)"
    )
    injection_signal_count: int = Field(
        default=2, ge=0, le=9,
        description="kinds of jailbreak talk (persona, restrictions, never-refuse demands, answer control…; English) one "
                    "message must combine to count as an attack; 0 turns this check off. Chosen with the injection "
                    "classifier on a validation split (`python -m focal.bench.injection_training`)",
    )
    extra_attack_exemplars: list[str] = Field(
        default_factory=list,
        description="attack phrasings specific to this agent's domain (e.g. talking a limit away), added to the shipped "
                    "generic exemplars of the injection similarity check",
    )
    extra_ordinary_exemplars: list[str] = Field(
        default_factory=list,
        description="ordinary requests of this agent's domain, added to the shipped generic contrast set: a message must be "
                    "closer to an attack exemplar than to every ordinary one by injection_similarity_margin",
    )
    context_questions: list[str] = Field(
        default_factory=lambda: [english("details_again")],
        description="asked after the topic question when a message refers to earlier conversation this session lacks "
                    "(context_completeness); name the things this agent's customers usually refer to",
    )


class FeatureFlags(Strict):
    enabled: StrictBool = Field(default=True, description="master switch of the features below")
    pre_validation: StrictBool = Field(default=True, description="run pre_validation on each message")
    graded_confidence: StrictBool = Field(default=True, description="compute the graded confidence of each turn")
    approval_gates: StrictBool = Field(default=True, description="gate side-effecting tools by confidence (approval)")
    clarification: StrictBool = Field(default=True, description="ask a clarifying question when the message is ambiguous")


class ModelSettings(Strict):
    model: str | None = Field(default=None, description="litellm model name; FOCAL_MODEL overrides")
    temperature: float = Field(default=0.0, ge=0, le=2, description="sampling temperature of every model call")
    timeout_s: float = Field(default=20.0, gt=0, le=60,
        description="seconds per attempt; never more than the turn's time left (FOCAL_MODEL_TIMEOUT_S overrides, for slow local models)")
    retries: int = Field(default=1, ge=0, le=3, description="retries with backoff on timeouts, 5xx and throttling only")
    turn_budget_s: float = Field(
        default=20.0, gt=0, le=25,
        description="wall-clock seconds a turn may spend from the sensor on (API Gateway stops waiting at 29 s); "
                    "once spent, optional model calls are skipped and the turn answers degraded (model_budget); "
                    "FOCAL_TURN_BUDGET_S overrides it (up to an hour for slow local models; at most 25 s in a Lambda)")
    rephrase_fixed_texts: StrictBool = Field(
        default=False,
        description="let the model reword answers the agent's own texts already give (a slot's prompt, a clarification, "
                    "the out-of-scope text, a hand-off, an approval notice); off: those are said as written, no generation call")


class AgentConfig(Strict):
    id: str = Field(description="the agent's id, unique within a tenant (the API's agent_id)")
    name: str = Field(description="the agent's display name")
    version: int = Field(default=1, description="version of this definition (bump it when publishing a change)")
    description: str = Field(default="", description="what the agent is for (documentation only)")
    persona: str = Field(default="You are a helpful customer service agent.", description="the system persona the model writes as")
    profile_schema_version: int = Field(
        default=1,
        description="version of profile_field_definitions; stored profiles are migrated when it changes",
    )
    profile_field_definitions: list[ProfileFieldDefinition] = Field(default_factory=list,
        description="the variables rules, steps and tools talk about (profile fields, slots' types, tool arguments)",
    )
    rules: list[Rule] = Field(default_factory=list,
        description="the rules the agent follows; hard constraints are enforced on every answer",
    )
    scenarios: list[Scenario] = Field(default_factory=list,
        description="multi-step flows (rebook, change address, ...) entered by intent",
    )
    tools: list[Tool] = Field(default_factory=list, description="tools steps and rules may run (python, http or lambda)")
    handoff_tool: str | None = Field(
        default=None,
        description="the tool that hands the conversation to a person: run whenever the agent escalates (the customer "
                    "asks for a human, or a step gives up), with the built-in variable conversation_summary",
    )
    tools_without_guard: Literal["allow", "deny"] = Field(
        default="allow",
        description="deny: a tool, reads included, runs only where a guard in scope permits it (every call of a tool "
                    "with no guard in scope is blocked); allow: a tool with no guard runs when its step or rule calls it",
    )
    navigation: NavigationConfig = Field(default_factory=NavigationConfig, description="how scenarios are entered, kept and left")
    sensor: SensorConfig = Field(default_factory=SensorConfig,
        description="the offline reading of a message and when the model is skipped",
    )
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig, description="how rules are retrieved for a message")
    memory: MemoryConfig = Field(default_factory=MemoryConfig, description="recall of the customer's earlier conversations")
    enforcement: EnforcementConfig = Field(default_factory=EnforcementConfig,
        description="checking every answer before the customer sees it",
    )
    approval: ApprovalConfig = Field(default_factory=ApprovalConfig, description="the confidence gate before side-effecting tools run")
    pre_validation: PreValidationConfig = Field(default_factory=PreValidationConfig,
        description="checks of the customer's message before anything else runs",
    )
    features: FeatureFlags = Field(default_factory=FeatureFlags, description="feature switches")
    models: ModelSettings = Field(default_factory=ModelSettings,
        description="the model used for understanding, generation and judging (none: offline)",
    )
    greeting: str = Field(
        default=english("greeting"),
        description="the agent's first message (shown by `focal chat` and the playground)",
    )
    out_of_scope_message: str = Field(
        default=english("out_of_scope"),
        description="the answer to a message no scenario or rule covers",
    )
    languages: list[str] = Field(
        default_factory=lambda: ["en"],
        description="ISO 639-1 codes of the languages the agent answers in, its own texts' language first; each turn is "
        "read in the declared language the customer writes (kept for short replies), answered with `translations` "
        "and matched in the multilingual space when it is not English; a message clearly in another language (a "
        "stopword test offline, focal.sensing.language) gets a polite notice naming these, never a guess from the menu",
    )
    translations: dict[str, LanguageTexts] = Field(
        default_factory=dict,
        description="language code → the agent's customer-facing texts in that language, by the ids of this file "
        "(greeting, out_of_scope_message, scenarios' names, examples and step texts, rules' templates, fallback texts "
        "and examples, fields' prompts, tools' descriptions); a text not given is said as written",
    )
    engine_texts: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language code → engine text key → the agent's own wording of a text the engine says itself (a "
        "hand-off, a clarification, a refusal, 'I didn't quite understand.'; the keys and the engine's en/es/de/fr "
        "versions: focal/models/data/engine_texts.json); a text not given is said in the engine's words, in the "
        "customer's language",
    )
    _engine_texts = field_validator("engine_texts", mode="after")(check_overrides)
    demo_messages: list[str] = Field(
        default_factory=lambda: ["Hi there", "What can you help me with?", "Could I speak to a human about it?"],
        description="the customer's messages `focal demo` (and `make run`) plays, in turn, in one session; name this "
        "agent's own requests",
    )

    # Not part of the file: where the file lives, so tool entrypoints resolve relative to it.
    base_dir: SkipJsonSchema[str | None] = Field(default=None, exclude=True)

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def scenario(self, scenario_id: str | None) -> Scenario | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)

    def flow_of_intent(self, label: str | None) -> str | None:
        """The id of the scenario an intent label names (its `intent_label`, or its id)."""
        return next((s.id for s in self.scenarios if s.intent_label == label or s.id == label), None) if label else None

    def step(self, scenario_id: str | None, step_id: str | None) -> Step | None:
        scenario = self.scenario(scenario_id)
        if scenario is None:
            return None
        return next((s for s in scenario.steps if s.id == step_id), None)

    def tool(self, tool_id: str) -> Tool | None:
        return next((t for t in self.tools if t.id == tool_id), None)

    def field(self, name: str) -> ProfileFieldDefinition | None:
        return next((f for f in self.profile_field_definitions if f.field_name == name), None)

    def feature_on(self, flag: str) -> bool:
        """The hierarchy: a feature is on only when the master switch `features.enabled` is too."""
        return bool(self.features.enabled and getattr(self.features, flag))

    def global_hard_constraints(self) -> list[Rule]:
        return [r for r in self.rules if r.enabled and r.scope == Scope.GLOBAL and r.is_hard_constraint]


SCHEMA_ID = "urn:focal:schema:agent-file:1"


class _WithFactoryDefaults(GenerateJsonSchema):
    """Pydantic leaves out the defaults its fields compute (lists, mappings, nested settings); an editor's hover and the
    generated reference should show them like any other default."""

    def default_schema(self, schema: Any) -> Any:
        factory = schema.get("default_factory")
        if factory is not None and not schema.get("default_factory_takes_data"):
            schema = {k: v for k, v in schema.items() if k not in ("default_factory", "default_factory_takes_data")}
            schema["default"] = factory()
        return super().default_schema(schema)


def agent_json_schema() -> dict[str, Any]:
    """The agent file's JSON Schema (draft 2020-12) for editors: `$schema`, `$id`, every property described, and the
    default of every optional property."""
    schema = AgentConfig.model_json_schema(schema_generator=_WithFactoryDefaults)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID, **schema}
