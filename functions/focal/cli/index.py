"""`focal index AGENT`: embed and upsert an agent's rules and scenario examples, re-embedding only
what changed. Locally into the embedded index beside the SQLite file; with FOCAL_INDEX=opensearch
into the tenant environment's OpenSearch index (the same sync the config upload runs in AWS)."""

from __future__ import annotations

import sys
from pathlib import Path

from focal.config.loader import load_agent
from focal.ports import RuleIndex
from focal.retrieval.rules import SyncReport, sync_index

BAR = 30


def progress_bar(stream=sys.stderr):
    def show(done: int, total: int) -> None:
        filled = BAR * done // max(total, 1)
        stream.write(f"\r  [{'#' * filled}{'.' * (BAR - filled)}] {done}/{total} embedded")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def target_index(db: str, dimension: int) -> tuple[RuleIndex, str]:
    from focal.settings import get_settings

    settings = get_settings()
    if settings.index == "opensearch":
        from focal.wiring import rule_index_from_settings

        index = rule_index_from_settings(settings, dimension)
        ensure = getattr(index, "ensure_index", None)
        if ensure is not None:
            ensure()
        return index, "OpenSearch"
    from focal.adapters.numpy_index import NumpyRuleIndex

    folder = Path(db).parent / "index"
    return NumpyRuleIndex(folder), f"embedded index in {folder}"


def index_agent(agent_path: str, tenant: str, db: str) -> tuple[SyncReport, str]:
    from focal.adapters.onnx_embedder import shared_embedder

    agent = load_agent(agent_path)
    embedder = shared_embedder()
    index, where = target_index(db, embedder.dimension)
    report = sync_index(index, embedder, tenant, agent, progress=progress_bar())
    return report, f"{agent.id} (tenant {tenant}) → {where}: {report}"
