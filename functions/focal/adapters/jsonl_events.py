"""Local event sinks: one JSON object per line in a file (default `.focal/events.jsonl` beside the
SQLite file), or a list in memory (tests, `:memory:` databases). EventBridge takes their place in AWS.

A sink must never lose the turn: a write that fails is dropped, with a warning on the log.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from focal.models.approval import EngineEvent

log = logging.getLogger("focal.events")


class JsonlEventSink:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def publish(self, event: EngineEvent) -> None:
        line = event.model_dump_json() + "\n"
        try:
            with self._lock:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write(line)
        except OSError as exc:
            log.warning("event %s not written to %s: %s", event.type, self.path, exc)


class MemoryEventSink:
    def __init__(self) -> None:
        self.events: list[EngineEvent] = []

    def publish(self, event: EngineEvent) -> None:
        self.events.append(event)

    def of(self, kind: str) -> list[EngineEvent]:
        return [e for e in self.events if e.type == kind]
