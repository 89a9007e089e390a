"""Dangerous content: payloads a customer-service agent must never pass on to tools,
templates or stores — shell commands, SQL statements, script/HTML injection, template (SSTI)
expressions, path traversal, JNDI/NoSQL operators.

Every pattern needs code-shaped syntax (operators, quotes, brackets, flags), never a keyword alone,
so ordinary customer text ("drop the table lamp", "select the blue one", "delete my account",
"221B Baker Street", "X-1001", "$74.99", "jane+shop@example.com", "send me an alert (SMS)",
"a school project about <script> tags") passes. Each match returns a name
for the reason; the message text itself is never echoed.
"""

from __future__ import annotations

import re

from focal.text.views import check_view

# (name, pattern) over the check view (focal.text.views: what every check reads), lower-cased.
_PATTERNS: tuple[tuple[str, str], ...] = (
    # Shell
    ("shell command (recursive delete)", r"\brm\s+-[a-z]*[rf][a-z]*\b"),
    ("shell command (disk wipe)", r"\b(?:mkfs(?:\.\w+)?\s+/dev/|dd\s+if=\S+\s+of=/dev/|>\s*/dev/sd[a-z])"),
    ("shell command (fork bomb)", r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"),
    ("shell command (download and run)", r"\b(?:curl|wget)\s+[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"),
    # an argument shaped like a flag, a path, a URL, a variable or a script file: "yes; cat food" passes
    ("shell command (chained)", r"(?:;|&&|\|\|?)\s*(?:rm|curl|wget|nc|bash|sh|chmod|chown|cat|python\d?|perl|powershell|"
                                r"shutdown|reboot|kill(?:all)?)\s+(?:-\w|[~.]?/|\$|['\"]|https?://|[\w-]+\.(?:sh|py|pl|ps1|exe)\b)"),
    ("shell command (substitution)", r"\$\(\s*(?:rm|curl|wget|cat|id|whoami|uname|ls|nc|bash|sh)\b[^)]*\)|"
                                     r"`\s*(?:rm|curl|wget|cat|id|whoami|uname|ls|nc|bash|sh)\b[^`]*`"),
    ("shell command (privileged)", r"\bsudo\s+(?:rm|chmod|chown|dd|mkfs|su|bash|sh|apt|shutdown|reboot)\b|"
                                   r"\bchmod\s+(?:-r\s+)?[0-7]{3,4}\s+/"),
    ("shell command (reverse shell)", r"\b(?:nc|ncat|netcat)\s+(?:-[a-z]+\s+)*\S+\s+\d{2,5}\b.*-e\b|/dev/tcp/|"
                                      r"\b(?:bash|sh)\s+-i\b"),
    ("shell command (windows)", r"\b(?:cmd(?:\.exe)?\s+/c|powershell(?:\.exe)?\s+-(?:enc|e|c|command|nop)\b|"
                                r"format\s+c:|del\s+/[fsq])"),
    ("sensitive system file", r"/etc/(?:passwd|shadow|sudoers|hosts)\b|\bc:\\windows\\system32\b|\bboot\.ini\b|"
                              r"\bid_(?:rsa|ed25519)\b|(?:^|[\s/])\.env\b|\bsecrets?\.(?:ya?ml|json|env|txt)\b|"
                              r"\.aws/credentials\b"),
    ("shell command (file read)", r"(?:^|[:;`$(]|\brun:?)\s*(?:cat|less|more|head|tail|type)\s+(?:~|\.{1,2})?/[\w.-]+"),
    # SQL
    # a terminator, IF EXISTS or a quoted name: "please drop table lamp from my list" passes
    ("SQL statement (DROP/TRUNCATE/ALTER)", r"\b(?:drop|truncate|alter)\s+(?:table|database|schema|user)\s+(?:if\s+exists\b|"
                                            r"[`\"\[]\w+|\w+\s*(?:;|--|cascade\b|add\s+column\b|drop\s+column\b))"),
    ("SQL statement (DELETE/UPDATE/INSERT)", r"\bdelete\s+from\s+[`\"\[]?\w+[`\"\]]?\s*(?:where\s+\w+\s*(?:=|<|>|like\b|in\b)|;)|"
                                             r"\bupdate\s+[`\"\[]?\w+[`\"\]]?\s+set\s+\w+\s*=|"
                                             r"\binsert\s+into\s+[`\"\[]?\w+[`\"\]]?\s*(?:\(|values\b)"),
    ("SQL statement (SELECT)", r"\bselect\s+(?:\*|count\s*\(\s*\*\s*\)|\w+(?:\s*,\s*\w+)*)\s+from\s+[`\"\[]?\w+[`\"\]]?\s*"
                               r"(?:where\s+\w+\s*(?:=|<|>|like\b|in\b)|;|--|limit\s+\d)|\bselect\s+\*\s+from\s+\w+"),
    ("SQL injection (UNION)", r"\bunion\s+(?:all\s+)?select\b"),
    ("SQL injection (tautology)", r"['\"]\s*\)?\s*(?:or|and)\s+\(?\s*['\"]?\w+['\"]?\s*=\s*['\"]?\w+|\bor\s+1\s*=\s*1\b"),
    ("SQL injection (comment/terminator)", r"['\"]\s*\)?\s*;\s*(?:--|#|/\*)|['\"]\s*--\s*$|;\s*--\s*$"),
    ("SQL injection (stacked query)", r"['\";)]\s*;?\s*(?:drop|delete|update|insert|shutdown|exec|declare)\s"),
    ("SQL injection (time/exec)", r"\bwaitfor\s+delay\b|\bsleep\s*\(\s*\d+\s*\)|\bbenchmark\s*\(|\bexec(?:ute)?\s+(?:xp|sp)_\w+|"
                                  r"\bpg_sleep\s*\("),
    # Script / HTML
    # a script element with a body, a closing tag or a source; "a project about <script> tags" passes
    ("script tag", r"<\s*script\b[^>]*>[^<]{0,400}?(?:[;(=]|<\s*/\s*script)|<\s*script\b[^>]*\bsrc\s*=|</\s*script\s*>"),
    ("javascript URL", r"\bjavascript\s*:"),
    ("HTML event handler", r"<[a-z][^>]*[\s/\"']on[a-z]{3,}\s*="),
    ("embedded HTML object", r"<\s*(?:iframe|object|embed|applet|meta|base|link|svg|math)\b[^>]*(?:=|/>)"),
    # a call with a code-shaped argument (a literal, a number, document/window): "an alert (SMS)" passes
    ("script call", r"\b(?:document\.(?:cookie|write|location|domain)|window\.location|"
                    r"(?:eval|alert|prompt|confirm|atob|fromcharcode|settimeout)\(\s*(?:['\"`\d/]|document\b|window\b|string\.))"),
    # Template / code injection
    ("template expression", r"\{\{.{0,200}?\}\}|\{%.{0,200}?%\}|<%=?.{0,200}?%>|#\{.{0,100}?\}"),
    ("template expression", r"\$\{[^}\n]{0,100}\}"),
    ("code injection (Python internals)", r"__(?:class|globals|builtins|import|subclasses|mro|base|init|dict)__|"
                                          r"\bos\.(?:system|popen|remove)\s*\(|\bsubprocess\.\w+\s*\(|\bimport\s+os\b|"
                                          r"\bexec\s*\(|\bcompile\s*\("),
    ("code injection (Python file/network)", r"\bopen\(\s*['\"](?:/|~|\.\.)|\bimport\s+[\w.]+\s*;|"
                                             r"\b(?:requests?|urllib\.request|socket)\.(?:get|post|urlopen|connect)\s*\("),
    ("data URL (HTML/script)", r"\bdata:(?:text/html|text/javascript|application/javascript)\b"),
    ("code injection (PHP)", r"<\?php|\b(?:system|passthru|shell_exec|phpinfo)\s*\("),
    ("JNDI lookup", r"\$\{\s*jndi\s*:"),
    ("NoSQL operator", r"[{,]\s*['\"]?\$(?:ne|gt|gte|lt|lte|where|regex|in|nin|or|and|expr)['\"]?\s*:"),
    # Paths
    ("path traversal", r"(?:\.\.[/\\]){2,}|(?:%2e%2e(?:%2f|%5c|/|\\)){1,}|\.\.%2f|\.\.[/\\](?:etc|windows|proc|var|root|home)\b"),
    ("local file URL", r"\bfile:///?[a-z]"),
    ("null byte", r"%00|\\x00|\\0\b"),
)
_COMPILED = tuple((name, re.compile(pattern, re.DOTALL | re.MULTILINE)) for name, pattern in _PATTERNS)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def dangerous_findings(text: str) -> list[str]:
    """Names of the dangerous payload kinds found in the message (empty: none)."""
    norm = check_view(text).lower()
    found = [name for name, pattern in _COMPILED if pattern.search(norm)]
    if _CONTROL.search(text):
        found.append("control characters")
    return list(dict.fromkeys(found))
