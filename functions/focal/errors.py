"""Errors the engine and its adapters raise; each carries a stable code for the turn result."""

from __future__ import annotations

import threading


class FocalError(Exception):
    code = "internal_error"


class ConfigError(FocalError):
    code = "invalid_agent_config"


class AgentNotFound(FocalError):
    code = "agent_not_found"


class AgentTooLarge(FocalError):
    """The agent definition does not fit where it is stored (a DynamoDB item holds 400 KB)."""

    code = "agent_too_large"


class VersionConflict(FocalError):
    """The session changed since it was read (optimistic locking on `version`)."""

    code = "session_conflict"


class DuplicateTurn(FocalError):
    code = "duplicate_turn"


class PayloadTooLarge(FocalError):
    code = "payload_too_large"


class ModelError(FocalError):
    code = "model_error"


class ToolError(FocalError):
    """A tool call failed and nothing of it took effect: refused, invalid, an error the tool itself reported, or a
    failure before the request left. `ToolOutcomeUnknown` when that cannot be said."""

    code = "tool_error"


class ToolOutcomeUnknown(ToolError):
    """A tool call failed after its request may have reached the tool: a timeout or a connection lost once sent, a
    worker that stopped mid-call, an answer that could not be read. What it does may have happened."""

    code = "tool_outcome_unknown"


class ToolInputInvalid(ToolError):
    """An argument does not fit the tool's input schema; nothing was called. Names the argument, never its value."""

    code = "tool_input_invalid"

    def __init__(self, message: str, argument: str):
        super().__init__(message)
        self.argument = argument


class ToolOutputInvalid(ToolError):
    """A tool answered a value that does not fit the declared type of the variable it fills; nothing of
    the answer was kept. Names the output and the variable, never the value."""

    code = "tool_output_invalid"

    def __init__(self, message: str, output: str, variable: str):
        super().__init__(message)
        self.output, self.variable = output, variable


class ExpressionError(FocalError):
    code = "expression_error"


def stops_process(exc: BaseException) -> bool:
    """Whether `exc` must go on and end the process: Ctrl-C or sys.exit() in the process's main thread. Any
    other exception — BaseException included, or one of these in another thread (a request, a tool) — is a
    failure of the work it came from, to be answered as one."""
    return isinstance(exc, KeyboardInterrupt | SystemExit) and threading.current_thread() is threading.main_thread()
