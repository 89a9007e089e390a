"""Language-neutral signs of an injection: the *shape* of a message, not its wording.

A customer writes to a person or a service in sentences; an injection carries the marks of text written for a
machine, whatever language its words are in:
- a header addressed to the assistant inside the message — "[assistant: …]", "P.S. for the AI: …",
  "para el asistente: …", "an den Assistenten, neue Anweisung: …": a name of the machine's role, then a colon
  (the role names of the languages the product reads: one short list of nouns, never sentences);
- a hidden block: an HTML comment holding words, which a chat window never shows;
- a privilege setting: an identifier assigned a literal ("is_vip=true", "cliente_premium=1", "limit: none"), the
  notation of configuration and code, never of a customer's request.
Each is one regular expression over the folded message (`focal.text.views.words_view`: lower case, accents and
look-alike letters folded), so it reads the same in every language.
"""

from __future__ import annotations

import re

# The machine's role, as a message addresses it, in English, Spanish, German, French, Italian and Portuguese
# (folded: no accents). Not "agent", "model" or "system": "your agent: …", "model: iPhone 12", "operating
# system: …" are what customers write.
_ROLE = (r"(?:(?:ai|ki|ia)[- ](?:agent|assistant|assistent)|agent (?:ia|ki|ai)|assistant[e]?|as?sistente|"
         r"assistent(?:en|in)?|chat ?bot|bot|ai|ia|ki|llm|gpt)(?!-)")
# A colon that opens a directive: followed by a letter (not "10:30", not a smiley).
_OPENS = r"\s*:\s*[^\W\d_]"

STRUCTURE: tuple[tuple[str, re.Pattern[str]], ...] = (
    # The role noun, then at most three words ("an den Assistenten, neue Anweisung:") before the colon.
    ("role header", re.compile(rf"\b{_ROLE}\b(?:[\s,]+[^\W\d_]+){{0,3}}{_OPENS}")),
    ("hidden block", re.compile(r"<!--\s*[^\W\d_]{2,}[^>]{0,400}?(?:-->|$)")),
    # A dotted or snake_case identifier set to a literal; a snake_case one assigned anything with "="; any word
    # assigned a boolean or null with "=".
    ("privilege setting", re.compile(r"\b[^\W\d_]+(?:[_.][^\W_]+)+\s*[=:]\s*[\"']?"
                                     r"(?:true|false|yes|no|none|null|on|off|unlimited|admin|root|\d+)\b"
                                     r"|\b[^\W\d_]+(?:_[^\W_]+)+\s*=\s*[\"']?[^\W_]"
                                     r"|\b[^\W\d_]{2,}\s*=\s*[\"']?(?:true|false|null|none)\b")),
)


def structure_findings(folded: str) -> list[str]:
    """Names of the structural signs the folded (lower-case) message shows (empty: none)."""
    return [name for name, pattern in STRUCTURE if pattern.search(folded)]
