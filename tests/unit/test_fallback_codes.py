"""The fallback stage's error codes: an unknown agent is the caller's mistake (agent_not_found, which the
gateway maps to 404), whether the runner or the state machine's Catch (the Lambda error JSON) reports it."""

from __future__ import annotations

import json

import pytest

from focal.stages.fallback import _error


@pytest.mark.parametrize("caught", [
    {"Error": "AgentNotFound", "Cause": json.dumps({"stage": "sensor"})},  # the local runner
    {"Error": "AgentNotFound", "Cause": json.dumps({"errorType": "AgentNotFound", "errorMessage": "agent 'x' not found"})},
])
def test_an_unknown_agent_has_its_own_code(caught):
    assert _error(caught).code == "agent_not_found"


def test_other_failures_stay_stage_failed():
    assert _error({"Error": "KeyError", "Cause": "{}"}).code == "stage_failed:KeyError"
    assert _error({"Error": "States.Timeout", "Cause": "not json"}).code == "stage_failed:States.Timeout"
