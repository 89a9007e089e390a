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
    """`ast.parse`; raises SyntaxError also for source nested too deeply to parse (`x=` and 200,000 unary
    minus signs end in MemoryError or RecursionError inside the parser)."""
    with _lock:
        try:
            return ast.parse(source, **kwargs)
        except (MemoryError, RecursionError):
            raise SyntaxError("nested too deeply") from None
