"""mkdocs hooks: the reference pages are generated from the code at build time, and snippets are read from the
repository root wherever mkdocs is started.

A page asks for a generated part with a marker line; each marker is replaced by what its generator renders:

    <!-- focal:agent-file -->   the agent file's JSON Schema (`focal schema`)
    <!-- focal:cli -->          every `focal` command and option (its argparse parser)
    <!-- focal:http-api -->     the routes and schemas of the OpenAPI document `focal serve` serves
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# The engine of this tree (before an installed one) and the generators. mkdocs restores sys.path once this file
# is loaded, so everything the generators need is imported now: later imports find these packages in sys.modules.
sys.path[:0] = [str(ROOT / "functions"), str(ROOT / "docs")]

import focal.cli.openapi  # noqa: E402,F401
import focal.main  # noqa: E402,F401
import focal.models.agent  # noqa: E402,F401
from focal_docs.cli_md import cli_reference  # noqa: E402
from focal_docs.openapi_md import http_reference  # noqa: E402
from focal_docs.schema_md import agent_file_reference  # noqa: E402

GENERATED = {
    "<!-- focal:agent-file -->": agent_file_reference,
    "<!-- focal:cli -->": cli_reference,
    "<!-- focal:http-api -->": http_reference,
}


def on_config(config: Any) -> Any:
    """Snippets (`--8<-- "examples/tutorial/agent.yaml:fields"`) are paths from the repository root."""
    snippets = config["mdx_configs"].setdefault("pymdownx.snippets", {})
    snippets["base_path"] = [str(ROOT)]
    snippets["check_paths"] = True  # a missing file or section fails the build
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    for marker, render in GENERATED.items():
        if marker in markdown:
            markdown = markdown.replace(marker, render())
    return markdown
