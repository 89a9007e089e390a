"""uvicorn for `focal serve`: its h11 protocol with a request-head deadline and JSON for what it answers itself.

uvicorn answers some requests before any application code runs. Here they are all JSON:
- h11 cannot parse the request (malformed request line or headers, a head over
  `max_header_bytes`): 400 `bad_request`, 414 `uri_too_long` or 431 `headers_too_large`, closed;
- more open connections or requests in flight than `limit_concurrency`: 503 `overloaded` with
  Retry-After (uvicorn's own answer is plain text; the check is moved into `_guarded`);
- the request line and headers not complete within `head_timeout` (uvicorn has no such timer:
  its keep-alive timer only runs between requests): 408 `request_timeout`, closed.
What cannot be a JSON answer: a full listen backlog (the kernel drops the connection attempt and the
client retries), an idle keep-alive connection closed after `timeout_keep_alive` (HTTP says close).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
import uuid
from collections.abc import Iterator
from http import HTTPStatus
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from focal.cli.serve_api import FocalApi, ServeSettings, error_body
from focal.cli.serve_http import AccessLog, access_record, make_app


class FocalProtocol(H11Protocol):
    _lingering: _LingeringTransport


def raw_json_response(status: int, code: str, message: str, headers: dict[str, str] | None = None) -> tuple[bytes, str]:
    """A complete HTTP/1.1 response written past h11 (whose state may already be ERROR), always closing."""
    request_id = str(uuid.uuid4())
    body = json.dumps(error_body(code, message, request_id)).encode()
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}", "content-type: application/json",
             f"content-length: {len(body)}", "connection: close", f"x-amzn-requestid: {request_id}",
             *(f"{k}: {v}" for k, v in (headers or {}).items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body, request_id


LINGER_IDLE_S, LINGER_MAX_S = 0.5, 3.0


class _LingeringTransport:
    """The connection's transport, closing gently when the client is still sending (a refused body, a
    head cut short): send our answer and FIN, read and discard what keeps coming until it pauses
    (`LINGER_IDLE_S`, at most `LINGER_MAX_S`), then close. A plain close with unread input makes the
    kernel send a reset, and the client loses the answer (a 413 while it uploads, a 408)."""

    def __init__(self, transport: asyncio.Transport, protocol: FocalProtocol):
        self._transport, self._protocol = transport, protocol
        self.lingering = False
        self._idle: asyncio.TimerHandle | None = None
        self._deadline = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)

    def is_closing(self) -> bool:
        return self.lingering or self._transport.is_closing()

    def close(self, linger: bool = False) -> None:
        """Linger when the client may still be sending (`linger`, or h11 saw it mid-body or refused its head)."""
        peer = self._protocol.conn.their_state
        if self.lingering or self._transport.is_closing() or not self._transport.can_write_eof() \
                or not (linger or peer in (h11.SEND_BODY, h11.ERROR)):
            self._close_now()
            return
        self.lingering = True
        self._deadline = self._protocol.loop.time() + LINGER_MAX_S
        self._transport.write_eof()
        self._transport.resume_reading()
        self.discarded()

    def discarded(self) -> None:
        """Input arrived while lingering: wait for the next pause (within the overall deadline)."""
        if self._idle is not None:
            self._idle.cancel()
        loop = self._protocol.loop
        self._idle = loop.call_at(min(loop.time() + LINGER_IDLE_S, self._deadline), self._close_now)

    def _close_now(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        self._transport.close()


def protocol_class(settings: ServeSettings, access_log: AccessLog | None) -> type[H11Protocol]:
    def log_early(request_id: str, status: int, code: str) -> None:
        if access_log is not None:
            access_log(access_record(request_id, "-", "-", status, 0.0, None, code))

    class FocalH11Protocol(FocalProtocol):
        _focal_limit: int | None = None
        _head_timer: asyncio.TimerHandle | None = None

        # uvicorn's own limit check answers plain text: keep the value, check it in `_guarded`
        @property
        def limit_concurrency(self) -> None:
            return None

        @limit_concurrency.setter
        def limit_concurrency(self, value: int | None) -> None:
            self._focal_limit = value

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.app = self._guarded(self.app)

        def _guarded(self, app: Any) -> Any:
            async def guarded(scope: Any, receive: Any, send: Any) -> None:
                limit = self._focal_limit
                if limit is not None and (len(self.connections) > limit or len(self.tasks) > limit):
                    request_id = str(uuid.uuid4())
                    body = json.dumps(error_body("overloaded", "the server is at capacity; retry shortly", request_id)).encode()
                    await send({"type": "http.response.start", "status": 503, "headers": [
                        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                        (b"retry-after", b"1"), (b"connection", b"close"), (b"x-amzn-requestid", request_id.encode())]})
                    await send({"type": "http.response.body", "body": body})
                    log_early(request_id, 503, "overloaded")
                    return
                await app(scope, receive, send)

            return guarded

        # --- the request-head deadline -----------------------------------------------------------
        def _arm_head(self) -> None:
            if self._head_timer is None and not self.transport.is_closing():
                self._head_timer = self.loop.call_later(settings.head_timeout, self._head_timeout)

        def _cancel_head(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_timeout(self) -> None:
            self._head_timer = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return  # closed, or a request is being served (the app's body deadline applies)
            if self.conn.trailing_data[0]:  # part of a request head arrived, the rest did not
                self._write_and_close(408, "request_timeout",
                                      f"the request line and headers did not arrive within {settings.head_timeout:g} s")
            else:
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            self._lingering = _LingeringTransport(transport, self)
            super().connection_made(self._lingering)  # type: ignore[arg-type]
            self._arm_head()

        def data_received(self, data: bytes) -> None:
            if self._lingering.lingering:
                self._lingering.discarded()  # answered and closing: the rest of the request is dropped
                return
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self._arm_head()  # a head in progress: the deadline runs from its first byte
            else:
                self._cancel_head()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self.conn.their_state is h11.IDLE:
                self._arm_head()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_head()
            super().connection_lost(exc)

        # --- what h11 refuses ---------------------------------------------------------------------
        def send_400_response(self, msg: str) -> None:
            if self.cycle is not None and self.cycle.response_started and not self.cycle.response_complete:
                self.transport.close()  # mid-response: nothing more can be said
                return
            buffered = self.conn.trailing_data[0]
            line_end = buffered.find(b"\r\n")
            if len(buffered) > settings.max_header_bytes and (line_end == -1 or line_end > settings.max_url_bytes):
                self._write_and_close(414, "uri_too_long", f"the request line may have at most {settings.max_url_bytes} bytes")
            elif len(buffered) > settings.max_header_bytes:
                self._write_and_close(431, "headers_too_large",
                                      f"the request line and headers may have at most {settings.max_header_bytes} bytes")
            else:
                self._write_and_close(400, "bad_request", "invalid HTTP request")

        def _write_and_close(self, status: int, code: str, message: str) -> None:
            self._cancel_head()
            payload, request_id = raw_json_response(status, code, message)
            self.transport.write(payload)
            self._lingering.close(linger=True)
            log_early(request_id, status, code)

    return FocalH11Protocol


def uvicorn_config(api: FocalApi, host: str, port: int, settings: ServeSettings | None = None,
                   access_log: AccessLog | None = None, uvicorn_logs: bool = False) -> uvicorn.Config:
    settings = settings or ServeSettings()
    return uvicorn.Config(
        make_app(api, settings, access_log), host=host, port=port,
        http=protocol_class(settings, access_log), ws="none", lifespan="off", loop="asyncio",
        backlog=settings.backlog, limit_concurrency=settings.limit_concurrency,
        timeout_keep_alive=settings.timeout_keep_alive, h11_max_incomplete_event_size=settings.max_header_bytes,
        timeout_graceful_shutdown=5, server_header=False, date_header=True, proxy_headers=False,
        access_log=False, log_config=uvicorn.config.LOGGING_CONFIG if uvicorn_logs else None,
        log_level="info" if uvicorn_logs else "warning",
    )


@contextlib.contextmanager
def serving(api: FocalApi, host: str = "127.0.0.1", port: int = 0, settings: ServeSettings | None = None,
            access_log: AccessLog | None = None) -> Iterator[str]:
    """uvicorn in a background thread; yields the base URL (tests, `focal bench load`)."""
    server = uvicorn.Server(uvicorn_config(api, host, port, settings, access_log))
    thread = threading.Thread(target=server.run, name="focal-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("focal serve did not start")
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
