"""Fixtures for every tier."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _fresh_tool_workers():
    """Each test file meets the agents' tools as a fresh process does: the example tools keep what they did
    (a refund, a replacement card) in their worker process, and `make test` runs files on several workers in
    an order no file may depend on."""
    from focal.adapters.tool_workers import shared_workers  # after the tiers put functions/ on sys.path

    shared_workers().close()
    yield
