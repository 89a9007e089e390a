"""Publishing an agent definition (the config upload in AWS): validate, index, store, prune.

The order keeps turns consistent while it runs: the new documents are in the index before the new
config is stored (a turn still on the old config ignores ids it does not know), and documents the
new config no longer has are deleted only after it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from focal.config.loader import agent_from_text
from focal.models.agent import AgentConfig
from focal.ports import AgentPublisher, Embedder, RuleIndex
from focal.retrieval.rules import SyncReport, sync_index


class AgentIdMismatch(ValueError):
    code = "agent_id_mismatch"


@dataclass
class Published:
    agent: AgentConfig
    indexed: SyncReport


def publish_agent(
    store: AgentPublisher, index: RuleIndex, embedder: Embedder, tenant_id: str, yaml_text: str,
    expected_agent_id: str | None = None,
) -> Published:
    agent = agent_from_text(yaml_text, f"agent upload for tenant {tenant_id}")  # raises AgentConfigInvalid
    if expected_agent_id is not None and agent.id != expected_agent_id:
        raise AgentIdMismatch(f"the file defines agent {agent.id!r}, but it was uploaded to {expected_agent_id!r}")
    report = sync_index(index, embedder, tenant_id, agent, delete=False)
    stored = store.put_agent(tenant_id, yaml_text)
    pruned = sync_index(index, embedder, tenant_id, stored)  # nothing left to embed: deletes the stale ids
    report.deleted = pruned.deleted
    return Published(stored, report)
