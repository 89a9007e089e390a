"""An example agent's python tools called as the engine calls them (in the tool worker of the tenant and agent
the turns use), for a given signed-in customer: shared by the security tests of the examples' customer checks,
and `reset_state` for the tests that start from the examples' initial tool state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.adapters.python_tools import PythonToolRunner
from focal.config.loader import load_agent
from focal.errors import ToolError
from focal.models.agent import AgentConfig, Tool
from focal.models.turn import ToolCallContext

TENANT = "local"


def reset_state(agent: AgentConfig, tenant_id: str) -> dict[str, Any]:
    """The agent's `tools.py:reset_state`, in the worker `tenant_id`'s turns of the agent use."""
    return PythonToolRunner().run_outside_turn(agent, Tool(id="reset_state", entrypoint="tools.py:reset_state"), tenant_id)


class ExampleTools:
    def __init__(self, agent_path: Path):
        self.agent_path = agent_path
        self._agent: AgentConfig | None = None

    @property
    def agent(self) -> AgentConfig:
        """The agent, read once (about 0.2 s a read; the tests never change the file or the loaded config)."""
        if self._agent is None:
            self._agent = load_agent(self.agent_path)
        return self._agent

    def state(self, function: str) -> Any:
        """Call a function of the tools module in the worker the calls of `run` use."""
        return PythonToolRunner().run_outside_turn(self.agent,
                                                   Tool(id=function, entrypoint=f"tools.py:{function}"), TENANT)

    def run(self, tool_id: str, arguments: dict[str, Any], customer: str, key: str | None = None) -> dict[str, Any]:
        agent = self.agent
        context = ToolCallContext(tenant_id=TENANT, session_id="s1", turn_id="t1", customer_id=customer,
                                  idempotency_key=key)
        return PythonToolRunner().run(agent, agent.tool(tool_id), arguments, context)

    def refusal(self, tool_id: str, arguments: dict[str, Any], customer: str, key: str) -> str:
        with pytest.raises(ToolError) as caught:
            self.run(tool_id, arguments, customer, key)
        return str(caught.value)
