"""Lambda entry point of the sensor stage."""

from handlers._stage import stage_handler

handler = stage_handler("sensor")
