"""A value derived from a long-lived object (an agent config), computed once per object: keyed by the object's
id, the entry holds the object itself so its id cannot be reused by another while the entry lives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class PerObject(Generic[K, V]):
    def __init__(self, build: Callable[[K], V], size: int = 64):
        self._build, self._size = build, size
        self._kept: dict[int, tuple[K, V]] = {}

    def __call__(self, obj: K) -> V:
        hit = self._kept.get(id(obj))
        if hit is None or hit[0] is not obj:
            if len(self._kept) >= self._size:
                self._kept.pop(next(iter(self._kept)))  # the oldest entry
            hit = self._kept[id(obj)] = (obj, self._build(obj))
        return hit[1]
