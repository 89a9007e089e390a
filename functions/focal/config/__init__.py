"""Reading and checking agent files: the loader, the schema checks and the warnings of focal validate."""
