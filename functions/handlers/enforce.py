"""Lambda entry point of the enforce stage."""

from handlers._stage import stage_handler

handler = stage_handler("enforce")
