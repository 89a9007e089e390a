"""An agent file may only run its own code: a python tool is 'file.py:function' inside the agent's folder.

Each attack is an agent file a tenant could write. It must be refused at every door: `focal validate`
(file, field path and line), the publish route (400 with the problem, nothing stored) and the tool runner
itself (nothing imported or run). Modules come only from the deployment's allow-list (FOCAL_TOOL_MODULES).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.python_tools import PythonToolRunner
from focal.config.loader import load_agent_file
from focal.errors import ToolError
from focal.main import main
from focal.models.agent import Tool

AGENT = """\
id: shop
name: Shop
profile_field_definitions:
  - {{field_name: command, field_type: string}}
tools:
  - id: run
    entrypoint: '{entrypoint}'
    input: {{command: {{type: string}}}}
"""
ENTRYPOINT_LINE = 7

# A function that leaves a trace when it runs, so "refused" also means "never ran".
TRACE = "def f(command=None):\n    open({marker!r}, 'w').close()\n    return {{}}\n"


@pytest.fixture
def world(tmp_path, monkeypatch):
    """agents/shop/ holding the agent file and its tools; outside.py beside agents/, a marker file path."""
    from focal import settings

    agents = tmp_path / "agents"
    folder = agents / "shop"
    folder.mkdir(parents=True)
    marker = tmp_path / "ran"
    (tmp_path / "outside.py").write_text(TRACE.format(marker=str(marker)), encoding="utf-8")
    monkeypatch.setenv("FOCAL_AGENTS_ROOT", str(agents))
    monkeypatch.delenv("FOCAL_TOOL_MODULES", raising=False)
    settings.get_settings.cache_clear()
    yield folder, marker
    settings.get_settings.cache_clear()


def _setup_symlink(folder: Path) -> None:
    (folder / "link.py").symlink_to(folder.parent.parent / "outside.py")


def _setup_imported(folder: Path) -> None:
    (folder / "tools.py").write_text("from os import system\n\n\ndef lookup():\n    return {}\n", encoding="utf-8")


def _setup_private(folder: Path) -> None:
    (folder / "tools.py").write_text("def _helper(command=None):\n    return {'ok': True}\n", encoding="utf-8")


# (entrypoint — '{outside}' is the absolute path of outside.py, setup, what the refusal says, arguments)
ATTACKS: dict[str, tuple[str, Any, str]] = {
    "os_system": ("os:system", None, "module 'os' is not allowed"),
    "subprocess_getoutput": ("subprocess:getoutput", None, "module 'subprocess' is not allowed"),
    "builtins_eval": ("builtins:eval", None, "module 'builtins' is not allowed"),
    "parent_dir": ("../outside.py:f", None, "(no '..'"),
    "absolute_path": ("{outside}:f", None, "is an absolute path"),
    "symlink_outside": ("link.py:f", _setup_symlink, "'link.py' leads outside the agent's folder"),
    "imported_function": ("tools.py:system", _setup_imported, "'system' is imported in 'tools.py', not a function defined there"),
    "private_function": ("tools.py:_helper", _setup_private, "function '_helper' is private"),
}


def _write_attack(world: tuple[Path, Path], name: str) -> tuple[Path, str, str]:
    folder, marker = world
    entrypoint, setup, reason = ATTACKS[name]
    entrypoint = entrypoint.format(outside=folder.parent.parent / "outside.py")
    if setup:
        setup(folder)
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(entrypoint=entrypoint), encoding="utf-8")
    return path, entrypoint, reason


class Ctx:
    function_name, memory_limit_in_mb, aws_request_id = "agents", 1024, "req-1"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:agents"


def publish_event(agent_id: str, body: str) -> dict[str, Any]:
    return {
        "resource": "/v1/agents/{agent_id}", "path": f"/v1/agents/{agent_id}", "httpMethod": "PUT",
        "headers": {"content-type": "application/yaml"}, "multiValueHeaders": {}, "queryStringParameters": None,
        "multiValueQueryStringParameters": None, "pathParameters": {"agent_id": agent_id}, "stageVariables": None,
        "isBase64Encoded": False, "body": body,
        "requestContext": {"resourcePath": "/v1/agents/{agent_id}", "httpMethod": "PUT", "stage": "live", "requestId": "r1",
                           "authorizer": {"tenant_id": "acme", "scopes": "publish"}},
    }


class NothingMayBeStored:
    """Deps for a publish that must be refused before anything is indexed or stored."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a refused agent reached deps.{name}")


def publish(monkeypatch: pytest.MonkeyPatch, agent_id: str, body: str) -> tuple[int, dict[str, Any]]:
    import handlers.agents as agents

    deps = type("Deps", (), {"configs": NothingMayBeStored(), "rule_index": NothingMayBeStored(),
                             "embedder": NothingMayBeStored()})()
    monkeypatch.setattr(agents, "deps_from_env", lambda: deps)
    response = agents.handler(publish_event(agent_id, body), Ctx())
    return response["statusCode"], json.loads(response["body"])


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_an_entrypoint_outside_the_agents_own_code_is_refused_by_validate_publish_and_the_runner(
        attack, world, monkeypatch, capsys):
    folder, marker = world
    path, entrypoint, reason = _write_attack(world, attack)

    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}: 1 problem(s)" in out
    problem = next(line for line in out.splitlines() if line.startswith("  tools[0].entrypoint: "))
    assert reason in problem and problem.endswith(f"(line {ENTRYPOINT_LINE})"), out

    status, body = publish(monkeypatch, "shop", path.read_text(encoding="utf-8"))
    assert status == 400 and body["error"]["code"] == "invalid_agent", body
    assert any(p.startswith("tools[0].entrypoint: ") and reason in p for p in body["error"]["problems"]), body

    # The runner checks again, whatever validated the file (an agent loaded without validation).
    agent = load_agent_file(path).config
    assert agent is not None
    with pytest.raises(ToolError, match="refused") as refused:
        PythonToolRunner().run(agent, Tool(id="run", entrypoint=entrypoint, input={"command": {}}),
                               {"command": f"touch {marker}"})
    assert reason in str(refused.value)
    assert not marker.exists()


@pytest.fixture
def deployment_module(tmp_path, monkeypatch):
    """A module the deployment ships (on sys.path), defining `ping` and re-exporting os.system."""
    from focal import settings

    (tmp_path / "focal_deployment_tools.py").write_text(
        "from os import system\n\n\ndef ping(command=None):\n    return {'pong': True}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("FOCAL_TOOL_MODULES", "focal_deployment_tools, other.module")
    settings.get_settings.cache_clear()
    yield tmp_path
    settings.get_settings.cache_clear()


def test_the_deployments_allow_list_admits_a_listed_module_and_nothing_else(deployment_module, capsys):
    folder = deployment_module / "agent"
    folder.mkdir()
    marker = deployment_module / "ran"
    (folder / "tools.py").write_text(TRACE.format(marker=str(marker)), encoding="utf-8")
    path = folder / "agent.yaml"
    runner = PythonToolRunner()
    for entrypoint, arguments, result in [("tools.py:f", {"command": "x"}, {}),  # the agent's own code, as always
                                          ("focal_deployment_tools:ping", {}, {"pong": True})]:
        path.write_text(AGENT.format(entrypoint=entrypoint), encoding="utf-8")
        assert main(["validate", str(path)]) == 0, capsys.readouterr().out
        agent = load_agent_file(path).config
        assert runner.run(agent, Tool(id="run", entrypoint=entrypoint, input={"command": {}}), arguments) == result
    assert marker.exists()

    for entrypoint, reason in [("os:system", "module 'os' is not allowed"),
                               ("subprocess:getoutput", "module 'subprocess' is not allowed"),
                               ("focal_deployment_tools.sub:ping", "module 'focal_deployment_tools.sub' is not allowed"),
                               ("focal_deployment_tools:system", "'system' is imported in 'focal_deployment_tools'"),
                               ("focal_deployment_tools:_private", "is private")]:
        path.write_text(AGENT.format(entrypoint=entrypoint), encoding="utf-8")
        assert main(["validate", str(path)]) == 1
        assert reason in capsys.readouterr().out, entrypoint
        with pytest.raises(ToolError, match="refused"):
            runner.run(agent, Tool(id="run", entrypoint=entrypoint, input={"command": {}}), {"command": "true"})


def test_publishing_refuses_an_agent_id_that_would_name_a_folder_outside_agents(world, monkeypatch):
    folder, _ = world
    body = AGENT.format(entrypoint="focal/settings.py:get_settings").replace("id: shop", "id: '..'")
    status, answer = publish(monkeypatch, "..", body)
    assert status == 400 and answer["error"]["code"] == "invalid_agent_id", answer
