"""The small template language of `http` tools, shared by `focal validate` and the HTTP runner.

- `{argument}` in `url` is replaced by the URL-encoded argument; in `body` a value that is exactly
  `{argument}` becomes the argument's typed value, other text is filled as a string.
- `${secret:NAME}` in `headers` is replaced by the secret NAME from the secret source; nowhere else
  (`focal validate` refuses it in the url and the body, where it would go out as literal text), and
  never `customer_token_secret`, which signs customer tokens.

Pure functions over plain data: no I/O, no SDKs.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")
SECRET_NAME = r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,127}"
SECRET = re.compile(r"\$\{secret:(" + SECRET_NAME + r")\}")
# Anything that looks like a `${...}` reference, valid or not, for validation messages.
SECRET_LIKE = re.compile(r"\$\{[^}]*\}?")
BODY_METHODS = ("POST", "PUT", "PATCH")
RESERVED_SECRETS = frozenset({"customer_token_secret"})  # focal.auth.CUSTOMER_TOKEN_SECRET: never a tool's


def placeholders(text: str) -> list[str]:
    """Argument names used as `{name}` (never the `${secret:…}` form)."""
    return PLACEHOLDER.findall(text)


def secret_names(text: str) -> list[str]:
    return SECRET.findall(text)


def bad_secret_references(text: str) -> list[str]:
    """`${…}` fragments that are not a well-formed `${secret:NAME}`."""
    return [m.group(0) for m in SECRET_LIKE.finditer(text) if not SECRET.fullmatch(m.group(0))]


def body_secret_references(body: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Every (path inside the body, `${…}` text) in the body's keys and strings: never filled there."""
    out: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(body, dict):
        for key, value in body.items():
            out += [((*path, key), m.group(0)) for m in SECRET_LIKE.finditer(str(key))]
            out += body_secret_references(value, (*path, key))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            out += body_secret_references(value, (*path, index))
    elif isinstance(body, str):
        out += [(path, m.group(0)) for m in SECRET_LIKE.finditer(body)]
    return out


def body_placeholders(body: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Every (path inside the body, argument name) the body template uses."""
    out: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(body, dict):
        for key, value in body.items():
            out += body_placeholders(value, (*path, key))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            out += body_placeholders(value, (*path, index))
    elif isinstance(body, str):
        out += [(path, name) for name in placeholders(body)]
    return out


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


class MissingArgument(KeyError):
    """A template names an argument that has no value in this call."""


def fill_url(template: str, arguments: dict[str, Any]) -> tuple[str, set[str]]:
    """The URL with every `{argument}` URL-encoded (no '/' or '?' survives), and the names it used."""
    used: set[str] = set()

    def sub(match: re.Match[str]) -> str:
        name = match.group(1)
        if arguments.get(name) is None:
            raise MissingArgument(name)
        used.add(name)
        return quote(_text(arguments[name]), safe="")

    return PLACEHOLDER.sub(sub, template), used


def fill_body(template: Any, arguments: dict[str, Any]) -> Any:
    """The JSON body: `{name}` alone keeps the typed value (the key is left out when the argument is
    absent); mixed text is filled; other values are constants."""
    if isinstance(template, dict):
        # A key whose value is exactly an absent (optional) argument is left out.
        return {
            key: fill_body(value, arguments)
            for key, value in template.items()
            if not (isinstance(value, str) and (m := PLACEHOLDER.fullmatch(value)) and arguments.get(m.group(1)) is None)
        }
    if isinstance(template, list):
        return [fill_body(value, arguments) for value in template]
    if isinstance(template, str):
        whole = PLACEHOLDER.fullmatch(template)
        if whole:
            if whole.group(1) not in arguments:
                raise MissingArgument(whole.group(1))
            return arguments[whole.group(1)]

        def sub(match: re.Match[str]) -> str:
            if arguments.get(match.group(1)) is None:
                raise MissingArgument(match.group(1))
            return _text(arguments[match.group(1)])

        return PLACEHOLDER.sub(sub, template)
    return template


def query_value(value: Any) -> str:
    return _text(value)
