"""The state machine builder on its own, fed stage lists other than the real one."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_stepfunctions as sfn

from focal.turn.definition import STAGES, StageSpec
from focal_infra.state_machine import TurnPipeline
from infra_helpers import definition_with_placeholders


def build(stages, functions=None) -> dict:
    app = cdk.App()
    stack = cdk.Stack(app, "BuilderTest", env=cdk.Environment(account="111111111111", region="eu-west-1"))
    fns = {
        name: lambda_.Function.from_function_arn(stack, f"Fn{name}", arn(name))
        for name in dict.fromkeys(s.name for s in stages)
    }
    if functions is not None:
        fns = {k: v for k, v in fns.items() if k in functions}
    fallback = lambda_.Function.from_function_arn(stack, "FnFallback", arn("fb"))
    pipeline = TurnPipeline(stack, "Pipeline", stage_functions=fns, fallback_function=fallback, stages=stages)
    sfn.StateMachine(stack, "Machine", definition_body=sfn.DefinitionBody.from_chainable(pipeline.start),
                     state_machine_type=sfn.StateMachineType.EXPRESS)
    template = app.synth().get_stack_by_name("BuilderTest").template
    (machine,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::StepFunctions::StateMachine"]
    return definition_with_placeholders(machine["Properties"]["DefinitionString"])


def arn(name: str) -> str:
    return f"arn:aws:lambda:eu-west-1:111111111111:function:{name}"


def test_linear_stages_make_a_chain_without_choices():
    d = build((StageSpec("a", "h.a"), StageSpec("b", "h.b"), StageSpec("c", "h.c")))
    states = d["States"]
    assert d["StartAt"] == "a"
    assert states["a"]["Next"] == "b" and states["b"]["Next"] == "c" and states["c"]["Next"] == "done"
    assert states["a"]["Resource"] == arn("a")
    assert not [s for s in states.values() if s["Type"] == "Choice"]
    assert sorted(n for n, s in states.items() if s["Type"] == "Task") == ["a", "b", "c", "fallback"]


def test_a_stage_with_jumps_gets_one_choice_with_one_branch_per_target():
    stages = (
        StageSpec("a", "h.a", jumps=("d",)),
        StageSpec("b", "h.b"),
        StageSpec("c", "h.c", jumps=("a", "b")),
        StageSpec("d", "h.d", jumps=("b",)),
    )
    states = build(stages)["States"]
    after_a, after_c, after_d = states["after a"], states["after c"], states["after d"]
    assert states["a"]["Next"] == "after a" and after_a["Default"] == "b"
    assert [r["Next"] for r in after_a["Choices"]] == ["d"]
    assert [r["Next"] for r in after_c["Choices"]] == ["a", "b"] and after_c["Default"] == "d"
    # the last stage's choice defaults to the end
    assert after_d["Default"] == "done" and [r["Next"] for r in after_d["Choices"]] == ["b"]
    assert states["b"]["Next"] == "c"
    for rule in after_c["Choices"]:
        (target,) = [c["StringEquals"] for c in rule["And"] if "StringEquals" in c]
        assert target == rule["Next"]


def test_every_task_catches_into_the_same_fallback():
    stages = (StageSpec("x", "h.x"), StageSpec("y", "h.y", jumps=("x",)))
    states = build(stages)["States"]
    for name in ("x", "y"):
        assert states[name]["Catch"] == [{"ErrorEquals": ["States.ALL"], "ResultPath": "$.caught", "Next": "fallback"}]
    assert states["fallback"]["Resource"] == arn("fb")
    assert states["fallback"]["Next"] == "fallback done"
    assert states["fallback done"] == {"Type": "Succeed", "OutputPath": "$.result"}


def test_the_real_stage_list_builds_the_same_shape():
    d = build(STAGES)
    tasks = [n for n, s in d["States"].items() if s["Type"] == "Task"]
    assert sorted(tasks) == sorted([s.name for s in STAGES] + ["fallback"])


def test_unknown_jump_target_is_rejected():
    with pytest.raises(ValueError, match="unknown stage 'nope'"):
        build((StageSpec("a", "h.a", jumps=("nope",)),))


def test_missing_function_is_rejected():
    with pytest.raises(KeyError, match="b"):
        build((StageSpec("a", "h.a"), StageSpec("b", "h.b")), functions={"a"})


def test_duplicate_stage_names_are_rejected():
    with pytest.raises(ValueError, match="duplicate"):
        build((StageSpec("a", "h.a"), StageSpec("a", "h.b")))
