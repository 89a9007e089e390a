"""Lambda entry point of the persist stage."""

from handlers._stage import stage_handler

handler = stage_handler("persist")
