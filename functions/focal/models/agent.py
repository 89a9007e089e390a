"""The agent definition: everything a business describes as data (DESIGN.md §2).

Field names follow the seed documents; defaults are the seeds' defaults.
Cross-field checks (references, expressions) live in `focal.config.validate`, so that
`focal validate` can report every problem at once instead of stopping at the first.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator
from pydantic_core import PydanticCustomError


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


class Scope(str, Enum):
    GLOBAL = "GLOBAL"
    SCENARIO = "SCENARIO"
    STEP = "STEP"


FieldType = Literal["string", "integer", "number", "money", "percentage", "boolean", "enum", "date", "id", "entity_list"]
VariableSource = Literal["message", "response", "tool", "profile"]


class ProfileFieldDefinition(Strict):
    """A variable/profile field definition ("definitions" of seed 002)."""

    field_name: str
    display_name: str = ""
    description: str = ""
    field_type: FieldType = "string"
    validation_rules: list[str] = Field(default_factory=list, description="simpleeval expressions over `value`")
    extraction_hints: list[str] = Field(default_factory=list, description="keywords that anchor extraction")
    pattern: str | None = Field(default=None, description="regex for id-like values")
    allowed_values: list[str] = Field(default_factory=list, description="enum values or entity names")
    sources: list[VariableSource] = Field(
        default_factory=lambda: ["message", "response", "tool", "profile"],
        description="where a value for this variable may come from",
    )
    persist_to_profile: bool = Field(default=False, description="facts about the customer kept across sessions")
    privileged: bool = Field(
        default=False,
        description="set only by tools or the profile store (e.g. is_premium, is_verified): never from what the customer "
        "says, what a model reads from it, or what the agent's own answer states, whatever `sources` lists",
    )
    pii: bool = Field(
        default=False,
        description="personal data: the value is used in the turn that gives it but stored as '[redacted:<field>]' in "
        "sessions, turn records and episodes, and so are its occurrences in the stored text (focal.pii)",
    )
    default: Any = Field(default=None, description="value when no source provides one")
    prompt: str | None = Field(
        default=None, description="how to ask the customer for this variable when no tool can provide it ({name} reads a variable)"
    )


class Rule(Strict):
    id: str
    condition_text: str
    action_text: str
    scope: Scope = Scope.GLOBAL
    scope_id: str | None = None
    is_hard_constraint: bool = False
    enforcement_expression: str | None = None
    subjective: bool = False
    attached_tool_ids: list[str] = Field(default_factory=list)
    guarded_tool_ids: list[str] = Field(
        default_factory=list,
        description="hard constraints only: the side-effecting tools this rule guards. Its expression is then evaluated on "
        "each call's exact arguments (argument names read the call's values, other names the session and profile) "
        "before the tool runs; a violation or an expression that cannot be evaluated stops the call. A guard is about "
        "the action and is not evaluated on the answer's text",
    )
    priority: int = 0
    enabled: bool = True
    max_fires_per_session: int = Field(default=0, ge=0, description="0 = unlimited")
    cooldown_turns: int = Field(default=0, ge=0)
    response_template: str | None = Field(default=None, description="what the offline composer says for this rule")
    fallback_text: str | None = None
    entails_rule_ids: list[str] = Field(default_factory=list)
    excludes_rule_ids: list[str] = Field(default_factory=list)
    depends_on_definitions: list[str] = Field(default_factory=list)
    required_variables: list[str] = Field(
        default_factory=list,
        description="variables this rule needs before it is answered (besides its expression's and template's names): "
        "resolved from the session, the profile, read-only tools that provide them, else asked",
    )


class Slot(Strict):
    name: str
    type: FieldType = "string"
    prompt: str
    validation: str | None = Field(default=None, description="simpleeval expression over `value`")
    required: bool = True


class Transition(Strict):
    target: str
    condition_text: str = ""
    examples: list[str] = Field(default_factory=list)
    when: str | None = Field(default=None, description="simpleeval expression over session variables")


class Step(Strict):
    id: str
    instructions: str = ""
    slots: list[Slot] = Field(default_factory=list)
    transitions: list[Transition] = Field(default_factory=list)
    clarification_hint: str = ""
    requires_confirmation: bool = False
    confirmation_prompt: str = ""
    response_template: str = Field(default="", description="what the offline composer says at this step; {name} reads a variable")
    action: list[str] = Field(default_factory=list, description="tool ids run when the step completes")


class Scenario(Strict):
    id: str
    name: str
    intent_label: str = ""
    entry_examples: list[str] = Field(default_factory=list)
    steps: list[Step]
    entry_step_id: str


class ToolKind(str, Enum):
    python = "python"
    http = "http"
    # `lambda` is a Python keyword, hence the alias.
    lambda_ = "lambda"


class ToolParameter(Strict):
    type: FieldType = "string"
    required: bool = True
    description: str = ""


HttpMethod = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]

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
    id: str
    kind: ToolKind = ToolKind.python
    # python
    entrypoint: str | None = Field(default=None, validate_default=True, description="python: 'file.py:function' inside the agent's folder (symlinks resolved; a plain def of that file); 'module:function' only for modules the deployment lists in FOCAL_TOOL_MODULES")
    # http
    method: HttpMethod | None = Field(default=None, validate_default=True, description="http: the HTTP method (GET when unset)")
    url: str | None = Field(default=None, validate_default=True, description="http: http(s) URL template; '{argument}' placeholders are URL-encoded. GET/DELETE send the arguments not in the URL as query parameters")
    body: dict[str, Any] | None = Field(default=None, validate_default=True, description="http: JSON body; a value '{argument}' is that argument's typed value, other text is filled with placeholders, anything else is a constant. Unset: POST/PUT/PATCH send every argument")
    headers: dict[str, str] = Field(default_factory=dict, validate_default=True, description="http: header → value; '${secret:NAME}' is read from the secret source, never logged")
    # lambda
    function: str | None = Field(default=None, validate_default=True, description="lambda: function name or ARN (optionally ':alias'), invoked with the arguments as JSON")
    # http and lambda
    retries: int = Field(default=0, ge=0, le=3, validate_default=True, description="extra attempts on timeout, 5xx / throttling or connection errors; never for side_effect tools unless idempotent")
    idempotent: bool = Field(default=False, description="a side-effecting call that is safe to repeat (allows retries)")
    description: str = ""
    input: dict[str, ToolParameter] = Field(default_factory=dict, description="argument name → schema; values come from variables of the same name")
    output: dict[str, str] = Field(default_factory=dict, description="tool output key → session variable name")
    side_effect: bool = False
    deterministic: bool = True
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
    stickiness_boost: float = Field(default=0.15, ge=0, le=1)
    exit_intent_threshold: float = Field(default=0.85, ge=0, le=1)
    entry_threshold: float = Field(default=0.55, ge=0, le=1, description="minimum intent score to start a scenario")
    min_transition_score: float = Field(default=0.3, ge=0, le=1)
    max_clarifications_per_step: int = Field(default=2, ge=0)
    fallback_behavior: Literal["clarify", "stay", "escalate"] = "clarify"
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
    fast_path: bool = Field(default=True, description="skip the model call when the offline sensor is sure")
    fast_path_confidence: float = Field(
        default=0.75, ge=0, le=1, description="an intent must score at least this for the offline sensor to be sure"
    )
    act_similarity: float = Field(
        default=0.7, ge=0, le=1, description="similarity to the built-in dialogue-act exemplars that counts as that act"
    )


class RetrievalConfig(Strict):
    top_k: int = Field(default=10, ge=1, le=100)
    rule_match_threshold: float = Field(default=0.55, ge=0, le=1)
    model_filter: bool = Field(
        default=False,
        description="with a model configured, one extra batched call judges which soft candidates truly apply before "
        "their attached tools run; off by default: the generation call is told each soft rule's condition and applies "
        "only those that hold, so no call is spent on it",
    )
    max_expansion_depth: int = Field(default=2, ge=0, le=5, description="hops of entails_rule_ids followed")


class MemoryConfig(Strict):
    """Episodic memory: earlier turns of the same customer that resemble the new message."""

    enabled: bool = True
    recall_k: int = Field(default=3, ge=0, le=10, description="episodes a turn sees at most")
    scan_limit: int = Field(default=50, ge=1, le=500, description="newest episodes compared with the message")
    max_age_days: int = Field(default=90, ge=1, description="older episodes are forgotten (TTL)")
    min_similarity: float = Field(default=0.3, ge=0, le=1)


_ALWAYS_ON = "hard constraints are always enforced: no switch turns them off (remove the key or set it to true)"


class EnforcementConfig(Strict):
    enabled: bool = Field(default=True, description="must be true: " + _ALWAYS_ON)
    max_retries: int = Field(default=1, ge=0, le=5)
    deterministic_enabled: bool = Field(default=True, description="must be true: " + _ALWAYS_ON)
    llm_judge_enabled: bool = Field(
        default=True, description="false: no judge call; subjective hard rules then block (or are marked unverified)")
    always_enforce_global: bool = Field(default=True, description="must be true: " + _ALWAYS_ON)
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
    relevance_check_enabled: bool = Field(
        default=False, description="relevance: does a model-written answer address the message (and the step it answers)?"
    )
    relevance_threshold: float = Field(
        default=0.5, ge=0, le=1, description="the least relevance probability of the cross-encoder (relevance_model_dir)"
    )
    relevance_cosine_threshold: float = Field(
        default=0.3, ge=0, le=1,
        description="the least MiniLM cosine between the answer and its best query (the default scorer, no model folder)",
    )
    relevance_refusal_bypass: bool = Field(
        default=True, description="refusals, 'I don't know', hand-offs, clarifying questions and the agent's own fallback texts pass"
    )
    relevance_refusal_similarity: float = Field(
        default=0.75, ge=0, le=1, description="an answer this similar (cosine) to a refusal exemplar counts as a refusal"
    )
    relevance_model_dir: str | None = Field(
        default=None,
        description="optional ONNX cross-encoder folder (model.onnx, tokenizer.json, config.json) used instead of the cosine",
    )
    grounding_check_enabled: bool = Field(
        default=False, description="grounding: every amount, number, date, id and name in the answer must come from the context"
    )
    grounding_threshold: float = Field(
        default=0.75, ge=0, le=1, description="the least share of the answer's claims the sources support (or NLI entailment)"
    )
    grounding_strict_kinds: list[Literal["money", "percentage", "date", "id", "number", "entity"]] = Field(
        default_factory=lambda: ["money", "percentage", "date", "id"],
        description="claim kinds of which a single unsupported one fails the check, whatever the share",
    )
    grounding_model_dir: str | None = Field(
        default=None, description="optional ONNX NLI folder (model.onnx, tokenizer.json, config.json with an entailment label)"
    )
    grounding_judge_enabled: bool = Field(
        default=True, description="with a model configured, one call re-checks only the claims the heuristic could not support"
    )
    fallback_message: str = "I'm sorry, I can't help with that right now. A member of our team can follow up with you."


class ApprovalConfig(Strict):
    execute_threshold: float = Field(default=0.85, ge=0, le=1)
    approval_threshold: float = Field(default=0.55, ge=0, le=1)
    timeout_seconds: int = Field(default=300, ge=1)
    weights: dict[str, float] = Field(
        default_factory=lambda: {
            "goal_understanding": 0.30,
            "tool_availability": 0.30,
            "context_richness": 0.20,
            "tool_determinism": 0.20,
        }
    )


class PreValidationConfig(Strict):
    """Seed 004 pre-validation. The master switches are `features.enabled` and `features.pre_validation`;
    `non_empty` always runs under them, every other check has its own flag here."""

    min_length: int = Field(default=1, ge=0)
    max_length: int = Field(default=2000, ge=1)
    refusal_message: str = "I can't process that message. Could you rephrase your request?"
    check_length: bool = Field(default=True, description="length_bounds: min_length ≤ characters ≤ max_length")
    check_dangerous_content: bool = Field(
        default=True, description="dangerous_content: shell, SQL, script, template and path-traversal payloads"
    )
    check_injection: bool = Field(
        default=True, description="prompt_injection: heuristics, exemplar similarity and the optional classifier"
    )
    check_context_completeness: bool = Field(
        default=True, description="context_completeness (non-blocking): a message that needs history the session lacks"
    )
    injection_similarity_threshold: float = Field(
        default=0.6, ge=0, le=1,
        description="cosine to the closest attack exemplar that counts as an attack (with the margin below)",
    )
    injection_similarity_margin: float = Field(
        default=0.1, ge=0, le=1, description="the closest attack exemplar must beat the closest ordinary one by this much"
    )
    injection_classifier_dir: str | None = Field(
        default=None, description="folder with model.onnx + tokenizer.json of an optional injection classifier"
    )
    injection_classifier_threshold: float = Field(
        default=0.5, ge=0, le=1, description="classifier probability that counts as an attack"
    )


class FeatureFlags(Strict):
    enabled: bool = True
    pre_validation: bool = True
    graded_confidence: bool = True
    approval_gates: bool = True
    clarification: bool = True


class ModelSettings(Strict):
    model: str | None = Field(default=None, description="litellm model name; FOCAL_MODEL overrides")
    temperature: float = Field(default=0.0, ge=0, le=2)
    timeout_s: float = Field(default=20.0, gt=0)


class AgentConfig(Strict):
    id: str
    name: str
    version: int = 1
    description: str = ""
    persona: str = "You are a helpful customer service agent."
    profile_schema_version: int = 1
    profile_field_definitions: list[ProfileFieldDefinition] = Field(default_factory=list)
    rules: list[Rule] = Field(default_factory=list)
    scenarios: list[Scenario] = Field(default_factory=list)
    tools: list[Tool] = Field(default_factory=list)
    navigation: NavigationConfig = Field(default_factory=NavigationConfig)
    sensor: SensorConfig = Field(default_factory=SensorConfig)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    enforcement: EnforcementConfig = Field(default_factory=EnforcementConfig)
    approval: ApprovalConfig = Field(default_factory=ApprovalConfig)
    pre_validation: PreValidationConfig = Field(default_factory=PreValidationConfig)
    features: FeatureFlags = Field(default_factory=FeatureFlags)
    models: ModelSettings = Field(default_factory=ModelSettings)
    greeting: str = "Hello! How can I help you today?"
    out_of_scope_message: str = "I can help with the topics this service covers. What would you like to do?"

    # Not part of the file: where the file lives, so tool entrypoints resolve relative to it.
    base_dir: str | None = Field(default=None, exclude=True)

    def rule(self, rule_id: str) -> Rule | None:
        return next((r for r in self.rules if r.id == rule_id), None)

    def scenario(self, scenario_id: str | None) -> Scenario | None:
        return next((s for s in self.scenarios if s.id == scenario_id), None)

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
        """Seed 004's hierarchy: a feature is on only when the master switch `features.enabled` is too."""
        return bool(self.features.enabled and getattr(self.features, flag))

    def global_hard_constraints(self) -> list[Rule]:
        return [r for r in self.rules if r.enabled and r.scope == Scope.GLOBAL and r.is_hard_constraint]
