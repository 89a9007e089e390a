"""EventBridge event sink (AWS): one PutEvents entry per engine event.

`Source` is `focal`, `DetailType` the event type (`approval_requested`, `tool_result`, ...), `Detail`
the event itself (ids, figures, states: `EngineEvent` carries no customer text). Like the local
sinks, a failed put is logged and dropped: an event never costs the turn.
"""

from __future__ import annotations

import logging
from typing import Any

from focal.adapters import aws
from focal.models.approval import EngineEvent

log = logging.getLogger("focal.events")
SOURCE = "focal"


class EventBridgeEventSink:
    def __init__(self, bus_name: str, client: Any | None = None, source: str = SOURCE) -> None:
        self.bus_name, self.source = bus_name, source
        self._client = client or aws.client("events")

    def entry(self, event: EngineEvent) -> dict[str, Any]:
        return {"Source": self.source, "DetailType": event.type, "Detail": event.model_dump_json(),
                "EventBusName": self.bus_name}

    def publish(self, event: EngineEvent) -> None:
        try:
            response = self._client.put_events(Entries=[self.entry(event)])
        except Exception as exc:  # noqa: BLE001 - an event must never lose the turn
            log.warning("event %s not put on %s: %s", event.type, self.bus_name, type(exc).__name__)
            return
        if response.get("FailedEntryCount"):
            codes = [e.get("ErrorCode") for e in response.get("Entries", []) if e.get("ErrorCode")]
            log.warning("event %s rejected by %s: %s", event.type, self.bus_name, codes)
