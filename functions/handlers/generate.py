"""Lambda entry point of the generate stage."""

from handlers._stage import stage_handler

handler = stage_handler("generate")
