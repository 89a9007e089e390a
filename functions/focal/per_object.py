"""A value derived from a long-lived object (an agent config), computed once per object: keyed by the object's
id, the entry holds the object itself so its id cannot be reused by another while the entry lives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
O = TypeVar("O")
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


class PerObjectPair(Generic[K, O, V]):
    """A value derived from two long-lived objects (an agent config and an embedder), computed once per pair: kept
    per first object as `PerObject` keeps it, then per second object by its id, holding it as well."""

    def __init__(self, build: Callable[[K, O], V]):
        self._build = build
        self._tables: PerObject[K, dict[int, tuple[O, V]]] = PerObject(lambda obj: {})

    def __call__(self, obj: K, other: O) -> V:
        table = self._tables(obj)
        hit = table.get(id(other))
        if hit is None or hit[0] is not other:
            hit = table[id(other)] = (other, self._build(obj, other))
        return hit[1]
