"""What the load benches (`focal bench load`, with and without `--kill-once`) send: the messages of a
conversation and the bounds of a run."""

from __future__ import annotations

# Turns that start no side effect on any agent, so conversations never depend on each other.
SCRIPT = ("Hello!", "What can you help me with?", "Do you have any discounts?", "thanks a lot, you're very helpful")
MAX_CONVERSATIONS, MAX_TURNS = 1000, 20


def conversation_script(turns: int) -> list[str]:
    if not 1 <= turns <= MAX_TURNS:
        raise ValueError(f"focal bench load runs 1..{MAX_TURNS} turns per conversation")
    return [SCRIPT[i % len(SCRIPT)] for i in range(turns)]
