"""The agent's texts' vectors kept on disk (focal.adapters.vector_cache): keyed by the model and the text, read
back by a later process instead of embedding again, written whole (temp file, then rename), never a message."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from focal.adapters.vector_cache import CachedEmbedder, VectorFile
from focal.config.loader import load_agent
from focal.ports import embed_fixed
from focal.sensing.acts import ActIndex
from focal.sensing.intents import IntentIndex

AGENT = load_agent(Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml")


class Counting:
    """A deterministic stand-in for MiniLM (a vector from the text's digest) that counts what it embeds."""

    dimension = 8

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts):
        self.embedded += list(texts)
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8) for t in texts]
        out = np.array(rows, dtype=np.float32).reshape(len(texts), 8) + 1.0
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def cached(folder: Path, model_id: str = "minilm-test") -> tuple[CachedEmbedder, Counting]:
    inner = Counting()
    return CachedEmbedder(inner, folder, model_id), inner


def test_a_second_process_reads_the_vectors_instead_of_embedding(tmp_path):
    first, inner = cached(tmp_path)
    vectors = embed_fixed(first, ["refund my order", "where is my parcel"])
    assert inner.embedded == ["refund my order", "where is my parcel"]
    again, inner2 = cached(tmp_path)  # a new process: nothing in memory, the file on disk
    assert np.array_equal(embed_fixed(again, ["where is my parcel", "refund my order"]), vectors[::-1])
    assert inner2.embedded == [] and again.stats == {"from_cache": 2, "embedded": 0}


def test_the_real_index_builders_embed_nothing_the_second_time(tmp_path):
    first, inner = cached(tmp_path)
    IntentIndex(AGENT, first)
    ActIndex(first)
    assert inner.embedded  # the agent's examples and the act exemplars
    again, inner2 = cached(tmp_path)
    IntentIndex(AGENT, again)
    ActIndex(again)
    assert inner2.embedded == []


def test_another_model_or_a_changed_text_is_embedded_again(tmp_path):
    embed_fixed(cached(tmp_path)[0], ["refund my order"])
    other, inner = cached(tmp_path, "another-model")
    embed_fixed(other, ["refund my order"])
    assert inner.embedded == ["refund my order"]
    same, inner2 = cached(tmp_path)
    embed_fixed(same, ["refund my order!"])
    assert inner2.embedded == ["refund my order!"]


def test_a_customer_message_is_never_written(tmp_path):
    embedder, _ = cached(tmp_path)
    embedder.embed(["my card number is 4111 1111 1111 1111"])
    embed_fixed(embedder, ["refund my order"])
    keys = VectorFile(tmp_path, "minilm-test").load()
    assert set(keys) == {VectorFile.key("minilm-test", "refund my order")}


def test_a_damaged_file_is_ignored_and_replaced(tmp_path):
    embed_fixed(cached(tmp_path)[0], ["refund my order"])
    [path] = tmp_path.glob("*.npz")
    path.write_bytes(b"not a vector file")
    embedder, inner = cached(tmp_path)
    embed_fixed(embedder, ["refund my order"])
    assert inner.embedded == ["refund my order"]
    assert len(VectorFile(tmp_path, "minilm-test").load()) == 1


def test_writes_go_through_a_temp_file_and_a_rename_and_merge_what_others_wrote(tmp_path, monkeypatch):
    import os

    a, _ = cached(tmp_path)
    b, _ = cached(tmp_path)  # two concurrent runs: both have read the file before either adds to it
    embed_fixed(a, ["shared"])
    embed_fixed(b, ["shared"])
    renames: list[tuple[str, str]] = []
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (renames.append((str(src), str(dst))), real(src, dst))[1])
    embed_fixed(a, ["text a"])
    embed_fixed(b, ["text b"])  # b never read "text a", and does not drop it
    [path] = tmp_path.glob("*.npz")
    assert [dst for _, dst in renames] == [str(path), str(path)]
    assert all(Path(src).parent == tmp_path and src != dst for src, dst in renames)
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]  # no temp file left behind
    assert len(VectorFile(tmp_path, "minilm-test").load()) == 3


def test_vectors_of_the_wrong_shape_are_not_trusted(tmp_path):
    VectorFile(tmp_path, "minilm-test").save({VectorFile.key("minilm-test", "x"): np.ones(3, dtype=np.float32)})
    embedder, inner = cached(tmp_path)
    assert embed_fixed(embedder, ["x"]).shape == (1, 8)
    assert inner.embedded == ["x"]


@pytest.mark.parametrize("texts", [[], [""]])
def test_nothing_or_an_empty_text(tmp_path, texts):
    embedder, _ = cached(tmp_path)
    assert embed_fixed(embedder, texts).shape == (len(texts), 8)
