"""The session's count of failed identity checks (focal.dialogue.identity_checks): which tools are identity checks
(their output fills a privileged boolean field), what counts as a failure, that an unreadable count is exhausted,
and that the count is stored with the session (SQLite here; DynamoDB keeps the same JSON document)."""

from __future__ import annotations

from pathlib import Path

from focal.adapters.sqlite_store import SqliteDatabase, SqliteSessionStore
from focal.dialogue import identity_checks
from focal.models.agent import AgentConfig
from focal.models.session import UNREADABLE, Session

AGENT = AgentConfig.model_validate({
    "id": "desk", "name": "Desk",
    "profile_field_definitions": [
        {"field_name": "identity_verified", "field_type": "boolean", "sources": ["tool"], "privileged": True},
        {"field_name": "holder_name", "field_type": "string", "sources": ["tool"]},
        {"field_name": "booking_found", "field_type": "boolean", "sources": ["tool"]},
    ],
    "tools": [
        {"id": "check_caller", "kind": "python", "entrypoint": "tools.py:check_caller",
         "output": {"ok": "identity_verified", "name": "holder_name"}},
        {"id": "find_booking", "kind": "python", "entrypoint": "tools.py:find_booking", "output": {"found": "booking_found"}},
    ],
})
CHECK, LOOKUP = AGENT.tool("check_caller"), AGENT.tool("find_booking")


def _session(**fields) -> Session:
    return Session(tenant_id="t", agent_id="desk", session_id="s", customer_id="c", **fields)


def test_a_tool_filling_a_privileged_boolean_is_an_identity_check_and_a_plain_lookup_is_not():
    assert identity_checks.is_check(AGENT, CHECK)
    assert not identity_checks.is_check(AGENT, LOOKUP)
    assert not identity_checks.is_check(AGENT, None)


def test_a_check_that_does_not_come_back_true_is_a_failure_and_a_passed_one_is_not():
    session = _session()
    identity_checks.count_result(AGENT, CHECK, session, {"identity_verified": True, "holder_name": "Ann"})
    assert session.failed_identity_checks == 0
    identity_checks.count_result(AGENT, CHECK, session, {"identity_verified": False})
    identity_checks.count_result(AGENT, CHECK, session, {"holder_name": "Ann"})  # no verdict at all: not verified
    assert session.failed_identity_checks == 2 and not identity_checks.exhausted(session)
    identity_checks.count_result(AGENT, LOOKUP, session, {"booking_found": False})
    assert session.failed_identity_checks == 2
    identity_checks.count_result(AGENT, CHECK, session, {"identity_verified": "true"})  # only a real true passes
    assert session.failed_identity_checks == identity_checks.LIMIT and identity_checks.exhausted(session)


def test_an_unreadable_count_is_exhausted():
    for stored in ("two", -4, True, None, 1.5):
        session = Session.model_validate({**_session().model_dump(), "failed_identity_checks": stored})
        assert session.failed_identity_checks == UNREADABLE and identity_checks.exhausted(session), stored
    assert identity_checks.exhausted(None)
    assert identity_checks.merged(1, UNREADABLE) == UNREADABLE and identity_checks.merged(2, 1) == 2


def test_the_count_is_stored_with_the_session_and_a_corrupt_one_reads_as_exhausted(tmp_path: Path):
    db = SqliteDatabase(tmp_path / "focal.db")
    store = SqliteSessionStore(db)
    store.save(_session(failed_identity_checks=2), expected_version=0)
    assert store.get("t", "desk", "s").failed_identity_checks == 2
    with db.connection() as conn:
        conn.execute("UPDATE sessions SET doc = json_set(doc, '$.failed_identity_checks', 'x')")
    assert identity_checks.exhausted(store.get("t", "desk", "s"))
