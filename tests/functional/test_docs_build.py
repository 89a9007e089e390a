"""The documentation site builds with `mkdocs build --strict` (a broken link or anchor, a missing snippet or a
page left out of the nav fails), from any working directory, and its reference pages are complete: every field
of the agent file's schema, every `focal` command and every HTTP route appears, generated from the code."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from focal.cli.help_texts import subcommands
from focal.cli.openapi import openapi_document
from focal.main import parser
from focal.models.agent import agent_json_schema

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # the theme's end-of-life banner, not a build problem
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(out / "html")],
        cwd=out, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stderr, done.stderr
    return out / "html"


def _text(site: Path, page: str) -> str:
    """The page's text as a reader sees it (tags dropped, entities decoded)."""
    raw = (site / page / "index.html").read_text(encoding="utf-8")
    return html.unescape(re.sub(r"<[^>]+>", "", raw))


def test_every_page_of_the_docs_folder_is_built(site: Path) -> None:
    pages = sorted(p.relative_to(ROOT / "docs").with_suffix("") for p in (ROOT / "docs").rglob("*.md"))
    assert len(pages) >= 20
    for page in pages:
        folder = page.parent if page.name == "index" else page
        assert (site / folder / "index.html").is_file(), page


def test_the_agent_file_reference_lists_every_field_of_the_schema(site: Path) -> None:
    schema = agent_json_schema()
    text = _text(site, "reference/agent-file")
    models = {"AgentConfig": schema, **schema["$defs"]}
    fields = [(model, name) for model, d in models.items() for name in d.get("properties", {})]
    assert len(fields) > 150
    for model, name in fields:
        assert re.search(rf"\b{re.escape(model)}\b", text), model
        assert re.search(rf"\n{re.escape(name)}\n", text), f"{model}.{name}"  # a table cell of its own
    assert "stickiness_boost" in text and "0.15" in text  # defaults are shown


def test_the_cli_reference_lists_every_command_and_option(site: Path) -> None:
    text = _text(site, "reference/cli")
    root = parser()
    for path, sub in subcommands(root):
        assert f"focal {path}" in text, path
        for action in sub._actions:
            for flag in action.option_strings:
                if flag not in ("-h", "--help"):
                    assert flag in text, f"focal {path} {flag}"


def test_the_http_reference_lists_every_route_and_status(site: Path) -> None:
    text = _text(site, "reference/http-api")
    for path, methods in openapi_document()["paths"].items():
        for method, op in methods.items():
            assert f"{method.upper()} {path}" in text
            for status, answer in op["responses"].items():
                assert " ".join(answer["description"].split()) in " ".join(text.split()), (path, status)
    assert "TurnResult" in text and "execution_path" in text


def test_every_field_of_the_http_api_is_described() -> None:
    """The OpenAPI document (and so the HTTP reference) says what every field of every body means."""
    schemas = openapi_document()["components"]["schemas"]
    bare = [f"{name}.{field}" for name, schema in schemas.items()
            for field, prop in schema.get("properties", {}).items() if not prop.get("description", "").strip()]
    assert bare == []
