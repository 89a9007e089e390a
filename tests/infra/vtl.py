"""API Gateway's mapping-template environment for the `airspeed` Velocity engine.

API Gateway renders templates with Apache Velocity over Java objects: strings are java.lang.String
(`matches`, `replaceAll`, `contains`, `toLowerCase`), `$util.escapeJavaScript` is commons-lang's
StringEscapeUtils (which also escapes `'` and `/`), `$util.parseJson` gives a Map, `$input.path(...)`
a JSON value, `$context.responseOverride.status` overrides the status. This module provides exactly
those pieces, so the synthesized templates run unchanged — with one adjustment: Velocity keeps a
backslash in a string literal as it is (`"\\\\'"` is three characters, the regex CDK's own template uses
to undo `\\'`), while airspeed reads `\\\\` as one backslash, so `render` doubles them first.
"""

from __future__ import annotations

import json
import re
from typing import Any

import airspeed


class JavaString(str):
    def matches(self, regex: str) -> bool:
        return re.fullmatch(regex, self) is not None

    def replaceAll(self, regex: str, replacement: str) -> JavaString:  # noqa: N802 (Java's name)
        return JavaString(re.sub(regex, replacement.replace("\\", "\\\\"), self))

    def contains(self, text: str) -> bool:
        return text in self

    def toLowerCase(self) -> JavaString:  # noqa: N802
        return JavaString(self.lower())


def java(value: Any) -> Any:
    return JavaString(value) if isinstance(value, str) else value


def escape_javascript(text: str) -> str:
    """commons-lang 2 StringEscapeUtils.escapeJavaScript, as API Gateway applies it."""
    out = []
    for unit in text.encode("utf-16-be").hex(" ", 2).split(" ") if text else []:
        code = int(unit, 16)
        if code > 0x7F:
            out.append(f"\\u{code:04X}")
        elif code < 32:
            out.append({8: "\\b", 10: "\\n", 9: "\\t", 12: "\\f", 13: "\\r"}.get(code, f"\\u{code:04X}"))
        else:
            ch = chr(code)
            out.append({"'": "\\'", '"': '\\"', "\\": "\\\\", "/": "\\/"}.get(ch, ch))
    return "".join(out)


class Util:
    def escapeJavaScript(self, value: Any) -> JavaString:  # noqa: N802
        return JavaString(escape_javascript("" if value is None else str(value)))

    def parseJson(self, text: Any) -> Any:  # noqa: N802
        return json.loads(text)


class Input:
    def __init__(self, body: Any, path: dict[str, str] | None = None, headers: dict[str, str] | None = None):
        self._body = body
        self._params = {"path": {k: java(v) for k, v in (path or {}).items()},
                        "header": {k: java(v) for k, v in (headers or {}).items()}, "querystring": {}}

    def path(self, expression: str) -> Any:
        assert expression.startswith("$"), expression
        value = self._body
        for part in [p for p in expression[1:].split(".") if p]:
            value = value.get(part) if isinstance(value, dict) else None
        if isinstance(value, str):
            return JavaString(value)
        return None if value is None else JavaString(json.dumps(value)) if isinstance(value, dict | list) else value

    def params(self) -> dict[str, Any]:
        return self._params


def render(template: str, *, body: Any = None, path: dict[str, str] | None = None,
           headers: dict[str, str] | None = None, authorizer: dict[str, str] | None = None,
           request_id: str = "req-1") -> tuple[str, int | None]:
    """The rendered text and the status set through `$context.responseOverride.status` (None if not set)."""
    context: dict[str, Any] = {"requestId": JavaString(request_id),
                               "authorizer": {k: java(v) for k, v in (authorizer or {}).items()},
                               "responseOverride": {}}
    text = airspeed.Template(template.replace("\\\\", "\\\\\\\\")).merge(
        {"input": Input(body, path, headers), "util": Util(), "context": context})
    status = context["responseOverride"].get("status")
    return text, status
