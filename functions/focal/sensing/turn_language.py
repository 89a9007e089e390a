"""The turn's language: which of the agent's declared languages the customer writes in.

Read from the message (stopword shares, focal.sensing.language) among the declared languages only, and kept in the
session: a message that says too little to tell ("2", "LC204518", "no", "ok") stays in the conversation's language,
and one that opens with a reply word only one declared language has ("sí", "ja", "oui") is in that language. Changing
language needs a clear reading: the new language's share of stopwords leads the conversation's by MIN_LEAD; a first
message (no conversation language yet) is in the declared language it reads best in, however slight the lead (the
file's first language is no better guess than the message itself: a refusal of that first message is said in it). Beside
the stopwords, the words only one language's texts of the agent use count for that language (its translations'
"tarjeta", "carte", "Ausweis"): a short first message in the agent's domain says its language, even one of fewer
than MIN_WORDS words when only one language has any of them ("¿Tienen aparcamiento?").
The agent's own texts are written in its first declared language (`primary`).
"""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.per_object import PerObject
from focal.sensing import language, reply_words

ENGLISH = "en"


def primary(agent: AgentConfig) -> str:
    return agent.languages[0] if agent.languages else ENGLISH


def read_language(text: str, languages: list[str], previous: str | None,
                  vocabulary: dict[str, frozenset[str]] | None = None) -> str:
    """The language of this message among `languages`, the conversation's (`previous`) when it cannot tell.
    `vocabulary`: words only one language's texts of the agent use, counted beside its stopwords."""
    first = languages[0] if languages else ENGLISH
    current = previous if previous in languages else first
    if len(languages) < 2:
        return current
    words = language.words(text)
    known = vocabulary or {}
    shares = {code: language.share(words, code, known.get(code, frozenset())) for code in languages} if words else {}
    if len(words) >= language.MIN_WORDS:
        best = max(languages, key=lambda code: (shares[code], code == current))
        if shares[best] >= language.MIN_SHARE:  # a clear reading: another language only with a clear lead
            return best if shares[best] - shares[current] >= language.MIN_LEAD else current
        if previous not in languages and shares[best] > shares[current]:
            return best  # no conversation language yet: the message's own best reading, not the file's by default
    elif previous not in languages and shares:
        # a short first message ("¿Tienen aparcamiento?"): a word only one language's texts or stopwords have says it
        ranked = sorted(shares.values(), reverse=True)
        if ranked[0] > 0 and (len(ranked) == 1 or ranked[0] > ranked[1]):
            return max(languages, key=lambda code: shares[code])
    replied = reply_words.reply_language(text, languages)
    return replied or current


def _vocabulary(texts: list[tuple[str, str]]) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for lang, text in texts:
        found.setdefault(lang, set()).update(language.words(text))
    return {lang: frozenset(w for w in words if len(w) > 2 and not any(w in other for o, other in found.items() if o != lang))
            for lang, words in found.items()}


def agent_vocabulary(agent: AgentConfig) -> dict[str, frozenset[str]]:
    """`vocabulary_of`, once per config object."""
    return _vocabulary_per_config(agent)


def vocabulary_of(agent: AgentConfig) -> dict[str, frozenset[str]]:
    """Per declared language, the words of the agent's texts in it that no other language's texts use: the file's
    own texts and examples for its first language, each translation for its language ("tarjeta", "Ausweis",
    "contestation")."""
    return _vocabulary(_texts(agent))


def own_words(agent: AgentConfig) -> frozenset[str]:
    """Every word of the agent's texts, in any of its languages (also of an agent already put in the customer's
    language, whose texts then stand under its first language too)."""
    return _own_words_per_config(agent)


def _all_words(agent: AgentConfig) -> frozenset[str]:
    return frozenset(w for _, text in _texts(agent) for w in language.words(text) if len(w) > 2)


def _texts(agent: AgentConfig) -> list[tuple[str, str]]:
    own = primary(agent)
    texts: list[tuple[str, str]] = [(own, agent.greeting), (own, agent.out_of_scope_message)]
    texts += [(own, e) for s in agent.scenarios for e in [s.name, *s.entry_examples]]
    texts += [(own, t) for s in agent.scenarios for st in s.steps for t in
              [st.confirmation_prompt, st.response_template, *(slot.prompt for slot in st.slots)]]
    texts += [(own, t) for r in agent.rules for t in [r.condition_text, r.response_template or "", *r.examples]]
    for lang, given in agent.translations.items():
        texts += [(lang, t) for t in given.model_dump_json().split('"') if " " in t]  # every text it gives
    return texts


def turn_language(agent: AgentConfig, text: str, previous: str | None) -> str:
    return read_language(text, list(agent.languages), previous, agent_vocabulary(agent) if agent.translations else None)


_vocabulary_per_config: PerObject[AgentConfig, dict[str, frozenset[str]]] = PerObject(vocabulary_of)
_own_words_per_config: PerObject[AgentConfig, frozenset[str]] = PerObject(_all_words)
