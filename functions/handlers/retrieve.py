"""Lambda entry point of the retrieve stage."""

from handlers._stage import stage_handler

handler = stage_handler("retrieve")
