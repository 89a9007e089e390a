"""The language the turn is read in (set by the stages that read a customer's message), for the readers of dates
and figures in Spanish, German and French: `reading_in(lang)` around the reading, `current()` inside it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

LANGS = ("es", "de", "fr")  # the languages with readers of their own; English is the readers' own
_LANG: ContextVar[str | None] = ContextVar("reading_language", default=None)


@contextlib.contextmanager
def reading_in(lang: str | None) -> Iterator[None]:
    token = _LANG.set(lang)
    try:
        yield
    finally:
        _LANG.reset(token)


def turn_language() -> str | None:
    """The turn's language as set, English included (figures are read in any language's style)."""
    return _LANG.get()


def current() -> str | None:
    lang = _LANG.get()
    return lang if lang in LANGS else None
