"""Lambda entry point of the Catch path: structured answer, turn recorded."""

from handlers._stage import fallback_handler as handler

__all__ = ["handler"]
