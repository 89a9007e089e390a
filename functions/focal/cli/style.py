"""Colour for the terminal: only on a TTY, never when NO_COLOR is set (https://no-color.org) or TERM is dumb.

`paint(text, "blocked")` wraps a text in the ANSI codes of a role; `colour_for(stream)` decides once per
output stream. Plain text otherwise, so pipes, files and JSON never carry escape codes.
"""

from __future__ import annotations

import os
import re
from typing import IO, Any

RESET = "\x1b[0m"
ROLES = {
    "blocked": "\x1b[1;31m",     # BLOCKED, ACTION BLOCKED, FAIL: bold red
    "unverified": "\x1b[1;33m",  # UNVERIFIED: bold yellow
    "fallback": "\x1b[33m",      # fallback used, regenerations: yellow
    "pass": "\x1b[32m",          # PASS, passed: green
    "dim": "\x1b[2m",            # timings
    "agent": "\x1b[1;36m",       # the agent's answer prefix
}
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def colour_for(stream: IO[Any] | None) -> bool:
    """Whether to colour what is written to `stream`."""
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (OSError, ValueError):  # a closed or detached stream
        return False


def paint(text: str, role: str, on: bool) -> str:
    return f"{ROLES[role]}{text}{RESET}" if on and text else text


def plain(text: str) -> str:
    """The text without colour codes."""
    return _ANSI.sub("", text)
