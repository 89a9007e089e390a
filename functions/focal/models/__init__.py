"""Domain models: pure data, no I/O."""

from focal.models.agent import AgentConfig, ProfileFieldDefinition, Rule, Scenario, Scope, Step, Tool
from focal.models.context import Command, Context
from focal.models.session import CustomerProfile, Session
from focal.models.turn import TurnRecord, TurnRequest, TurnResult, TurnState

__all__ = [
    "AgentConfig",
    "Command",
    "Context",
    "CustomerProfile",
    "ProfileFieldDefinition",
    "Rule",
    "Scenario",
    "Scope",
    "Session",
    "Step",
    "Tool",
    "TurnRecord",
    "TurnRequest",
    "TurnResult",
    "TurnState",
]
