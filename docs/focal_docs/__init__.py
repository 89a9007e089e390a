"""Generators of the reference pages (the mkdocs hook `docs/hooks.py` calls them): each renders what the code
declares — the agent file's JSON Schema, the `focal` command's parser, the OpenAPI document — as Markdown."""
