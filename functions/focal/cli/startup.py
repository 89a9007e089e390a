"""How long `focal test` took to start: from the process's start to its first conversation (`-v` prints it on
stderr, `focal bench startup` reads it), and how many of the agent's vectors came from the on-disk cache."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

_IMPORTED = time.monotonic()  # the fallback origin where /proc cannot say when the process started


def process_age_s() -> float:
    """Seconds since this process started (Linux: its start time in /proc against the boot clock); elsewhere
    since this module was imported, a little less."""
    try:
        fields = Path("/proc/self/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime, in clock ticks after boot
        return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _IMPORTED


def startup_line(seconds: float, embedder: Any) -> str:
    """'start-up: 2.41 s to the first conversation (CPU 1.95 s); the agent's texts: …' — the CPU time says what
    the start-up costs on a machine busy with other work, where the wall time says more about the machine."""
    stats = getattr(embedder, "stats", None)
    texts = (f"; the agent's texts: {stats['from_cache']} vector(s) read from the cache, {stats['embedded']} embedded"
             if isinstance(stats, dict) else "")
    return f"start-up: {seconds:.2f} s to the first conversation (CPU {time.process_time():.2f} s){texts}"
