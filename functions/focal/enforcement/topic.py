"""What a model draft is measured against by the relevance check's default (cosine) scorer, besides the turn.

- The agent's own domain: its persona, description, greeting and out-of-scope text, its scenarios' names and
  entry examples, its steps' instructions and prompts, its rules' conditions, examples and action texts. A
  draft in another product's voice ("Sure! Our team can sort that out for you") shares few words with the
  customer's last message but sits squarely in the business the agent serves.
- Conversational moves: greetings, acknowledgements, thanks, apologies, "anything else?" — on topic by
  construction, whatever the message was ("hi", "ok", "that's so annoying").
- Unrelated content, the contrast: a draft closer to a poem, a recipe, health, money or life advice, sport,
  news, trivia or code than to everything above does not address the conversation, however generic its
  closeness to the conversation is.

The exemplars are written for no business in particular; they are embedded once per embedder and kept.
A competitor pitch that talks about the same subject (fares, opening hours) is not told apart by this
scorer: naming another business is for the agent's own rules and for grounding (names not in the sources).
"""

from __future__ import annotations

from focal.models.agent import AgentConfig
from focal.sensing.turn_language import primary

CONVERSATIONAL_MOVES: tuple[str, ...] = (
    "Hello! How can I help you today?",
    "Hi, thanks for reaching out. What can I do for you?",
    "Got it, thanks.",
    "Sure, one moment please while I check.",
    "Okay, I'll take care of that.",
    "You're welcome! Is there anything else I can help with?",
    "Have a great day!",
    "Goodbye, take care!",
    "I'm sorry about that, I understand how frustrating this is.",
    "Done, that's all set for you.",
    "Could you give me a few more details?",
    "No problem at all.",
)

UNRELATED: dict[str, tuple[str, ...]] = {
    "a poem or story": (
        "The mountain stands in silent snow, while winter winds begin to blow.",
        "A little song for you: la la la, the world is bright and new.",
        "Long ago a young knight rode out to find a hidden castle beyond the hills.",
    ),
    "cooking": (
        "Whisk two eggs with a pinch of salt, then fry them gently in butter.",
        "For a good curry, toast the spices first and let the sauce simmer slowly.",
    ),
    "health advice": (
        "Drink plenty of water and stretch every morning to stay healthy.",
        "Take ibuprofen for the headache and rest for a day.",
        "Try meditation for ten minutes a day to reduce anxiety.",
    ),
    "money advice": (
        "Diversify your savings across stocks and bonds to lower your risk.",
        "Pay off your credit card debt before you start investing.",
    ),
    "the weather": ("Tomorrow will be cloudy with a chance of rain in the afternoon.",),
    "sport": ("The home team scored twice in the second half and won the championship.",),
    "trivia": (
        "The speed of light is about 300,000 kilometres per second.",
        "Mount Everest is the tallest mountain on Earth.",
        "Shakespeare wrote Hamlet around the year 1600.",
    ),
    "code": (
        "To sort a list in JavaScript, call array.sort() with a compare function.",
        "SELECT name FROM users WHERE age > 30;",
    ),
    "life advice": (
        "If you're feeling stressed, try talking to a friend or going for a walk.",
        "Water tomato plants deeply twice a week and give them full sun.",
        "Cats sleep for around sixteen hours a day.",
    ),
    "news": ("The parliament passed a new law on energy taxes yesterday.",),
}
UNRELATED_TEXTS: tuple[str, ...] = tuple(t for texts in UNRELATED.values() for t in texts)
UNRELATED_KINDS: tuple[str, ...] = tuple(kind for kind, texts in UNRELATED.items() for _ in texts)


def domain_texts(agent: AgentConfig) -> tuple[str, ...]:
    """The agent's own words about its business (unrendered: the same texts on every turn, embedded once)."""
    texts = [agent.persona, agent.description, agent.greeting, agent.out_of_scope_message]
    for s in agent.scenarios:
        texts += [s.name, *s.entry_examples]
        for step in s.steps:
            texts += [step.instructions, step.confirmation_prompt, *(slot.prompt for slot in step.slots)]
    for r in agent.rules:
        if r.enabled:
            texts += [r.condition_text, r.action_text, *r.examples]
    return tuple(dict.fromkeys(t for t in texts if t and t.strip()))


def domain_texts_in(agent: AgentConfig, lang: str) -> tuple[str, ...] | None:
    """The agent's own words about its business in `lang`: its texts when it is the agent's first language, their
    translation when the agent has one, else None (the agent has no words of its own in that language)."""
    if lang == primary(agent):
        return domain_texts(agent)
    tr = agent.translations.get(lang)
    if tr is None:
        return None
    texts = [tr.greeting, tr.out_of_scope_message]
    for s in tr.scenarios.values():
        texts += [s.name, *s.entry_examples]
        for step in s.steps.values():
            texts += [*step.slots.values(), step.confirmation_prompt, step.response_template]
    for r in tr.rules.values():
        texts += [r.response_template, *r.examples]
    texts += [f.prompt for f in tr.fields.values()] + [t.description for t in tr.tools.values()]
    return tuple(dict.fromkeys(t for t in texts if t and t.strip()))


def own_words(agent: AgentConfig, lang: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The agent's own words about its business for a draft in `lang`: (those in `lang` — `domain_texts_in`, empty
    when it has none —, those of its file in another language: empty when `lang` is the file's). A draft in a
    language the agent declares but wrote nothing in is judged against its file's words across languages."""
    in_lang = domain_texts_in(agent, lang) or ()
    return in_lang, (() if lang == primary(agent) else domain_texts(agent))
