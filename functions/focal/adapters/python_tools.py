"""Runs `python` tools: the agent's own code, in a worker process of the tenant and agent.

What an entrypoint may name, and how it is checked, is focal.tool_files (`entrypoint_problem`
for `focal validate` and publishing; the worker checks again right before importing). The call itself
runs in focal.adapters.tool_workers: one process per (tenant, agent, agent folder), a bounded number of
calls in flight per agent, a call that overruns `Tool.timeout_s` abandoned and its process replaced.
Whatever the tool raises — BaseException included — is a ToolError: a tool failure of the turn, never an
exception in the engine's own process.

A call outside a turn (no context) runs in the agent's worker for no tenant; a suite's setup or a state
reset meant for one tenant's turns goes through `run_outside_turn`, to the worker those turns use.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from focal.adapters.tool_workers import ToolWorkers, WorkerKey, shared_workers
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool, ToolKind
from focal.models.turn import ToolCallContext
from focal.settings import get_settings
from focal.tool_files import (  # noqa: F401 - the checks, where validate and publishing import them
    MAX_TOOL_FILE_BYTES,
    entrypoint_problem,
    parse_tool_file,
    read_regular_file,
    takes_idempotency_key,
)


def worker_key(agent: AgentConfig, tenant_id: str) -> WorkerKey:
    return tenant_id, agent.id, str(Path(agent.base_dir).resolve()) if agent.base_dir else ""


class PythonToolRunner:
    def __init__(self, workers: ToolWorkers | None = None):
        self._workers = workers  # None: this process's shared workers

    @property
    def workers(self) -> ToolWorkers:
        return self._workers or shared_workers()

    def run(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any],
            context: ToolCallContext | None = None) -> dict[str, Any]:
        call_context = None
        if context is not None:
            call_context = {"customer_id": context.customer_id, "idempotency_key": context.idempotency_key}
        return self._call(agent, tool, arguments, context.tenant_id if context else "", call_context)

    def run_outside_turn(self, agent: AgentConfig, tool: Tool, tenant_id: str) -> dict[str, Any]:
        """Call a function of the agent's tool files with no arguments and no customer (a suite's setup, a
        state reset), in the worker `tenant_id`'s turns of this agent use: those turns see what it did."""
        return self._call(agent, tool, {}, tenant_id, None)

    def _call(self, agent: AgentConfig, tool: Tool, arguments: dict[str, Any], tenant_id: str,
              context: dict[str, Any] | None) -> dict[str, Any]:
        if tool.kind != ToolKind.python:
            raise ToolError(f"tool kind {tool.kind.value!r} is not supported by this runner yet")
        message = {
            "tool": tool.id, "base_dir": agent.base_dir, "entrypoint": tool.entrypoint or "",
            "allowed_modules": list(get_settings().tool_modules), "arguments": arguments, "context": context,
        }
        return self.workers.call(worker_key(agent, tenant_id), message, tool.timeout_s)
