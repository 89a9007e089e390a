"""One Focal stack per tenant environment: API → EXPRESS state machine → one Lambda per stage.

Deployment options come from CDK context (focal_infra/options.py). The API is built in api.py, the
model access (litellm layer, Bedrock / provider key) in models_access.py, alarms and the dashboard
in operations.py, the stack outputs in outputs.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from aws_cdk import ArnFormat, Duration, RemovalPolicy, Stack
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_stepfunctions as sfn
from constructs import Construct

from focal.turn.definition import FALLBACK_HANDLER, STAGES
from focal_infra import models_access, operations, outputs, roles
from focal_infra.acknowledged import acknowledge_warning
from focal_infra.api import build_api
from focal_infra.approval_workflow import ApprovalWorkflow
from focal_infra.assets import ARCHITECTURE, RUNTIME, auth_layer, deps_layer, function_code, llm_layer, models_layer
from focal_infra.multilingual_weights import MultilingualWeights, embeds_multilingually
from focal_infra.options import TENANT_PATTERN, Options, options_from_context, tenant_from_context
from focal_infra.state_machine import TurnPipeline

__all__ = ["FocalStack", "tenant_from_context"]
LOG_RETENTION = logs.RetentionDays.ONE_MONTH
AUTHORIZER_HANDLER = "handlers.authorizer.handler"
PUBLISH_HANDLER = "handlers.agents.handler"
APPROVALS_HANDLER = "handlers.approvals.handler"
APPROVAL_WAIT_HANDLER = "handlers.approval_wait.handler"
APPROVAL_TIMEOUT_HANDLER = "handlers.approval_timeout.handler"
ALIAS = "live"  # the SnapStart-published version the state machine and the API invoke
SNAPSTART_WARNING = "@aws-cdk/aws-lambda:snapStartRequirePublish"
SNAPSTART_PUBLISHED = (f"Every SnapStart function publishes its version (`current_version`) behind the `{ALIAS}` alias, "
                       "and the state machine and the API invoke only that alias, never $LATEST.")

OPENSEARCH_READ = ("es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost")
# Publishing creates the index (PUT), bulk-upserts and deletes (POST _bulk), reads digests (GET/POST).
OPENSEARCH_WRITE = ("es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost", "es:ESHttpPut")


@dataclass(frozen=True)
class FunctionProfile:
    memory_mb: int
    timeout_s: int
    models: bool = False  # the ONNX models layer (the stages that embed)
    # The litellm layer, the model settings and permissions: derived from the code (models_access.py).
    snap_start: bool = False  # invoked through the `live` alias of a SnapStart-published version
    # Tables, event bus, approval workflow and tool reach: derived from the code too (focal_infra/roles.py).


# Memory: CPU share is proportional to memory (1 vCPU at 1,769 MB), and a cold start's imports run on it.
# Every stage that embeds or may call a model gets 1,024 MB at least (models_access.MIN_MODEL_MEMORY_MB).
PROFILES: dict[str, FunctionProfile] = {
    "sensor": FunctionProfile(1536, 20, models=True, snap_start=True),
    "retrieve": FunctionProfile(1024, 10, models=True, snap_start=True),
    "route": FunctionProfile(1024, 10, snap_start=True),
    "tools": FunctionProfile(512, 20, snap_start=True),
    "generate": FunctionProfile(1024, 25, snap_start=True),
    "enforce": FunctionProfile(1536, 25, models=True, snap_start=True),
    "persist": FunctionProfile(512, 10, snap_start=True),
}
FALLBACK_PROFILE = FunctionProfile(512, 10, snap_start=True)
PUBLISH_PROFILE = FunctionProfile(1024, 29, models=True)
# POST /v1/approvals/{approval_id}: approving runs the tools, then generate and enforce, and saves the session.
APPROVALS_PROFILE = FunctionProfile(1536, 29, models=True, snap_start=True)
# 1,024 MB: the approval workflow's own functions import the engine (pydantic models, boto3) at init and stay
# far from Lambda's 10 s init limit.
APPROVAL_STEP_PROFILE = FunctionProfile(1024, 10)


def _title(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]", name) if part)


class FocalStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, *, tenant: str, options: Options | None = None,
                 **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        if not TENANT_PATTERN.fullmatch(tenant):
            raise ValueError(f"invalid tenant {tenant!r}")
        self.tenant = tenant
        self.options = options or options_from_context(self, tenant)
        self.aliases: dict[str, lambda_.Alias] = {}  # function name → its `live` alias (SnapStart)
        self.handlers: dict[str, tuple[lambda_.Function, str]] = {}  # function name → (function, Lambda handler)
        self._use_weights: MultilingualWeights | None = None  # the S3 asset, made for the first function needing it

        # --- Tables (tenant data: retained) -------------------------------------------------
        self.tables: dict[str, dynamodb.Table] = {
            "sessions": self._table("SessionsTable", ttl=True),
            "profiles": self._table("ProfilesTable"),
            "turns": self._table("TurnsTable", sort_key=True, ttl=True),
            "config": self._table("AgentConfigTable"),
            # Turn claims of turn ids (focal.turn.idempotency, adapters/dynamodb_idempotency.py): `pk` =
            # TENANT#<t>#TURN#<hash>, TTL `expires_at`.
            "idempotency": self._table("IdempotencyTable", ttl=True),
        }
        self.api_keys_table = self._table("ApiKeysTable")

        # --- Code and layers ------------------------------------------------------------------
        code = function_code()
        self.layers = {
            "deps": deps_layer(self, "DepsLayer"),
            "models": models_layer(self, "ModelsLayer"),
            "llm": llm_layer(self, "LlmLayer"),
            # PyJWT (focal.customer_tokens): the authorizer verifies customer tokens, and focal.auth, which imports
            # it, is imported by the API handlers, the fallback and (through focal.dialogue.ownership) the stages.
            "auth": auth_layer(self, "AuthLayer"),
        }
        environment = {
            "FOCAL_STORE": "dynamodb",
            "FOCAL_CONFIG_SOURCE": "dynamodb",
            "FOCAL_SESSIONS_TABLE": self.tables["sessions"].table_name,
            "FOCAL_PROFILES_TABLE": self.tables["profiles"].table_name,
            "FOCAL_TURNS_TABLE": self.tables["turns"].table_name,
            "FOCAL_CONFIG_TABLE": self.tables["config"].table_name,
            "FOCAL_IDEMPOTENCY_TABLE": self.tables["idempotency"].table_name,
            "FOCAL_AGENTS_ROOT": "agents",
            "FOCAL_MODEL_DIR": "/opt/models",
            "FOCAL_TENANT": tenant,
            "POWERTOOLS_SERVICE_NAME": "focal",
            "POWERTOOLS_METRICS_NAMESPACE": operations.metrics_namespace(tenant),  # the dashboard reads it
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "HF_HUB_OFFLINE": "1",
            # numpy's BLAS thread pool spins like onnxruntime's on small Lambda vCPU shares
            # (rule search at 100k rules: p50 3.6 ms single-threaded vs ~8 ms with threads).
            "OPENBLAS_NUM_THREADS": "1",
        }

        # --- Events and the approval workflow ---------------------------------------
        self.event_bus = events.EventBus(self, "EventBus", event_bus_name=f"focal-{tenant}")
        environment["FOCAL_EVENT_BUS"] = self.event_bus.event_bus_name
        self.approval_wait_function = self._function(
            "approval-wait", APPROVAL_WAIT_HANDLER, APPROVAL_STEP_PROFILE, code, environment)
        self.approval_timeout_function = self._function(
            "approval-timeout", APPROVAL_TIMEOUT_HANDLER, APPROVAL_STEP_PROFILE, code, environment)
        self.approval_workflow = ApprovalWorkflow(
            self, "Approvals", wait_function=self.approval_wait_function,
            timeout_function=self.approval_timeout_function, log_retention=LOG_RETENTION, tenant=tenant,
            log_group=self._log_group("ApprovalStateMachineLogs", f"/aws/vendedlogs/states/focal-{tenant}-approvals"))
        self.approval_state_machine = self.approval_workflow.state_machine
        # Not in the workflow's own functions' environment: the machine references them (a cycle).
        pipeline_environment = {
            **environment, "FOCAL_APPROVAL_STATE_MACHINE_ARN": self.approval_state_machine.state_machine_arn}

        # --- Stage functions ------------------------------------------------------------------
        self.stage_functions: dict[str, lambda_.Function] = {}
        for spec in STAGES:
            self.stage_functions[spec.name] = self._function(
                spec.name, spec.handler, PROFILES[spec.name], code, pipeline_environment
            )
        self.fallback_function = self._function(
            "fallback", FALLBACK_HANDLER, FALLBACK_PROFILE, code, pipeline_environment)
        # Answering an approval (POST /v1/approvals/{approval_id}): runs the approved action once.
        self.approvals_function = self._function(
            "approvals", APPROVALS_HANDLER, APPROVALS_PROFILE, code, pipeline_environment)
        # Publishing an agent (PUT /v1/agents/{agent_id}): validate, index into OpenSearch, store.
        self.publish_function = self._function("publish", PUBLISH_HANDLER, PUBLISH_PROFILE, code, environment)

        # Each function's tables, event bus, approval workflow and tool reach, from the ports its code calls.
        self.tool_runners = roles.grant_port_access(self)

        # --- Rule index: OpenSearch with k-NN (built into OpenSearch 2.x) -------------------
        retrieve = self.stage_functions["retrieve"]
        self.domain = self._domain(reader=retrieve, writer=self.publish_function)
        for fn in (retrieve, self.publish_function):
            fn.add_environment("FOCAL_INDEX", "opensearch")
            fn.add_environment("FOCAL_OPENSEARCH_ENDPOINT", self.domain.domain_endpoint)

        # --- State machine ----------------------------------------------------------------------
        # The state machine invokes each function's `live` alias: the SnapStart-published version.
        self.pipeline = TurnPipeline(
            self, "Pipeline", stage_functions={n: self.aliases[n] for n in self.stage_functions},
            fallback_function=self.aliases["fallback"],
        )
        # Under /aws/vendedlogs/states: Step Functions then needs no entry in the account's CloudWatch Logs
        # resource policy (5,120 characters, shared by every state machine: a few dozen tenants would fill it).
        sm_logs = self._log_group("StateMachineLogs", f"/aws/vendedlogs/states/focal-{tenant}-turns")
        self.state_machine = sfn.StateMachine(
            self,
            "TurnStateMachine",
            state_machine_type=sfn.StateMachineType.EXPRESS,
            definition_body=sfn.DefinitionBody.from_chainable(self.pipeline.start),
            logs=sfn.LogOptions(destination=sm_logs, level=sfn.LogLevel.ERROR, include_execution_data=False),
            tracing_enabled=True,
            timeout=Duration.minutes(2),
            comment=f"Focal turn pipeline ({tenant}); generated from focal.turn.definition.STAGES",
        )

        # --- API ------------------------------------------------------------------------------
        self.authorizer_function = self._authorizer_function(code)
        self.api = build_api(
            self, tenant=tenant, state_machine=self.state_machine, authorizer_function=self.authorizer_function,
            publish_function=self.publish_function, approvals_function=self.aliases["approvals"],
            access_logs=self._log_group("ApiAccessLogs"),
            create_logs_role=self.options.create_api_gateway_logs_role)

        # --- Operations and outputs -----------------------------------------------------------
        self.monitoring = operations.Monitoring(self, "Monitoring", stack=self)
        outputs.add(self, self)
        self._drop_redundant_role_dependencies()

    def _drop_redundant_role_dependencies(self) -> None:
        """CDK makes a function (and a state machine) DependsOn its role as well as the role's policy; the
        role is already a GetAtt dependency (cfn-lint W3005). Keep only the policy in DependsOn."""
        for construct in self.node.find_all():
            role = getattr(construct, "role", None)
            if not isinstance(construct, (lambda_.Function, sfn.StateMachine)) or not isinstance(role, iam.Role):
                continue
            policy = role.node.try_find_child("DefaultPolicy")
            if policy is not None:
                construct.node.default_child.add_override(  # type: ignore[union-attr]
                    "DependsOn", [self.get_logical_id(policy.node.default_child)])

    # ------------------------------------------------------------------------------------------
    def tenant_items(self, table: dynamodb.Table, actions: tuple[str, ...], below: str = "") -> iam.PolicyStatement:
        """DynamoDB actions on one table, on items whose partition key starts with `TENANT#<t>#<below>`
        (every key the stores write: adapters/dynamodb_store.py). The granted actions all address
        items by key (no Scan), so `dynamodb:LeadingKeys` is always present in the request."""
        return iam.PolicyStatement(
            actions=list(actions), resources=[table.table_arn],
            conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": [f"TENANT#{self.tenant}#{below}*"]}},
        )

    def _multilingual_weights(self) -> MultilingualWeights:
        if self._use_weights is None:
            self._use_weights = MultilingualWeights(self, "MultilingualWeights")
        return self._use_weights

    def _role(self, cid: str, log_group: logs.LogGroup) -> iam.Role:
        """A function's role, writing to its own log group only (AWSLambdaBasicExecutionRole would allow
        every log group of the account)."""
        role = iam.Role(self, f"{cid}Role", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
        role.add_to_policy(iam.PolicyStatement(
            actions=["logs:CreateLogStream", "logs:PutLogEvents"], resources=[log_group.log_group_arn]))
        return role

    def _table(self, construct_id: str, *, sort_key: bool = False, ttl: bool = False) -> dynamodb.Table:
        return dynamodb.Table(
            self,
            construct_id,
            partition_key=dynamodb.Attribute(name="pk", type=dynamodb.AttributeType.STRING),
            sort_key=dynamodb.Attribute(name="sk", type=dynamodb.AttributeType.STRING) if sort_key else None,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            time_to_live_attribute="expires_at" if ttl else None,
            # Kept on `cdk destroy` and on a replacement (tenant data), deleted when the stack's own
            # create rolls back (nothing to keep yet; a retry then starts clean). Throwaway tenants:
            # -c removeDataOnDestroy=true.
            removal_policy=(RemovalPolicy.DESTROY if self.options.remove_data_on_destroy
                            else RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE),
        )

    def _log_group(self, construct_id: str, name: str | None = None) -> logs.LogGroup:
        # Deleted with the stack (and on a failed create), so a fixed name never collides on a retry.
        return logs.LogGroup(self, construct_id, log_group_name=name, retention=LOG_RETENTION,
                             removal_policy=RemovalPolicy.DESTROY)

    def _function(
        self, name: str, handler: str, profile: FunctionProfile, code: lambda_.Code, environment: dict[str, str]
    ) -> lambda_.Function:
        cid = _title(name)
        log_group = self._log_group(f"{cid}Logs")
        calls_models = models_access.calls_models(name)
        layers = [self.layers["deps"], self.layers["auth"]]
        if profile.models:
            layers.append(self.layers["models"])
        if calls_models:
            layers.append(self.layers["llm"])
        fn = lambda_.Function(
            self,
            f"{cid}Function",
            description=f"Focal {name} stage ({self.tenant})",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=handler,
            code=code,
            layers=layers,
            memory_size=max(profile.memory_mb, models_access.MIN_MODEL_MEMORY_MB if calls_models else 0),
            timeout=Duration.seconds(profile.timeout_s),
            environment={**environment, "FOCAL_STAGE": name},
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            role=self._role(f"{cid}Function", log_group),
            # Snapshot after init (imports, models loaded): a cold start restores it instead of importing.
            snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if profile.snap_start else None,
        )
        self.handlers[name] = (fn, handler)
        if calls_models:
            models_access.grant(self, fn, self.options)
        if embeds_multilingually(name):
            if not profile.models:  # the model's code and tokenizer travel in the models layer
                raise ValueError(f"the {name} function embeds in the multilingual space: its profile needs models=True")
            self._multilingual_weights().grant(fn)
        if profile.snap_start:
            self.aliases[name] = lambda_.Alias(self, f"{cid}Alias", alias_name=ALIAS, version=fn.current_version)
            acknowledge_warning(fn, SNAPSTART_WARNING, SNAPSTART_PUBLISHED)
        return fn

    def _authorizer_function(self, code: lambda_.Code) -> lambda_.Function:
        log_group = self._log_group("AuthorizerLogs")
        fn = lambda_.Function(
            self,
            "AuthorizerFunction",
            description=f"Focal API key authorizer ({self.tenant})",
            runtime=RUNTIME,
            architecture=ARCHITECTURE,
            handler=AUTHORIZER_HANDLER,
            code=code,
            layers=[self.layers["auth"]],  # PyJWT only: the authorizer needs nothing else beside the runtime's boto3
            memory_size=256,
            timeout=Duration.seconds(5),
            environment={"FOCAL_API_KEYS_TABLE": self.api_keys_table.table_name},
            tracing=lambda_.Tracing.ACTIVE,
            log_group=log_group,
            role=self._role("AuthorizerFunction", log_group),
        )
        # Keyed by the hash of the API key, not by tenant (the key is what names the tenant), so no
        # leading-key condition: the authorizer may only GetItem, on this tenant stack's own table.
        self.api_keys_table.grant(fn, "dynamodb:GetItem")
        # The tenant's customer token secret (verifies X-Focal-Customer-Token), and nothing else.
        fn.add_to_role_policy(iam.PolicyStatement(
            actions=["secretsmanager:GetSecretValue"], resources=[self.customer_token_secret_arn()]))
        return fn

    def customer_token_secret_arn(self, suffix: str = "-??????") -> str:
        """`focal/<tenant>/customer_token_secret` (Secrets Manager appends a random 6-character suffix)."""
        return self.format_arn(service="secretsmanager", resource="secret",
                               resource_name=f"focal/{self.tenant}/customer_token_secret{suffix}",
                               arn_format=ArnFormat.COLON_RESOURCE_NAME)

    def _domain(self, reader: lambda_.Function, writer: lambda_.Function) -> opensearch.Domain:
        domain_name = self.options.domain_name
        domain = opensearch.Domain(
            self,
            "RuleIndex",
            domain_name=domain_name,
            version=opensearch.EngineVersion.OPENSEARCH_2_19,
            capacity=opensearch.CapacityConfig(
                data_nodes=1,
                data_node_instance_type="t3.small.search",
                multi_az_with_standby_enabled=False,
            ),
            ebs=opensearch.EbsOptions(enabled=True, volume_size=10, volume_type=ec2.EbsDeviceVolumeType.GP3),
            zone_awareness=opensearch.ZoneAwarenessConfig(enabled=False),
            encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True),
            node_to_node_encryption=True,
            enforce_https=True,
            tls_security_policy=opensearch.TLSSecurityPolicy.TLS_1_2,
            # Derived data (rebuilt from the agent configuration on publish): deleted with the stack and
            # on a failed create, so its name is free again for the retry (-c opensearchDomainName=...).
            removal_policy=RemovalPolicy.DESTROY,
        )
        # Resource policy: the retrieve function's role reads, the publish function's role writes. Set on the CloudFormation resource
        # directly (CDK's `access_policies` would add a custom-resource Lambda); the ARN is built
        # from the fixed domain name so the policy does not reference the domain itself.
        index_arn = self.format_arn(service="es", resource="domain", resource_name=f"{domain_name}/*")
        cfn_domain: opensearch.CfnDomain = domain.node.default_child  # type: ignore[assignment]
        cfn_domain.access_policies = iam.PolicyDocument(
            statements=[
                iam.PolicyStatement(
                    principals=[iam.ArnPrincipal(fn.role.role_arn)],  # type: ignore[union-attr]
                    actions=list(actions),
                    resources=[index_arn],
                )
                for fn, actions in ((reader, OPENSEARCH_READ), (writer, OPENSEARCH_WRITE))
            ]
        ).to_json()
        reader.add_to_role_policy(iam.PolicyStatement(actions=list(OPENSEARCH_READ), resources=[index_arn]))
        writer.add_to_role_policy(iam.PolicyStatement(actions=list(OPENSEARCH_WRITE), resources=[index_arn]))
        return domain
