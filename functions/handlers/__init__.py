"""The thin Lambda entry points, one module per function: parse the event, run the engine, serialise."""
