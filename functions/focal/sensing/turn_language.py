"""The turn's language: which of the agent's declared languages the customer writes in.

Read from the message (stopword shares, focal.sensing.language) among the declared languages only, and kept in the
session: a message that says too little to tell ("2", "LC204518", "no", "ok") stays in the conversation's language,
and one that opens with a reply word only one declared language has ("sí", "ja", "oui") is in that language. Changing
language needs a clear reading: the new language's share of stopwords leads the conversation's by MIN_LEAD.
The agent's own texts are written in its first declared language (`primary`).
"""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.sensing import language, reply_words

ENGLISH = "en"


def primary(agent: AgentConfig) -> str:
    return agent.languages[0] if agent.languages else ENGLISH


def read_language(text: str, languages: list[str], previous: str | None) -> str:
    """The language of this message among `languages`, the conversation's (`previous`) when it cannot tell."""
    first = languages[0] if languages else ENGLISH
    current = previous if previous in languages else first
    if len(languages) < 2:
        return current
    _, shares = language.detect(text)
    if shares:
        best = max(languages, key=lambda code: shares.get(code, 0.0))
        share = shares.get(best, 0.0)
        if share >= language.MIN_SHARE:  # a clear reading: another language only with a clear lead
            return best if share - shares.get(current, 0.0) >= language.MIN_LEAD else current
    replied = reply_words.reply_language(text, languages)
    return replied or current


def turn_language(agent: AgentConfig, text: str, previous: str | None) -> str:
    return read_language(text, list(agent.languages), previous)
