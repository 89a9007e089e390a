"""Which embedding space the relevance check scores a draft in, and how its cosines are put on MiniLM's scale.

A draft of an English turn of an English agent is scored with MiniLM, where `relevance_cosine_threshold` and
`relevance_off_topic_margin` are written. Any other turn (focal.sensing.spaces.multilingual_turn: a customer writing
another declared language, or an agent whose own texts are not English) is scored in the multilingual space, the one
its message was matched in. MiniLM reads little but surface in other languages: there two German texts score alike
whatever they say, a German answer sits far from the agent's English texts and the conversational moves, and a German
poem sits as close to a German message as a German answer does.

In the multilingual space a text in the draft's language sits closer to it than the same meaning in another language,
so each cosine is put on MiniLM's scale by the fit for its pair (focal.sensing.spaces.score_scale): "intent_same" for a
text in the turn's language (the customer's messages; the agent's texts when the agent speaks that language in its
own file or a translation), "intent" for one in another (the English exemplars of conversational moves, refusals and
unrelated content for a non-English turn). The language is the draft's when it clearly reads as another declared
language than the turn's (focal.sensing.language.reads_as): the turn's is a reading with a default, and a first
message the word lists cannot place ("Mein Paket kam beschädigt an") leaves it at the agent's first language, while
the model answered the German it read. A turn that needs the multilingual space and has no model for it fails
closed (`MultilingualSpaceUnavailable`), as the sensor does: never scored in the English space instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from focal.models.agent import AgentConfig
from focal.ports import Embedder
from focal.sensing.language import reads_as
from focal.sensing.spaces import MultilingualSpaceUnavailable, multilingual_turn, on_reference_scale
from focal.sensing.turn_language import ENGLISH, primary

SAME, CROSS = "intent_same", "intent"


@dataclass(frozen=True)
class Space:
    embedder: Embedder
    english: bool           # MiniLM: cosines as they are
    agent_texts: str        # the pair kind of the draft and the agent's own texts
    exemplars: str          # … and the engine's English exemplars
    lang: str = ENGLISH     # the draft's language

    def scored(self, cosine: float, kind: str) -> float:
        """A cosine of this space on MiniLM's scale (`kind`: SAME or CROSS language pair)."""
        return cosine if self.english else on_reference_scale(self.embedder, kind, cosine)


def relevance_space(agent: AgentConfig, lang: str | None, text: str, english: Embedder,
                    multilingual: Embedder | None) -> Space:
    """The space the draft `text` of a turn in `lang` (the conversation's, None when not read) is scored in."""
    said = lang or primary(agent)
    if (read := reads_as(text, said)) in agent.languages:
        said = read
    if not multilingual_turn(agent, said):
        return Space(english, True, SAME, SAME, said)
    if multilingual is None:
        raise MultilingualSpaceUnavailable(said, "this deployment has no multilingual embedder")
    speaks = said == primary(agent) or said in agent.translations
    return Space(multilingual, False, SAME if speaks else CROSS, SAME if said == ENGLISH else CROSS, said)
