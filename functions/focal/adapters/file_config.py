"""Agent definitions from YAML files (the local default): one file per agent, reloaded when it changes."""

from __future__ import annotations

import threading
from pathlib import Path

from focal.config.loader import load_agent
from focal.errors import AgentNotFound
from focal.models.agent import AgentConfig


class FileConfigStore:
    def __init__(self, *paths: str | Path):
        self._paths = [Path(p) / "agent.yaml" if Path(p).is_dir() else Path(p) for p in paths]
        self._cache: dict[Path, tuple[float, AgentConfig]] = {}
        self._lock = threading.Lock()

    def _load(self, path: Path) -> AgentConfig:
        mtime = path.stat().st_mtime
        with self._lock:
            hit = self._cache.get(path)
            if hit and hit[0] == mtime:
                return hit[1]
        agent = load_agent(path)  # raises AgentConfigInvalid listing every problem
        with self._lock:
            self._cache[path] = (mtime, agent)
        return agent

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        # Local files are the operator's own: every local tenant sees the same agents.
        for path in self._paths:
            agent = self._load(path)
            if agent.id == agent_id:
                return agent
        raise AgentNotFound(f"no agent {agent_id!r} in {', '.join(str(p) for p in self._paths)}")
