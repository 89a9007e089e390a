"""Publishing an agent definition (the config upload in AWS): validate, index, store, prune.

This sequence keeps turns consistent while it runs: the new documents are in the index before the new
config is stored (a turn still on the old config ignores ids it does not know), and documents the
new config no longer has are deleted only after it is stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from focal.config.loader import checked_agent, parse_agent_text
from focal.models.agent import AgentConfig
from focal.ports import AgentPublisher, Embedder, RuleIndex
from focal.retrieval.rules import SyncReport, sync_index


class AgentIdMismatch(ValueError):
    code = "agent_id_mismatch"


class AgentIdInvalid(AgentIdMismatch):
    code = "invalid_agent_id"


# An agent id names its tool folder (agents/<id>/), so it may not be '..' or contain a path separator: an API id
# (focal.ids.ID) that starts with a letter or digit and holds no ':', matched whole.
_AGENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def _check_id(agent_id: str) -> None:
    if not (isinstance(agent_id, str) and _AGENT_ID.fullmatch(agent_id)):
        raise AgentIdInvalid(f"agent id {agent_id[:130]!r} must be 1-128 letters, digits, '_', '.' or '-', "
                             "starting with a letter or digit")


@dataclass
class Published:
    agent: AgentConfig
    indexed: SyncReport


def publish_agent(
    store: AgentPublisher, index: RuleIndex, embedder: Embedder, tenant_id: str, yaml_text: str,
    expected_agent_id: str | None = None, base_dir: str | None = None,
) -> Published:
    """`base_dir` is the folder the agent's tool files are deployed in (settings.agents_root/<agent id> in
    AWS): given, every python tool must be a file there that defines its function (focal.adapters.python_tools)."""
    if expected_agent_id is not None:
        _check_id(expected_agent_id)
    source = f"agent upload for tenant {tenant_id}"
    loaded = parse_agent_text(yaml_text, source, base_dir)
    if loaded.config is not None:  # the id first: tool files are looked for in the folder it names
        _check_id(loaded.config.id)
        if expected_agent_id is not None and loaded.config.id != expected_agent_id:
            raise AgentIdMismatch(f"the file defines agent {loaded.config.id!r}, but it was uploaded to {expected_agent_id!r}")
    agent = checked_agent(loaded, source)  # raises AgentConfigInvalid
    check_fits = getattr(store, "check_fits", None)
    if check_fits is not None:  # refused before anything is embedded or indexed (raises AgentTooLarge)
        check_fits(tenant_id, agent, yaml_text)
    report = sync_index(index, embedder, tenant_id, agent, delete=False)
    stored = store.put_agent(tenant_id, yaml_text)
    pruned = sync_index(index, embedder, tenant_id, stored)  # nothing left to embed: deletes the stale ids
    report.deleted = pruned.deleted
    return Published(stored, report)
