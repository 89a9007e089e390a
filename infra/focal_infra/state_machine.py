"""The turn state machine, generated from the engine's pipeline definition (`focal.turn.definition`).

For every stage, in order, one LambdaInvoke task (named after the stage, payload response only, so
each Lambda receives and returns the TurnState JSON). After every stage that declares `jumps`, a
Choice: if `$.control.next` is a string equal to one of the jump targets, go to that stage's task;
otherwise go on to the next stage. The last stage ends in a Succeed state. Every stage task retries
Lambda service errors briefly (with full jitter) and catches everything else into `$.caught`,
then runs the fallback Lambda, which records the turn and answers with a structured result.

Retry ownership, one owner per failure type: this state machine retries only the Lambda service's
own errors (`LAMBDA_SERVICE_ERRORS`: the invoke failed or was throttled before the handler ran).
DynamoDB throttling is retried inside the function by botocore's standard mode with jitter
(focal.adapters.dynamodb_store.DYNAMODB_CLIENT_CONFIG); errors a handler raises (including a
throttling that outlasted those retries) are never retried here: they go to the Catch → fallback.

Both Succeed states output `$.result` (the TurnResult): the execution's output is the API's body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from aws_cdk import Duration
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import aws_stepfunctions_tasks as tasks
from constructs import Construct

from focal.turn.definition import CONTROL_FIELD, STAGES, StageSpec

LAMBDA_SERVICE_ERRORS: tuple[str, ...] = (
    "Lambda.ServiceException",
    "Lambda.AWSLambdaException",
    "Lambda.SdkClientException",
    "Lambda.TooManyRequestsException",
)
CONTROL_PATH = "$." + CONTROL_FIELD
CAUGHT_PATH = "$.caught"
RESULT_PATH = "$.result"
FALLBACK_STATE = "fallback"
DONE_STATE = "done"
FALLBACK_DONE_STATE = "fallback done"


def choice_state_name(stage_name: str) -> str:
    return f"after {stage_name}"


@dataclass(frozen=True)
class RetryPolicy:
    errors: tuple[str, ...] = LAMBDA_SERVICE_ERRORS
    interval_seconds: int = 1
    max_attempts: int = 2
    backoff_rate: float = 2.0

    def kwargs(self) -> dict:
        """Keyword arguments for `State.add_retry`."""
        return {
            "errors": list(self.errors),
            "interval": Duration.seconds(self.interval_seconds),
            "max_attempts": self.max_attempts,
            "backoff_rate": self.backoff_rate,
            "jitter_strategy": sfn.JitterType.FULL,
        }


class TurnPipeline(Construct):
    """The states of the turn state machine; `start` is the chainable to build the machine from."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        stage_functions: Mapping[str, lambda_.IFunction],
        fallback_function: lambda_.IFunction,
        stages: Sequence[StageSpec] = STAGES,
        retry: RetryPolicy = RetryPolicy(),
    ) -> None:
        super().__init__(scope, construct_id)
        if not stages:
            raise ValueError("the pipeline needs at least one stage")
        names = [s.name for s in stages]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate stage names in {names}")
        missing = [n for n in names if n not in stage_functions]
        if missing:
            raise KeyError(f"no Lambda function for stage(s) {missing}")
        for spec in stages:
            for target in spec.jumps:
                if target not in names:
                    raise ValueError(f"stage {spec.name!r} jumps to unknown stage {target!r}")

        self.stages = tuple(stages)
        self.fallback = self._task(FALLBACK_STATE, fallback_function, retry)
        self.fallback.next(sfn.Succeed(self, "FallbackDone", state_name=FALLBACK_DONE_STATE, output_path=RESULT_PATH))
        self.done = sfn.Succeed(self, "Done", state_name=DONE_STATE, output_path=RESULT_PATH)

        self.tasks: dict[str, tasks.LambdaInvoke] = {}
        for spec in stages:
            task = self._task(spec.name, stage_functions[spec.name], retry)
            task.add_catch(self.fallback, errors=[sfn.Errors.ALL], result_path=CAUGHT_PATH)
            self.tasks[spec.name] = task

        self.choices: dict[str, sfn.Choice] = {}
        for index, spec in enumerate(stages):
            following: sfn.IChainable = self.tasks[names[index + 1]] if index + 1 < len(names) else self.done
            if not spec.jumps:
                self.tasks[spec.name].next(following)
                continue
            choice = sfn.Choice(self, f"After-{spec.name}", state_name=choice_state_name(spec.name))
            for target in spec.jumps:
                choice.when(jump_condition(target), self.tasks[target])
            choice.otherwise(following)
            self.tasks[spec.name].next(choice)
            self.choices[spec.name] = choice

        self.start: sfn.IChainable = self.tasks[names[0]]

    def _task(self, name: str, function: lambda_.IFunction, retry: RetryPolicy) -> tasks.LambdaInvoke:
        task = tasks.LambdaInvoke(
            self,
            f"Task-{name}",
            state_name=name,
            lambda_function=function,
            payload_response_only=True,
            retry_on_service_exceptions=False,
        )
        task.add_retry(**retry.kwargs())
        return task


def jump_condition(target: str) -> sfn.Condition:
    """`$.control.next` is present, is a string, and names `target` (safe when control is absent or null)."""
    return sfn.Condition.and_(
        sfn.Condition.is_present(CONTROL_PATH),
        sfn.Condition.is_string(CONTROL_PATH),
        sfn.Condition.string_equals(CONTROL_PATH, target),
    )

