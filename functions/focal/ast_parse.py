"""`ast.parse` behind one lock.

CPython 3.11 can fail `ast.parse` running in several threads at once ("SystemError: AST constructor
recursion depth mismatch", python/cpython#106905); `focal serve` parses expressions and tool files from
many request threads. Parsing is short, so one process-wide lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading
from typing import Any

_lock = threading.Lock()


def parse(source: str | bytes, **kwargs: Any) -> Any:
    with _lock:
        return ast.parse(source, **kwargs)
