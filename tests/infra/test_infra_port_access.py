"""Each function's table, bus, approval-workflow and tool permissions are derived from the ports its code calls
(focal_infra/port_access.py reads the code, port_grants.py says what each port method does in AWS).

The engine's own code paths are checked here for the cases a hand-kept list got wrong; the analysis itself on
small code trees written by the tests; the calls really made against the roles in tests/e2e/test_e2e_iam.py.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from focal_infra import port_access, port_grants
from focal_infra.port_access import dispatched_stages, port_calls


def test_the_approval_endpoint_runs_persist_so_it_writes_profiles_and_idempotency_records():
    calls = port_calls("handlers.approvals.handler", dispatched_stages("approvals"))
    assert {("profiles", "get"), ("profiles", "save"), ("idempotency", "complete"), ("turns", "put"),
            ("sessions", "save"), ("approvals", "set_outcome"), ("approval_workflow", "resume"), ("tools", "run")} <= calls
    derived = port_grants.grants("handlers.approvals.handler", dispatched_stages("approvals"))
    assert derived.items[("profiles", "")] == {"dynamodb:GetItem", "dynamodb:PutItem"}
    assert derived.items[("idempotency", "")] == {"dynamodb:UpdateItem"}


def test_the_tools_stage_claims_the_session_before_a_side_effect():
    calls = port_calls("handlers.tools.handler", dispatched_stages("tools"))
    assert ("sessions", "save") in calls
    assert ("sessions", "") in port_grants.grants("handlers.tools.handler", ("tools",)).items


def test_stages_that_only_read_configuration_get_only_that():
    for stage in ("route", "generate", "enforce"):
        derived = port_grants.grants(f"handlers.{stage}.handler", (stage,))
        assert derived.items == {("config", ""): {"dynamodb:GetItem"}} and not derived.services, stage


def test_the_fallback_handler_imported_from_elsewhere_is_followed():
    calls = port_calls("handlers.fallback.handler")
    assert {("turns", "put"), ("idempotency", "complete"), ("sessions", "save")} <= calls
    assert not any(port == "profiles" for port, _ in calls)


def test_the_template_grants_what_the_code_derives(template_json, synthesized):
    """Every function of the synthesized stack: its DynamoDB actions per table are the derived ones."""
    stack, _ = synthesized
    resources = template_json["Resources"]
    for name, (fn, handler) in stack.handlers.items():
        derived = port_grants.grants(handler, dispatched_stages(name))
        expected: dict[str, set[str]] = {}
        for (table, _), actions in derived.items.items():
            expected.setdefault(stack.get_logical_id(stack.tables[table].node.default_child), set()).update(actions)
        role = stack.get_logical_id(fn.role.node.default_child)
        granted: dict[str, set[str]] = {}
        for policy in resources.values():
            if policy["Type"] == "AWS::IAM::Policy" and {"Ref": role} in policy["Properties"]["Roles"]:
                for st in policy["Properties"]["PolicyDocument"]["Statement"]:
                    actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
                    targets = st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]]
                    for target in targets:
                        if any(a.startswith("dynamodb:") for a in actions):
                            granted.setdefault(target["Fn::GetAtt"][0], set()).update(actions)
        assert granted == expected, name


# --- the analysis, on code trees written here ----------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    for package in ("focal", "handlers"):
        (tmp_path / package / "__init__.py").touch()
    return tmp_path


WIRING = "def deps_from_env():\n    return None\n"


def test_uses_are_followed_through_calls_parameters_getattr_and_callbacks(tmp_path):
    root = _tree(tmp_path, {
        "focal/wiring.py": WIRING,
        "focal/lib.py": """
            from focal import other

            def claim(store, record):
                store.save(record)

            def remember(state, deps):
                other.keep(deps.turns)

            def unused(deps):
                deps.profiles.save(1)
        """,
        "focal/other.py": """
            def keep(turns):
                writer = getattr(turns, "put", None)
                writer(1)
        """,
        "handlers/h.py": """
            from focal.lib import claim, remember
            from focal.wiring import deps_from_env

            def handler(event, context):
                deps = deps_from_env()
                claim(deps.sessions, event)
                pool.submit(remember, event, deps)
                if deps.events is None:
                    return deps.configs.get_agent("t", "a")
        """,
    })
    assert port_calls("handlers.h.handler", root=root) == {
        ("sessions", "save"), ("turns", "put"), ("configs", "get_agent")}
    assert port_access.unfollowed("handlers.h.handler", root=root) == frozenset()


def test_a_port_handed_where_the_code_cannot_follow_may_call_any_of_its_methods(tmp_path, monkeypatch):
    root = _tree(tmp_path, {
        "focal/wiring.py": WIRING,
        "handlers/h.py": """
            from focal.wiring import deps_from_env

            def handler(event, context):
                deps = deps_from_env()
                registry[event](deps.profiles)
        """,
    })
    (hand_over,) = port_access.unfollowed("handlers.h.handler", root=root)
    assert hand_over.port == "profiles" and hand_over.where == "handlers.h:handler"
    monkeypatch.setattr(port_grants, "port_access", _Rooted(root))
    assert port_grants.grants("handlers.h.handler").items == {("profiles", ""): {"dynamodb:GetItem", "dynamodb:PutItem"}}


def test_an_undescribed_port_method_or_an_untraceable_deps_fails_the_derivation(tmp_path, monkeypatch):
    root = _tree(tmp_path, {
        "focal/wiring.py": WIRING,
        "handlers/h.py": """
            from focal.wiring import deps_from_env

            def handler(event, context):
                deps = deps_from_env()
                deps.sessions.delete("t", "a", "s")
        """,
        "handlers/g.py": """
            from focal.wiring import deps_from_env

            def handler(event, context):
                plugins[event].run(deps_from_env())
        """,
    })
    monkeypatch.setattr(port_grants, "port_access", _Rooted(root))
    with pytest.raises(port_grants.UndescribedPortCall, match="sessions.delete"):
        port_grants.grants("handlers.h.handler")
    with pytest.raises(port_grants.UndescribedPortCall, match="cannot be followed"):
        port_grants.grants("handlers.g.handler")


class _Rooted:
    """port_access with its code root at a test's tree."""

    DEPS = port_access.DEPS

    def __init__(self, root: Path) -> None:
        self.root = root

    def port_calls(self, handler, stages=()):
        return port_access.port_calls(handler, stages, self.root)

    def unfollowed(self, handler, stages=()):
        return port_access.unfollowed(handler, stages, self.root)
