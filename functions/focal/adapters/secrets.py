"""Secret sources for `${secret:NAME}` in tool headers (the `SecretSource` port).

- `EnvSecretSource` (local): NAME is read from the environment variable `FOCAL_SECRET_<NAME>`
  (upper-cased, every character other than a letter or digit becomes '_'), so that an agent file
  can never read other variables of the process (AWS credentials, …).
- `SecretsManagerSource` / `SsmParameterSource` (AWS): NAME is read under a per-tenant prefix
  (`focal/<tenant>/NAME`, `/focal/<tenant>/NAME` for SSM), which is also what the function's IAM
  policy should be scoped to. Values are cached for a few minutes per container.

Values are never logged; a missing or unreadable secret is None (the runner turns that into a
tool error naming the secret, not its value).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

ENV_PREFIX = "FOCAL_SECRET_"


def env_name(name: str) -> str:
    return ENV_PREFIX + re.sub(r"[^A-Za-z0-9]", "_", name).upper()


class EnvSecretSource:
    def __init__(self, environ: Mapping[str, str] | None = None):
        self._environ = environ

    def get(self, name: str) -> str | None:
        environ = os.environ if self._environ is None else self._environ
        return environ.get(env_name(name)) or None


class _CachedAwsSource:
    """Shared by the two AWS sources: a lazily created client and a small TTL cache."""

    service = ""

    def __init__(self, prefix: str = "", ttl_s: float = 300.0, client: Any = None,
                 clock: Callable[[], float] = time.monotonic):
        self.prefix = prefix
        self.ttl_s = ttl_s
        self._client = client
        self._clock = clock
        self._cache: dict[str, tuple[float, str | None]] = {}
        self._lock = threading.Lock()

    def client(self) -> Any:
        if self._client is None:
            from focal.adapters import aws

            self._client = aws.client(self.service)
        return self._client

    def _fetch(self, key: str) -> str | None:
        raise NotImplementedError

    def key(self, name: str) -> str:
        return self.prefix + name

    def get(self, name: str) -> str | None:
        key = self.key(name)
        now = self._clock()
        with self._lock:
            hit = self._cache.get(key)
            if hit and now - hit[0] < self.ttl_s:
                return hit[1]
        try:
            value = self._fetch(key)
        except Exception as exc:  # not found, access denied, throttled, no network: the secret is unavailable
            log.warning("secret %s could not be read from %s (%s)", name, self.service, type(exc).__name__)
            return None
        if value is not None:
            with self._lock:
                self._cache[key] = (now, value)
        return value


class SecretsManagerSource(_CachedAwsSource):
    service = "secretsmanager"

    def _fetch(self, key: str) -> str | None:
        return self.client().get_secret_value(SecretId=key).get("SecretString")


class SsmParameterSource(_CachedAwsSource):
    service = "ssm"

    def key(self, name: str) -> str:
        key = self.prefix + name
        return key if key.startswith("/") else "/" + key

    def _fetch(self, key: str) -> str | None:
        return self.client().get_parameter(Name=key, WithDecryption=True)["Parameter"]["Value"]


def secret_source(aws: bool, tenant: str = "local") -> EnvSecretSource | SecretsManagerSource:
    """The environment locally; Secrets Manager under `focal/<tenant>/` in AWS."""
    return SecretsManagerSource(prefix=f"focal/{tenant}/") if aws else EnvSecretSource()
