"""The turn state grouped by the stage that writes it: one JSON document, and older flat documents still load."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from focal.models.turn import TurnRecord, TurnResult, TurnState
from focal.models.turn_legacy import SECTION_OF, SECTIONS

# A turn record's state as stored before the grouping: every field at the top level.
FLAT_STATE = {
    "request": {"tenant_id": "t", "agent_id": "a", "session_id": "s", "customer_id": "c-1", "turn_id": "x", "message": "hi"},
    "resume": None,
    "session": None,
    "profile": None,
    "prevalidation": [{"name": "length", "passed": True, "reason": "", "blocking": True}],
    "context": {"message": "hi", "detected_intent": "greet", "intent_confidence": 0.9, "embedding": []},
    "candidates": [{"rule_id": "r1", "score": 0.8, "scope": "global"}],
    "matched_rules": [{"rule_id": "r1", "score": 0.8, "scope": "global"}],
    "episodes": [],
    "decision": {"action": "clarify", "notes": ["asked"], "blocked_by": ["g1"]},
    "commands": [{"name": "StartFlow", "flow": "f1"}],
    "tool_calls": [{"tool_id": "lookup", "status": "ok"}],
    "drafts": [{"text": "Hello", "source": "offline"}],
    "feedback": ["r2: too long"],
    "enforcement": {"checked": ["r1"], "regenerations": 1},
    "response": "Hello",
    "execution_path": "clarify",
    "confidence": 0.7,
    "confidence_factors": {"intent": 0.9},
    "confidence_reasons": {"intent": "scored 0.9"},
    "approval": {"state": "awaiting_approval"},
    "request_id": "apr-1",
    "suggested_questions": ["Anything else?"],
    "model_calls": [],
    "timings_ms": {"sensor": 1.5},
    "control": {"next": None},
    "last_stage": "enforce",
    "degraded": ["retrieval"],
    "deadline": 100.0,
    "error": None,
    "result": None,
    "profile_migration": None,
    "idempotency": None,
    "claim_owner": "owner-1",
    "actions_claimed": True,
    "foreign_session": False,
}


def _result() -> TurnResult:
    return TurnResult(success=True, turn_id="x", session_id="s", response="Hello", execution_path="clarify", confidence=0.7,
                      intent={}, scenario=None, matched_rules=["r1"], enforcement={}, commands=[], tool_calls=[],
                      model_calls=0, cost_usd=0.0, timings_ms={}, suggested_questions=[], error=None)


def _assert_sectioned(state: TurnState) -> None:
    assert state.sensor.context is not None and state.sensor.context.detected_intent == "greet"
    assert [c.name for c in state.sensor.prevalidation] == ["length"] and state.sensor.claim_owner == "owner-1"
    assert [c.flow for c in state.sensor.commands] == ["f1"]
    assert [r.rule_id for r in state.retrieve.candidates] == ["r1"] and state.retrieve.episodes == []
    assert state.route.decision.action == "clarify" and state.route.decision.blocked_by == ["g1"]
    assert [r.rule_id for r in state.route.matched_rules] == ["r1"]
    assert [c.tool_id for c in state.tools.tool_calls] == ["lookup"] and state.tools.actions_claimed
    assert state.tools.request_id == "apr-1" and state.tools.confidence_factors == {"intent": 0.9}
    assert state.tools.confidence_reasons == {"intent": "scored 0.9"} and state.tools.approval == {"state": "awaiting_approval"}
    assert [d.text for d in state.generate.drafts] == ["Hello"]
    assert state.enforce.report.checked == ["r1"] and state.enforce.report.regenerations == 1
    assert state.enforce.feedback == ["r2: too long"]
    assert state.response == "Hello" and state.degraded == ["retrieval"] and state.deadline == 100.0


def test_a_flat_document_written_before_the_grouping_loads_into_the_sections() -> None:
    _assert_sectioned(TurnState.model_validate_json(json.dumps(FLAT_STATE)))


def test_a_stored_record_with_a_flat_state_reads_like_a_new_one() -> None:
    record = TurnRecord(tenant_id="t", agent_id="a", session_id="s", turn_id="x", turn_number=1, customer_id="c-1",
                        created_at=1.0, result=_result(), state=FLAT_STATE)
    loaded = TurnRecord.model_validate_json(record.model_dump_json())
    assert loaded.state["route"]["decision"]["blocked_by"] == ["g1"]
    assert loaded.state["enforce"]["report"]["regenerations"] == 1
    assert not set(SECTION_OF) & set(loaded.state)  # no flat key is left beside its section
    _assert_sectioned(TurnState.model_validate(loaded.state))


def test_the_state_between_stages_is_one_document_of_sections() -> None:
    state = TurnState.model_validate(FLAT_STATE)
    doc = json.loads(state.model_dump_json())
    assert set(SECTIONS) <= set(doc) and not set(SECTION_OF) & set(doc)
    assert TurnState.model_validate(doc) == state


def test_a_field_given_both_flat_and_in_its_section_is_refused() -> None:
    doc = {**FLAT_STATE, "route": {"decision": {"action": "respond"}}}
    with pytest.raises(ValidationError, match=r"decision: given flat and as route\.decision"):
        TurnState.model_validate(doc)


@pytest.mark.parametrize("flat", sorted(SECTION_OF))
def test_every_flat_key_names_a_field_of_its_section(flat: str) -> None:
    section, name = SECTION_OF[flat]
    model = TurnState.model_fields[section].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel) and name in model.model_fields


def test_the_sections_hold_every_field_once() -> None:
    in_sections = [(s, n) for s in SECTIONS for n in TurnState.model_fields[s].annotation.model_fields]  # type: ignore[union-attr]
    assert sorted(in_sections) == sorted(SECTION_OF.values())
    assert not set(SECTION_OF) & set(TurnState.model_fields)  # a moved field is not also kept at the top
