"""Lambda entry point of the tools stage."""

from handlers._stage import stage_handler

handler = stage_handler("tools")
