"""A tool worker process: one tenant's calls of one agent's python tools, each in a thread of its own.

Started by focal.adapters.tool_workers as `python -m focal.adapters.tool_worker <threads>`. It reads call
frames (focal.adapters.tool_frames) on stdin, answers each on stdout, and exits as soon as stdin closes
(the engine stopped, or let this worker go). Everything tool code raises — BaseException included:
SystemExit, KeyboardInterrupt, GeneratorExit, an exception class of its own — is that call's failure and
never leaves the call's thread; the main thread only reads frames. What tool code prints goes to stderr,
never into the frames, and it reads nothing from stdin.

    call:   {"id": n, "tool": id, "base_dir": folder or null, "entrypoint": "file.py:function",
             "allowed_modules": [...], "arguments": {...}, "context": {"customer_id", "idempotency_key"} or null}
    answer: {"id": n, "result": {...}}  or  {"id": n, "error": "the ToolError's text"}
"""

from __future__ import annotations

import os
import queue
import signal
import sys
import threading
from typing import Any, BinaryIO

from focal.adapters.tool_frames import MAX_FRAME_BYTES, encode_frame, read_frame, write_frame
from focal.errors import ToolError
from focal.tool_files import call_arguments, load_function

MAX_ERROR_CHARS = 2000


def _describe(exc: BaseException) -> str:
    try:
        text = str(exc)
    except BaseException:  # noqa: BLE001 - an exception whose own text cannot be had
        text = ""
    return f"{type(exc).__name__}: {text}"[:MAX_ERROR_CHARS] if text else type(exc).__name__


def answer(call: dict[str, Any]) -> dict[str, Any]:
    """The answer to one call: the tool's mapping, or the text of its failure."""
    tool = call.get("tool")
    try:
        func = load_function(call.get("base_dir"), str(call.get("entrypoint") or ""), call.get("allowed_modules") or ())
        result = func(**call_arguments(func, call.get("arguments") or {}, call.get("context")))
    except ToolError as exc:  # a refused entrypoint, or a tool's own ToolError: its text as it is
        return {"error": str(exc)[:MAX_ERROR_CHARS]}
    except BaseException as exc:  # noqa: BLE001 - whatever tool code raises is its call's failure
        return {"error": f"tool {tool!r} failed: {_describe(exc)}"}
    if not isinstance(result, dict):
        return {"error": f"tool {tool!r} returned {type(result).__name__}, expected a mapping"}
    return {"result": result}


def frame_of(call_id: Any, tool: Any, reply: dict[str, Any]) -> bytes:
    """The answer's frame: a result that is not JSON as pydantic would write it, or that is over the frame
    limit, becomes the call's failure."""
    try:
        try:
            frame = encode_frame({"id": call_id, **reply})
        except (TypeError, ValueError):
            from pydantic_core import to_jsonable_python  # only for dates, decimals and the like

            frame = encode_frame({"id": call_id, "result": to_jsonable_python(reply["result"])})
    except BaseException as exc:  # noqa: BLE001 - a result's own methods run here
        return encode_frame({"id": call_id, "error": f"tool {tool!r} returned a value that cannot be sent as JSON: "
                                                     f"{_describe(exc)}"})
    if len(frame) > MAX_FRAME_BYTES:
        return encode_frame({"id": call_id, "error": f"tool {tool!r} returned {len(frame)} bytes, "
                                                     f"over the limit of {MAX_FRAME_BYTES}"})
    return frame


def serve(calls: BinaryIO, answers: BinaryIO, threads: int) -> None:
    """Read calls until stdin closes; `threads` threads run them (the engine sends no more at once)."""
    lock = threading.Lock()
    waiting: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()

    def run() -> None:
        while True:
            call = waiting.get()
            frame = frame_of(call.get("id"), call.get("tool"), answer(call))
            try:
                with lock:
                    write_frame(answers, frame)
            except OSError:  # the engine is gone
                os._exit(0)

    for n in range(threads):
        threading.Thread(target=run, name=f"focal-tool-{n}", daemon=True).start()
    while True:
        try:
            call = read_frame(calls)
        except (OSError, ValueError):
            call = None
        if call is None:
            os._exit(0)  # tool threads may still be running: they end with the process
        waiting.put(call)


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the engine, which closes this worker's stdin
    calls, answers = os.fdopen(os.dup(0), "rb"), os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin, sys.stdout = open(os.devnull, encoding="utf-8"), sys.stderr  # noqa: SIM115 - for the process's life
    serve(calls, answers, threads)


if __name__ == "__main__":
    main()
