"""The small template language of `http` tools, shared by `focal validate` and the HTTP runner.

- `{argument}` in `url` is replaced by the URL-encoded argument; in `body` a value that is exactly
  `{argument}` becomes the argument's typed value, other text is filled as a string.
- A value filled into the URL's path stays inside its one segment: '/', '?', '#' and '%' are encoded,
  and a segment that would read as '.' or '..' or be empty is refused (`UnsafePathValue`), in any
  spelling a server may decode to that ('%2e%2e', '%252e', a full-width '．', '..' beside an encoded
  '/'), so an argument can never move the request to another path of the service.
- `${secret:NAME}` in `headers` is replaced by the secret NAME from the secret source; nowhere else
  (`focal validate` refuses it in the url and the body, where it would go out as literal text), and
  never `customer_token_secret`, which signs customer tokens.

Pure functions over plain data: no I/O, no SDKs.
"""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any
from urllib.parse import quote, unquote

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


class UnsafePathValue(ValueError):
    """A value that would change the URL's path instead of filling one segment of it."""

    def __init__(self, name: str, why: str):
        super().__init__(name, why)
        self.name, self.why = name, why


DOT_SEGMENTS = (".", "..")
MAX_DECODINGS = 8  # a server decodes once, some twice; text still changing after 8 rounds is refused


def _as_a_server_may_read(segment: str) -> str | None:
    """The segment percent-decoded until it no longer changes and NFKC-folded; None when it keeps changing."""
    for _ in range(MAX_DECODINGS):
        decoded = unquote(segment)
        if decoded == segment:
            return unicodedata.normalize("NFKC", decoded)
        segment = decoded
    return None


def _path_problem(text: str, whole_segment: bool) -> str | None:
    read = _as_a_server_may_read(text)
    if read is None:
        return "is encoded too many times over to be read safely"
    if whole_segment and read == "":
        return "would leave an empty path segment"
    if any(part in DOT_SEGMENTS for part in re.split(r"[/\\]", read)):
        return "would be read as a '.' or '..' path segment"
    return None


def _first(text: str, stops: str, start: int) -> int:
    return min((i for c in stops if (i := text.find(c, start)) >= 0), default=len(text))


def _split(template: str) -> tuple[str, str, str]:
    """(scheme and host, path, query and fragment) of a URL template."""
    host_start = template.find("://") + 3 if "://" in template else 0
    path_start = _first(template, "/?#", host_start)
    path_end = _first(template, "?#", path_start)
    return template[:path_start], template[path_start:path_end], template[path_end:]


def fill_url(template: str, arguments: dict[str, Any]) -> tuple[str, set[str]]:
    """The URL with every `{argument}` URL-encoded (no '/' or '?' survives), and the names it used.
    UnsafePathValue: a placeholder in the host (which is fixed), or a path value that does not stay
    one ordinary segment."""
    used: set[str] = set()
    authority, path, rest = _split(template)
    if in_host := placeholders(authority):
        raise UnsafePathValue(in_host[0], "is in the url's host, which must be fixed")

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if arguments.get(name) is None:
            raise MissingArgument(name)
        used.add(name)
        return quote(_text(arguments[name]), safe="")

    segments = []
    for segment in path.split("/"):
        names = placeholders(segment)
        filled = PLACEHOLDER.sub(value, segment)
        for name in names:
            why = _path_problem(quote(_text(arguments[name]), safe=""), False) or _path_problem(filled, True)
            if why:
                raise UnsafePathValue(name, why)
        segments.append(filled)
    return authority + "/".join(segments) + PLACEHOLDER.sub(value, rest), used


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
