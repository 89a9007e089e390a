"""An example agent's python tools called as the engine calls them (the module the runner itself loaded), for a
given signed-in customer: shared by the security tests of the examples' customer checks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from focal.adapters.python_tools import PythonToolRunner
from focal.config.loader import load_agent
from focal.errors import ToolError
from focal.models.agent import Tool
from focal.models.turn import ToolCallContext


class ExampleTools:
    def __init__(self, agent_path: Path):
        self.agent_path = agent_path

    def state(self, function: str) -> Any:
        """Call a function of the tools module the engine itself loaded (one module per resolved file)."""
        return PythonToolRunner().run(load_agent(self.agent_path), Tool(id=function, entrypoint=f"tools.py:{function}"), {})

    def run(self, tool_id: str, arguments: dict[str, Any], customer: str, key: str | None = None) -> dict[str, Any]:
        agent = load_agent(self.agent_path)
        context = ToolCallContext(tenant_id="local", session_id="s1", turn_id="t1", customer_id=customer,
                                  idempotency_key=key)
        return PythonToolRunner().run(agent, agent.tool(tool_id), arguments, context)

    def refusal(self, tool_id: str, arguments: dict[str, Any], customer: str, key: str) -> str:
        with pytest.raises(ToolError) as caught:
            self.run(tool_id, arguments, customer, key)
        return str(caught.value)
