"""Indexing: `focal index` embeds only what changed (content digest), deletes what is gone, keeps
the embedded index on disk; a changed or disabled rule takes effect on the next turn."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from focal.adapters.numpy_index import NumpyRuleIndex
from focal.config.loader import load_agent
from focal.main import main
from focal.models.turn import TurnRequest
from focal.pipeline.runner import LocalRunner
from focal.ports import ScopeFilter
from focal.retrieval.rules import agent_rule_keys, rule_keys, rule_of, sync_index
from focal.wiring import local_deps

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"


class CountingEmbedder:
    def __init__(self, inner):
        self.inner, self.dimension, self.texts = inner, inner.dimension, []

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)


@pytest.fixture
def embedder():
    from focal.adapters.onnx_embedder import shared_embedder

    return CountingEmbedder(shared_embedder())


@pytest.fixture
def agent_file(tmp_path):
    folder = tmp_path / "retail"
    shutil.copytree(RETAIL, folder)
    return folder / "agent.yaml"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
    os.utime(path, (path.stat().st_atime, path.stat().st_mtime + 2))  # a new mtime even within one second


def test_only_changed_documents_are_embedded_and_removed_ones_deleted(agent_file, embedder, tmp_path):
    index = NumpyRuleIndex(tmp_path / "index")
    agent = load_agent(agent_file)
    first = sync_index(index, embedder, "t", agent)
    # each rule's condition (alone, with its action, naming each term of its vocabulary: no_competitors's five stores), examples
    keys = sum(len(agent_rule_keys(agent, r)) for r in agent.rules if r.enabled)
    assert keys == sum(len(rule_keys(r)) for r in agent.rules if r.enabled) + 5
    total = keys + sum(len(s.entry_examples) for s in agent.scenarios)
    assert (first.embedded, first.unchanged, first.deleted) == (total, 0, 0)

    embedder.texts.clear()
    edit(agent_file, "The customer asks how long delivery or shipping takes",
         "The customer asks how many days delivery takes")
    edit(agent_file, "  - id: warranty\n", "  - id: warranty\n    enabled: false\n")
    report = sync_index(NumpyRuleIndex(tmp_path / "index"), embedder, "t", load_agent(agent_file))  # fresh process
    shipping = load_agent(agent_file).rule("shipping_times")
    assert embedder.texts == ["The customer asks how many days delivery takes",  # the condition, alone and with the action
                              f"The customer asks how many days delivery takes. {shipping.action_text}"]
    warranty = len(agent_rule_keys(agent, agent.rule("warranty")))  # every key of the disabled rule leaves the index
    assert (report.embedded, report.deleted) == (2, warranty)
    assert not any(rule_of(i) == "warranty" for i in NumpyRuleIndex(tmp_path / "index").digests("t", "retail"))


def test_the_index_file_never_answers_for_another_tenant(agent_file, embedder, tmp_path):
    index = NumpyRuleIndex(tmp_path / "index")
    sync_index(index, embedder, "abc", load_agent(agent_file))
    reopened = NumpyRuleIndex(tmp_path / "index")
    assert reopened.digests("abc-def", "retail") == {}
    vector = embedder.embed(["how long does shipping take?"])[0]
    assert reopened.search(ScopeFilter("abc-def", "retail"), vector, 5) == []
    assert rule_of(reopened.search(ScopeFilter("abc", "retail"), vector, 5)[0].rule_id) == "shipping_times"


def test_focal_index_prints_what_it_did(agent_file, tmp_path, capsys):
    db = str(tmp_path / "f.db")
    assert main(["index", str(agent_file), "--tenant", "acme", "--db", db]) == 0
    assert "0 unchanged, 0 deleted" in capsys.readouterr().out
    assert main(["index", str(agent_file), "--tenant", "acme", "--db", db]) == 0
    out = capsys.readouterr()
    assert "retail (tenant acme)" in out.out and "0 embedded" in out.out and "0 deleted" in out.out


def test_a_disabled_or_changed_rule_takes_effect_on_the_next_turn(agent_file, tmp_path):
    runner = LocalRunner(local_deps(agent_file, tmp_path / "focal.db"))

    def ask(n: int, message: str):
        return runner.turn(TurnRequest(tenant_id="t", agent_id="retail", session_id=f"s{n}", turn_id=str(n),
                                       message=message))

    assert "shipping_times" in ask(0, "how long does shipping take?").matched_rules
    edit(agent_file, "    response_template: Standard delivery takes 3-5 business days",
         "    enabled: false\n    response_template: Standard delivery takes 3-5 business days")
    assert "shipping_times" not in ask(1, "how long does shipping take?").matched_rules
    edit(agent_file, "    enabled: false\n    response_template: Standard delivery takes 3-5 business days",
         "    response_template: Standard delivery now takes 2-4 business days")
    assert "2-4 business days" in ask(2, "how long does shipping take?").response
