"""Model-calling functions are derived from the engine's imports, and each gets the llm layer, the memory
and the permission to reach the configured model (focal_infra/model_stages.py, models_access.py)."""

from __future__ import annotations

import json
import tempfile

import aws_cdk as cdk
import pytest

from focal.turn.definition import FALLBACK_HANDLER, STAGES
from infra_helpers import of_type
from test_infra_stack import function_by_handler, functions, logical_id_of, role_statements  # noqa: F401

# function_by_handler and functions are pytest fixtures: imported for pytest (F401), then named as test parameters (F811).


def write(root, name: str, text: str) -> None:
    path = root.joinpath(*name.split("."))
    path.parent.mkdir(parents=True, exist_ok=True)
    for parent in [path.parent, *path.parent.parents]:
        if parent == root:
            break
        (parent / "__init__.py").touch()
    path.with_suffix(".py").write_text(text)


def test_the_import_walk_follows_lazy_relative_and_package_imports(tmp_path):
    from focal_infra.model_stages import reaches

    write(tmp_path, "focal.model_calls", "")
    write(tmp_path, "focal.stages.direct", "from focal.model_calls import call_model\n")
    write(tmp_path, "focal.stages.lazy", "def f():\n    from focal.helpers import judge\n")
    write(tmp_path, "focal.helpers.judge", "from .. import model_calls\n")  # relative: focal.model_calls
    write(tmp_path, "focal.stages.via_package", "from focal import helpers2\n")
    write(tmp_path, "focal.helpers2.x", "")
    (tmp_path / "focal" / "helpers2" / "__init__.py").write_text("import focal.model_calls\n")
    write(tmp_path, "focal.stages.none", "import json\nfrom focal.helpers2 import x\n")  # x alone runs helpers2/__init__
    write(tmp_path, "focal.stages.offline", "import json\nimport numpy\n")
    assert reaches("focal.stages.direct", root=tmp_path) == ["focal.stages.direct", "focal.model_calls"]
    assert reaches("focal.stages.lazy", root=tmp_path)[-2:] == ["focal.helpers.judge", "focal.model_calls"]
    assert reaches("focal.stages.via_package", root=tmp_path) is not None
    assert reaches("focal.stages.none", root=tmp_path) is not None  # the package's __init__ runs
    assert reaches("focal.stages.offline", root=tmp_path) is None


def test_the_engines_model_calling_stages_include_the_known_ones():
    """A floor, not the list: generate drafts with the model, sensor reads messages with it, enforce judges."""
    from focal_infra.model_stages import model_calling_stages, model_chain

    derived = model_calling_stages()
    assert {"sensor", "generate", "enforce"} <= derived
    assert "persist" not in derived and "retrieve" not in derived
    for name in derived:
        assert model_chain(name)[-1] == "focal.model_calls", name
    assert model_chain("approvals") is not None  # approving resumes tools → generate → enforce


def test_every_model_calling_function_has_the_layer_the_memory_and_the_key(resources, function_by_handler):  # noqa: F811
    from focal_infra.models_access import MIN_MODEL_MEMORY_MB, calls_models

    llm = logical_id_of(resources, "LlmLayer")
    names = {s.handler: s.name for s in STAGES} | {FALLBACK_HANDLER: "fallback",
                                                   "handlers.approvals.handler": "approvals",
                                                   "handlers.agents.handler": "publish"}
    checked = 0
    for handler, name in names.items():
        lid, fn = function_by_handler[handler]
        layers = [ref["Ref"] for ref in fn["Properties"].get("Layers", [])]
        secrets = [json.dumps(st["Resource"]) for st in role_statements(resources, lid)
                   if st["Effect"] == "Allow" and "secretsmanager:GetSecretValue" in json.dumps(st["Action"])]
        has_key = any("model_api_key-??????" in s for s in secrets)
        if calls_models(name):
            assert llm in layers, f"{name} may call a model but lacks the llm layer"
            assert has_key, f"{name} may call a model but may not read focal/acme/model_api_key"
            assert fn["Properties"]["MemorySize"] >= MIN_MODEL_MEMORY_MB, name
            checked += 1
        else:
            assert llm not in layers and not has_key, name
    assert checked >= 4


def _synth(**context):
    from focal_infra.stack import FocalStack
    from focal_infra.testing import NO_BUNDLING, cdk_json_context

    app = cdk.App(outdir=tempfile.mkdtemp(prefix="focal-opt-"),
                  context={**cdk_json_context(), **NO_BUNDLING, "tenant": "acme", **context})
    FocalStack(app, "Focal-acme", tenant="acme")
    return app.synth().get_stack_by_name("Focal-acme").template["Resources"]


def _bedrock_grants(resources) -> dict[str, list]:
    out = {}
    for lid, fn in of_type(resources, "AWS::Lambda::Function").items():
        for st in role_statements(resources, lid):
            if "bedrock:" in json.dumps(st["Action"]):
                out[fn["Properties"]["Handler"]] = st
    return out


@pytest.fixture(scope="module")
def bedrock_profile_stack():
    return _synth(model="bedrock/us.anthropic.claude-3-5-haiku-20241022-v1:0")


def test_a_bedrock_model_is_reached_through_iam_by_exactly_the_model_calling_functions(bedrock_profile_stack):
    from focal_infra.models_access import calls_models

    resources = bedrock_profile_stack
    grants = _bedrock_grants(resources)
    expected = {s.handler for s in STAGES if calls_models(s.name)} | {"handlers.approvals.handler"}
    assert set(grants) == expected
    for st in grants.values():
        assert st["Action"] == "bedrock:InvokeModel"
        text = json.dumps(st["Resource"])
        assert ":inference-profile/us.anthropic.claude-3-5-haiku-20241022-v1:0" in text
        assert ":bedrock:*::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0" in text
    for fn in of_type(resources, "AWS::Lambda::Function").values():
        env = fn["Properties"].get("Environment", {}).get("Variables", {})
        assert (env.get("FOCAL_MODEL") == "bedrock/us.anthropic.claude-3-5-haiku-20241022-v1:0") == (
            fn["Properties"]["Handler"] in expected)


def test_a_plain_bedrock_model_is_one_foundation_model_in_this_region():
    grants = _bedrock_grants(_synth(model="bedrock/anthropic.claude-3-haiku-20240307-v1:0"))
    for st in grants.values():
        text = json.dumps(st["Resource"])
        assert "foundation-model/anthropic.claude-3-haiku-20240307-v1:0" in text and "*" not in text


def test_another_provider_gets_no_bedrock_and_its_model_name():
    resources = _synth(model="openai/gpt-4o-mini")
    assert _bedrock_grants(resources) == {}
    models = {fn["Properties"].get("Environment", {}).get("Variables", {}).get("FOCAL_MODEL")
              for fn in of_type(resources, "AWS::Lambda::Function").values()}
    assert models == {None, "openai/gpt-4o-mini"}


@pytest.mark.parametrize("model", ["bad model", "x" * 300, "$(rm -rf)"])
def test_invalid_model_names_are_refused(model):
    with pytest.raises(ValueError, match="model"):
        _synth(model=model)
