"""A turn in Spanish through the synthesized state machine in moto: the sensor and retrieve functions fetch the
multilingual weights from the S3 object FOCAL_USE_FILES names (the template's asset, uploaded to moto's bucket),
check the digest, and match the turn in the multilingual space; with the object absent the turn fails closed."""

from __future__ import annotations

import json
import tempfile

import boto3
import pytest

from focal.adapters import use_embedder
from focal.adapters.use_files import ENV, TOKENIZER, WEIGHTS, package_folder
from harness import REGION
from iam_check import Recorder, RolePolicies, denied
from test_e2e_conversation import AGENT, RETAIL_YAML, TENANT, Conversation, _clear_caches, publish, world  # noqa: F401


@pytest.fixture
def spanish(world, monkeypatch, tmp_path):  # noqa: F811 - the conversation test's fixture, used here
    harness, ddb, _ = world
    files = json.loads(harness.environment_of("handlers.sensor.handler")[ENV])
    assert json.loads(harness.environment_of("handlers.retrieve.handler")[ENV]) == files
    resources = package_folder() / "resources"
    files[TOKENIZER]["source"] = str(resources / TOKENIZER)  # no /opt/models layer here (as FOCAL_MODEL_DIR)
    monkeypatch.setenv(ENV, json.dumps(files))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the function's /tmp
    monkeypatch.setattr(use_embedder, "_shared", {})  # a fresh container: the model not loaded yet
    bucket, _, key = files[WEIGHTS]["source"].removeprefix("s3://").partition("/")
    s3 = boto3.client("s3", region_name=REGION)
    s3.create_bucket(Bucket=bucket)
    doc = RETAIL_YAML.read_text(encoding="utf-8")
    published = publish(TENANT, "languages: [en, es]\n" + doc)
    assert published["agent_id"] == AGENT
    _clear_caches()
    return harness, ddb, s3, bucket, key, resources / WEIGHTS, tmp_path


def test_a_spanish_turn_fetches_the_weights_from_s3_and_is_matched_in_the_multilingual_space(spanish, monkeypatch):
    harness, ddb, s3, bucket, key, weights, tmp = spanish
    s3.put_object(Bucket=bucket, Key=key, Body=weights.read_bytes())
    recorder = Recorder(harness)
    recorder.install(monkeypatch)
    out = Conversation(harness, ddb, "e2e-es").say("Quiero un reembolso de mi pedido")
    assert out["success"] is True, out
    assert out["scenario"] and out["scenario"]["id"] == "refund", out
    assert [p.name for p in tmp.rglob(WEIGHTS)] == [WEIGHTS]  # fetched once to /tmp, by digest
    fetched = {(r.function, r.action) for r in recorder.calls if r.action.startswith("s3:")}
    assert ("handlers.sensor.handler", "s3:GetObject") in fetched, fetched
    refused = denied(recorder, RolePolicies(harness))  # each call allowed by that function's role in the template
    assert refused == [], "\n".join(refused)


def test_without_the_s3_object_a_spanish_turn_fails_closed(spanish):
    harness, ddb, *_ = spanish
    out = Conversation(harness, ddb, "e2e-es-missing").say("Quiero un reembolso de mi pedido")
    assert out["success"] is False and out["error"]["code"] == "stage_failed:MultilingualSpaceUnavailable", out
