"""Dates in the agent's other languages on AWS: every function whose code sets the turn's reading language
(focal.sensing.reading_language.reading_in, found in the code, not listed) reads "el 3 de mayo" with nothing but the code
asset and its own layers as really built (layers/build.py), in Lambda's CPython 3.12; the layers carry dateparser's
data for exactly the languages the readers serve."""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from focal.sensing.reading_language import LANGS
from focal.turn.definition import STAGE_NAMES
from focal_infra.model_stages import entry_modules, reaches
from focal_infra.models_access import NON_STAGE_FUNCTIONS

ROOT = Path(__file__).resolve().parents[2]
FOCAL = ROOT / "functions" / "focal"
PROBE = """
import json, sys
from datetime import date
from focal.sensing.locale_reading import dates_as_read
import dateparser
out = {lang: dates_as_read(text, date(2025, 3, 1), True, lang) for lang, text in json.loads(sys.argv[1])}
print(json.dumps({"read": out, "dateparser": dateparser.__file__}))
"""
CASES = [("es", "Quiero llegar el 3 de mayo"), ("de", "übermorgen bitte"), ("fr", "le 5 juin")]
EXPECTED = {"es": "Quiero llegar el May 3", "de": "2025-03-03 bitte", "fr": "June 5"}


@functools.cache  # the code does not change during a run: parsed once, not once per function asked about
def _modules_setting_the_reading_language() -> frozenset[str]:
    found = set()
    for path in FOCAL.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(node, ast.Call) and getattr(node.func, "id", None) == "reading_in" for node in ast.walk(tree)):
            found.add(".".join(path.relative_to(FOCAL.parent).with_suffix("").parts))
    return frozenset(found)


def reads_other_languages(function: str) -> bool:
    if function not in STAGE_NAMES and function not in NON_STAGE_FUNCTIONS:
        return False  # the authorizer and the approval workflow's own steps run no engine stage
    readers = _modules_setting_the_reading_language()
    return any(reaches(module, reader) for module in entry_modules(function) for reader in readers)


@pytest.fixture(scope="module")
def layout():
    """The assets as deployed (focal.bench.coldstart_layout): code asset, layers, and the runtime's own packages
    (boto3 and python-dateutil, which dateparser imports, come with Lambda's python3.12)."""
    from focal.bench.coldstart_layout import lambda_layout

    return lambda_layout(ROOT / ".focal" / "lambda-assets")


@pytest.fixture(scope="module")
def layers_of(synthesized, resources) -> dict[str, list[str]]:
    stack, _ = synthesized
    layer_of = {stack.get_logical_id(layer.node.default_child): name for name, layer in stack.layers.items()}
    out = {}
    for name, (fn, _) in stack.handlers.items():
        props: dict[str, Any] = resources[stack.get_logical_id(fn.node.default_child)]["Properties"]
        out[name] = [layer_of[ref["Ref"]] for ref in props.get("Layers", [])]
    return out


def test_the_functions_that_read_other_languages_are_derived_from_the_code(layers_of):
    # the sensor reads the turn; route reads the values of a message whose flow it offered ("did you mean …?")
    assert {name for name in layers_of if reads_other_languages(name)} == {"sensor", "route"}


def test_the_layers_ship_dateparser_for_the_languages_the_readers_serve():
    sys.path.insert(0, str(ROOT / "layers"))
    try:
        import build
    finally:
        sys.path.remove(str(ROOT / "layers"))
    assert set(build.DATEPARSER_LANGUAGES) == {"en", *LANGS}


def test_each_such_function_reads_a_spanish_german_and_french_date_on_its_own_layers(layout, layers_of):
    built, python312 = layout.code.parent, layout.command[0]
    for name in (n for n in layers_of if reads_other_languages(n)):
        paths = [layout.code, *(built / layer / "python" for layer in layers_of[name]), layout.runtime]
        env = {"PYTHONPATH": ":".join(str(p) for p in paths if p.is_dir()), "PATH": "/usr/bin:/bin", "TZ": ":UTC"}
        # -S: no site-packages of the build machine; only the code asset and the function's layers are importable
        done = subprocess.run([python312, "-S", "-c", PROBE, json.dumps(CASES)], capture_output=True, text=True,
                              env=env, cwd=built, timeout=600)
        assert done.returncode == 0, f"{name}: {done.stderr[-2000:]}"
        result = json.loads(done.stdout)
        assert result["read"] == EXPECTED, name
        assert result["dateparser"].startswith(str(built)), name
        kept = sorted(p.stem for p in Path(result["dateparser"]).parent.glob("data/date_translation_data/*.py"))
        assert kept == sorted(["__init__", "en", *LANGS]), name
