"""Lambda entry point of the route stage."""

from handlers._stage import stage_handler

handler = stage_handler("route")
