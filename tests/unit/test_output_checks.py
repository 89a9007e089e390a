"""Output checks (issue 5): relevance with refusal bypass, grounding by unsupported claims, their
thresholds and flags, and the two optional ONNX folders (tested with tiny random-weight models this
file writes with the hand-written protobuf helper of test_prevalidation)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from focal.config.loader import load_agent
from focal.enforcement.grounding import build_sources, check_grounding, extract_claims, id_patterns, supported
from focal.enforcement.relevance import check_relevance
from focal.enforcement.relevance_refusal import refusal_reason
from focal.models.agent import AgentConfig
from focal.models.context import Context
from focal.models.session import HistoryEntry, Session
from focal.models.turn import RouteDecision, RouteOutput, ToolCall, TurnRequest, TurnState
from focal.ports import EntailmentModel, ModelReply, RelevanceModel
from focal.stages import enforce
from test_prevalidation import write_tiny_classifier  # the hand-written ONNX protobuf helper

ROOT = Path(__file__).resolve().parents[2]
AGENT = ROOT / "examples" / "retail" / "agent.yaml"


@pytest.fixture(scope="module")
def retail() -> AgentConfig:
    return load_agent(AGENT)


@pytest.fixture(scope="module")
def minilm():
    from focal.adapters.onnx_embedder import shared_embedder

    return shared_embedder()


def with_enforcement(agent: AgentConfig, **kw) -> AgentConfig:
    copy = agent.model_copy(deep=True)
    copy.enforcement = copy.enforcement.model_copy(update=kw)
    return copy


def turn(message: str, embedder=None, decision: RouteDecision | None = None, variables: dict | None = None,
         tool_outputs: dict | None = None, history: list[str] | None = None) -> TurnState:
    session = Session(tenant_id="t", agent_id="retail", session_id="s", customer_id="c",
                      variables=dict(variables or {}), history=[HistoryEntry(role="user", text=h) for h in history or []])
    state = TurnState(
        request=TurnRequest(tenant_id="t", agent_id="retail", session_id="s", turn_id="1", message=message),
        session=session,
        route=RouteOutput(decision=decision or RouteDecision()),
    )
    if embedder is not None:
        state.sensor.context = Context(message=message, embedding=[float(x) for x in embedder.embed([message])[0]])
    if tool_outputs:
        state.tools.tool_calls = [ToolCall(tool_id="lookup_order", outputs=tool_outputs)]
    return state


ORDER = {"order_id": "A1001", "order_found": True, "order_status": "delivered", "order_total": 30.0,
         "order_item": "Wireless mouse", "refund_eligible": True}
CONFIRM = RouteDecision(action="confirm", scenario_id="refund", step_id="confirm_refund")


# --- claims ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    ("It came to $30.00.", [("money", "30")]),
    ("It came to $1,234.50 or 12 dollars, USD 7", [("money", "1234.5"), ("money", "12"), ("money", "7")]),
    ("Save 10% or 15 percent", [("percentage", "10"), ("percentage", "15")]),
    ("It arrives in 5-7 business days", [("number", "5"), ("number", "7")]),
    ("Open from 8am to 8pm, 49.99 flat", [("number", "8"), ("number", "49.99")]),
    ("Order A1001, reference RF-A1001", [("id", "A1001"), ("id", "RF-A1001")]),
    ("On May 3rd, 2025, 2025-05-03 or 05/03/2025", [("date", "05-03/25")]),
    ("on 3 May", [("date", "05-03")]),
    # declared entity lists are policed by the rules that read them (no_competitors), not by grounding
    ("Try Best Buy or amazon", []),
    ("Your Phone case is on its way to New York City", [("entity", "new york city")]),
    ("Thanks for waiting, happy to help.", []),
])
def test_claims_are_extracted_by_kind_and_normalised(text, expected):
    claims = extract_claims(text, entities=["Amazon", "Best Buy"])
    assert [(c.kind, c.key) for c in claims] == expected


def test_a_number_inside_an_id_or_an_amount_is_not_counted_again(retail):
    claims = extract_claims("Order A1001 came to $30.00", id_patterns(retail))
    assert [(c.kind, c.text) for c in claims] == [("id", "A1001"), ("money", "$30.00")]


def test_number_formats_match_their_sources(retail):
    state = turn("A1001", variables={**ORDER, "order_total": 30.0}, tool_outputs={"total": 30.0})
    src = build_sources(retail, state, {**ORDER})

    def ok(text: str) -> list[bool]:
        return [supported(c, src) for c in extract_claims(text, id_patterns(retail), ["Amazon"])]

    assert ok("$30.00") == [True] and ok("$30") == [True] and ok("30 dollars") == [True]
    assert ok("$95") == [False]
    assert ok("within 5-7 business days") == [True, True]  # refund_timing's template
    assert ok("1-2 business days") == [True, True]  # shipping_times
    assert ok("from 8am to 8pm") == [True]  # support_hours
    assert ok("10% off") == [True]  # deals
    assert ok("25% off") == [False]
    assert ok("within 30 days") == [True]  # return_policy: a plain number may come from any number
    assert ok("order A1001") == [True] and ok("order A1009") == [False]
    assert ok("Amazon") == []  # a declared entity list is no grounding claim: no_competitors reads it
    assert ok("Acme Premium") == [True]  # the is_premium field's description


def test_an_amount_needs_an_amount_not_any_number(retail):
    state = turn("what is your return policy?")
    src = build_sources(retail, state, {})
    [claim] = extract_claims("a refund of $30")
    assert not supported(claim, src)  # "30 days" in the return policy is no money figure
    [claim] = extract_claims("a refund of $50")
    assert supported(claim, src)  # refund_cap's text states $50


def test_customer_numbers_and_number_words_are_sources(retail):
    state = turn("I was charged 49.99 twice, order A1006")
    src = build_sources(retail, state, {})
    assert [supported(c, src) for c in extract_claims("You were charged $49.99 on order A1006")] == [True, True]
    [claim] = extract_claims("within 1 business day")  # refund_cap: "within one business day"
    assert supported(claim, src)


# --- grounding ------------------------------------------------------------------------------------


def ground(agent, text, **kw):
    state = turn("A1001", decision=CONFIRM, variables=ORDER, tool_outputs={"total": 30.0, "item": "Wireless mouse"})
    return check_grounding(agent, state, text, dict(ORDER), **kw)


def test_an_invented_order_total_is_flagged(retail):
    result = ground(retail, "Order A1001 (Wireless mouse) came to $95. I can refund $95 to your card. Shall I go ahead?")
    assert not result.passed
    assert [c.text for c in result.unsupported] == ["$95"] and "'$95' (money)" in result.reason


def test_the_agents_own_offer_is_grounded(retail):
    result = ground(retail, "Order A1001 (Wireless mouse) came to $30.00. I can refund $30.00 to your original "
                            "payment method. Shall I go ahead? It usually arrives within 5-7 business days.")
    assert result.passed and result.score == 1.0 and not result.unsupported


def test_an_answer_without_claims_passes():
    result = check_grounding(AgentConfig(id="a", name="A"), turn("hello"), "Happy to help!", {})
    assert result.passed and result.score == 1.0 and result.reason == "no checkable claim"


def test_the_threshold_counts_the_share_of_non_strict_claims(retail):
    text = "Order A1001 is delivered; standard delivery takes 3-5 days, 17 of them weekdays."  # 17 is invented
    assert ground(retail, text).passed  # 3 of 4 supported = 0.75 ≥ 0.75
    strict = ground(with_enforcement(retail, grounding_threshold=0.8), text)
    assert not strict.passed and "0.75 of the claims supported < 0.80" in strict.reason
    as_strict = ground(with_enforcement(retail, grounding_strict_kinds=["number"]), text)
    assert not as_strict.passed  # a single unsupported number fails when numbers are strict


def test_one_invented_amount_fails_whatever_the_share(retail):
    result = ground(retail, "Order A1001 (Wireless mouse), delivered, 3-5 days, 1-2 express, 30 days: refund $31.")
    assert result.score > 0.75 and not result.passed


class GroundingJudge:
    def __init__(self, answer: str):
        self.answer, self.calls = answer, 0

    def available(self, purpose: str) -> bool:
        return purpose == "grounding"

    def complete(self, purpose, messages, json_schema=None) -> ModelReply:
        self.calls += 1
        assert messages[1]["role"] == "user" and messages[1]["content"].startswith('<data name="grounding">')
        data = json.loads(messages[1]["content"].split("\n", 1)[1].rsplit("\n</data>", 1)[0])
        assert data["claims_to_check"] == ["$60"] and "Acme" in data["context"]
        return ModelReply(text=self.answer, model="fake/judge")


def test_the_judge_rechecks_only_flagged_claims(retail):
    text = "Two items at $30.00 make $60."
    judge = GroundingJudge(json.dumps({"claims": [{"claim": "$60", "supported": True}]}))
    cleared = ground(retail, text, llm=judge)
    assert cleared.passed and cleared.method == "claims+judge" and judge.calls == 1
    assert "the judge supported 1 of 1" in cleared.reason
    broken = GroundingJudge("not json")
    assert not ground(retail, text, llm=broken).passed  # no usable verdict: the heuristic's flag stands
    quiet = GroundingJudge("{}")
    assert ground(retail, "It came to $30.00.", llm=quiet).passed and quiet.calls == 0  # grounded: no call
    off = GroundingJudge(json.dumps({"claims": [{"claim": "$60", "supported": True}]}))
    assert not ground(with_enforcement(retail, grounding_judge_enabled=False), text, llm=off).passed and off.calls == 0


# --- relevance ------------------------------------------------------------------------------------


def relevance(agent, embedder, message, answer, source="model", model=None, **kw):
    state = turn(message, embedder, **kw)
    return check_relevance(agent, state, answer, source, embedder, dict(ORDER), model)


def test_a_relevant_answer_scores_above_an_off_topic_one(retail, minilm):
    good = relevance(retail, minilm, "Where is my order A1004?", "Your order A1004 is still being processed.")
    bad = relevance(retail, minilm, "Where is my order A1004?", "The capital of France is Paris.")
    assert good.passed and good.method == "cosine" and good.score >= 0.5
    assert not bad.passed and bad.score < 0.3 and "does not address" in bad.reason


def test_a_flow_answer_is_compared_with_the_step_it_answers(retail, minilm):
    answer = "No problem, $30 will be refunded to your card today."
    bare = relevance(retail, minilm, "A1001", answer)
    routed = relevance(retail, minilm, "A1001", answer, decision=CONFIRM, history=["I want a refund for my order"])
    # the step's confirmation prompt is also among the agent's own texts: the bare answer finds it too
    assert routed.passed and bare.passed and routed.score >= bare.score


@pytest.mark.parametrize(("message", "answer"), [
    ("hi", "Hi there! How can I help you today?"),
    ("ok", "Great. Is there anything else you need?"),
    ("that's so annoying", "I completely understand, and I'm sorry for the hassle. Let's get this sorted for you."),
    ("can you hurry up", "I'm on it! Just a moment while I check."),
    ("yes", "Done! It's on its way."),
])
def test_greetings_acknowledgements_and_short_replies_are_on_topic_by_construction(retail, minilm, message, answer):
    result = relevance(retail, minilm, message, answer)
    assert result.passed and result.method == "cosine", result.reason


UNRELATED = [
    ("Where is my order A1004?", "The river sings at dawn, a silver thread through fields of gold.", "a poem or story"),
    ("hi", "To make fluffy pancakes, mix flour, milk and two eggs, then rest the batter for ten minutes.", "cooking"),
    ("Can I return my shoes?", "Stretch your hamstrings for thirty seconds after every run.", "health advice"),
    ("thanks", "Jupiter is the largest planet in our solar system.", "trivia"),
]


@pytest.mark.parametrize(("message", "answer", "kind"), UNRELATED)
def test_unrelated_content_is_caught_even_after_a_pleasantry(retail, minilm, message, answer, kind):
    assert not relevance(retail, minilm, message, answer).passed
    friendly = relevance(retail, minilm, message, "Thanks for asking! " + answer)
    assert not friendly.passed, friendly.reason


@pytest.mark.parametrize(("message", "answer", "kind"), UNRELATED)
def test_unrelated_content_is_caught_by_the_contrast_whatever_the_floor(retail, minilm, message, answer, kind):
    low = with_enforcement(retail, relevance_cosine_threshold=0.0)
    result = relevance(low, minilm, message, answer)
    assert not result.passed and f"about something else ({kind}" in result.reason, result.reason
    lenient = with_enforcement(retail, relevance_cosine_threshold=0.0, relevance_off_topic_margin=1.0)
    assert relevance(lenient, minilm, message, answer).passed  # the margin is the agent's to set


@pytest.mark.parametrize("answer", [
    "I don't know.",
    "I'm sorry, I don't have that information.",
    "I can't help with that.",
    "Sorry, I'm not able to answer that.",
    "That's outside of my area, I'm afraid.",
    "Could you tell me which order you mean?",
    "I'll connect you with a member of our team.",
    "I'm sorry, I can't help with that right now. A member of our team can follow up with you.",  # fallback message
    "I can help with Acme orders, refunds, deliveries and our store policies. What would you like to do?",
])
def test_refusals_clarifying_questions_and_the_agents_own_texts_pass(retail, minilm, answer):
    result = relevance(retail, minilm, "What is the meaning of life?", answer)
    assert result.passed and result.method == "bypass" and result.score is None


def test_the_bypass_has_a_flag(retail, minilm):
    off = with_enforcement(retail, relevance_refusal_bypass=False)
    assert relevance(off, minilm, "Where is my order A1004?", "I don't know.").method == "cosine"


def test_a_paraphrased_refusal_is_caught_by_similarity(retail, minilm):
    assert refusal_reason(retail, "Sorry, no idea about that one.", minilm.embed(["Sorry, no idea about that one."])[0],
                          minilm, 0.6) is not None


def test_answers_from_the_agents_own_templates_are_not_scored(retail, minilm):
    result = relevance(retail, minilm, "A1001", "anything at all", source="offline")
    assert result.passed and result.method == "bypass" and result.score is None


# --- the stage: flags, verdicts in the trace ------------------------------------------------------


class NoEmbedder:
    dimension = 384

    def embed(self, texts):
        raise AssertionError("a disabled check must not embed")


def stage_deps(agent, embedder, **kw):
    return SimpleNamespace(embedder=embedder, multilingual_embedder=None, relevance_model=kw.get("relevance_model"),
                           grounding_model=kw.get("grounding_model"), llm=lambda a, state=None: kw.get("llm"))


def test_flags_off_means_no_check_and_no_verdict(retail):
    agent = with_enforcement(retail, relevance_check_enabled=False, grounding_check_enabled=False)
    from focal.models.turn import Draft

    state = turn("Where is my order?")
    state.generate.drafts.append(Draft(text="It came to $95.", source="model"))
    assert enforce._output_checks(agent, state, stage_deps(agent, NoEmbedder())) == []
    assert [(c.name, c.passed) for c in state.enforce.report.checks] == [("internals", True), ("language", True)]  # no switch


def test_a_model_draft_writing_internal_names_is_a_violation_with_the_flags_off(retail):
    from focal.models.turn import Draft

    agent = with_enforcement(retail, relevance_check_enabled=False, grounding_check_enabled=False)
    state = turn("Where is my order?")
    state.generate.drafts.append(Draft(text="Since is_premium is false, refund_cap applies.", source="model"))
    violations = enforce._output_checks(agent, state, stage_deps(agent, NoEmbedder()))
    assert [(v.rule_id, v.lane) for v in violations] == [("internals", "internals")]
    assert "is_premium" in violations[0].reason and "refund_cap" in violations[0].reason
    state.generate.drafts.append(Draft(text="Since is_premium is false, refund_cap applies.", source="template"))
    assert enforce._output_checks(agent, state, stage_deps(agent, NoEmbedder())) == []  # the business's own text


def test_each_check_leaves_a_verdict_with_its_threshold(retail, minilm):
    from focal.models.turn import Draft

    agent = with_enforcement(retail, relevance_check_enabled=True, grounding_check_enabled=True)
    state = turn("A1001", minilm, decision=CONFIRM, variables=ORDER, tool_outputs={"total": 30.0})
    state.generate.drafts.append(Draft(text="The capital of France is Paris and it costs $95.", source="model"))
    violations = enforce._output_checks(agent, state, stage_deps(agent, minilm))
    assert [(v.rule_id, v.lane) for v in violations] == [("relevance", "relevance"), ("grounding", "grounding")]
    names, lang, rel, grd = state.enforce.report.checks
    assert (names.name, names.passed) == ("internals", True) and (lang.name, lang.passed) == ("language", True)
    assert (rel.name, rel.passed, rel.threshold, rel.draft) == ("relevance", False, 0.3, 0)
    assert (grd.name, grd.passed, grd.threshold, grd.unsupported) == ("grounding", False, 0.75, ["$95"])
    assert rel.ms > 0 and grd.ms > 0


# --- the two ONNX folders -------------------------------------------------------------------------

VOCAB = ["[UNK]", "refund", "order", "weather", "sunny", "paris", "money", "30", "95"]


def test_the_relevance_cross_encoder_adapter_scores_pairs(tmp_path):
    from focal.adapters.onnx_cross_encoder import OnnxRelevanceModel

    rng = np.random.default_rng(0)
    write_tiny_classifier(tmp_path, rng.standard_normal((len(VOCAB), 8)), rng.standard_normal((8, 1)), VOCAB)
    model = OnnxRelevanceModel(tmp_path)
    assert isinstance(model, RelevanceModel)
    scores = model.relevance([("refund order", "refund money"), ("refund", "sunny weather in paris"), ("x", "y")])
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert model.relevance([("refund order", "refund money")])[0] == pytest.approx(scores[0], abs=1e-6)  # batch = single
    assert model.relevance([]) == []


def test_the_relevance_folder_replaces_the_cosine(tmp_path, retail, minilm):
    from focal.adapters.onnx_cross_encoder import shared_relevance_model

    embedding = np.zeros((len(VOCAB), 2), dtype=np.float32)
    for word in ("refund", "order", "money"):
        embedding[VOCAB.index(word)] = [0.0, 6.0]  # label 1: relevant
    for word in ("weather", "sunny", "paris"):
        embedding[VOCAB.index(word)] = [6.0, -6.0]
    write_tiny_classifier(tmp_path / "rel", embedding, np.eye(2, dtype=np.float32), VOCAB)
    (tmp_path / "rel" / "config.json").write_text(json.dumps({"id2label": {"0": "irrelevant", "1": "relevant"}}))
    model = shared_relevance_model(str(tmp_path / "rel"))
    assert model is shared_relevance_model(str(tmp_path / "rel")) and shared_relevance_model(None) is None
    agent = with_enforcement(retail, relevance_model_dir=str(tmp_path / "rel"))
    good = relevance(agent, minilm, "refund order", "refund money", model=model)
    bad = relevance(agent, minilm, "refund order", "sunny weather paris", model=model)
    assert good.method == "cross_encoder" and good.passed and good.score > 0.9
    assert not bad.passed and bad.score < agent.enforcement.relevance_threshold


def test_the_nli_folder_scores_entailment_and_joins_the_grounding_verdict(tmp_path, retail):
    from focal.adapters.onnx_cross_encoder import OnnxEntailmentModel, shared_entailment_model

    rng = np.random.default_rng(1)
    write_tiny_classifier(tmp_path / "nli", rng.standard_normal((len(VOCAB), 8)), rng.standard_normal((8, 3)), VOCAB)
    (tmp_path / "nli" / "config.json").write_text(
        json.dumps({"id2label": {"0": "contradiction", "1": "entailment", "2": "neutral"}}))
    model = OnnxEntailmentModel(tmp_path / "nli")
    assert isinstance(model, EntailmentModel)
    scores = model.entailment("order 30 refund", ["refund 30", "paris 95", "sunny"])
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)

    # A model sure of entailment (label 2 here, named in config.json) keeps a grounded answer grounded;
    # one sure of contradiction fails it even when every claim has a source.
    embedding = np.zeros((len(VOCAB), 3), dtype=np.float32)
    embedding[:, 2] = 8.0
    write_tiny_classifier(tmp_path / "yes", embedding, np.eye(3, dtype=np.float32), VOCAB)
    (tmp_path / "yes" / "config.json").write_text(json.dumps({"id2label": {"0": "CONTRADICTION", "1": "NEUTRAL", "2": "ENTAILMENT"}}))
    write_tiny_classifier(tmp_path / "no", embedding, np.eye(3, dtype=np.float32), VOCAB)
    (tmp_path / "no" / "config.json").write_text(json.dumps({"id2label": {"0": "ENTAILMENT", "1": "NEUTRAL", "2": "CONTRADICTION"}}))
    text = "Order A1001 came to $30.00."
    yes = ground(retail, text, nli=shared_entailment_model(str(tmp_path / "yes")))
    no = ground(retail, text, nli=shared_entailment_model(str(tmp_path / "no")))
    assert yes.passed and yes.method == "claims+nli" and yes.score > 0.99
    assert not no.passed and no.score < 0.01 and "entailment" in no.reason


def test_the_stage_loads_both_folders_relative_to_the_agent_file(tmp_path, retail, minilm):
    from focal.adapters.onnx_cross_encoder import shared_entailment_model, shared_relevance_model
    from focal.models.turn import Draft

    rng = np.random.default_rng(2)
    write_tiny_classifier(tmp_path / "models" / "rel", rng.standard_normal((len(VOCAB), 4)), rng.standard_normal((4, 1)), VOCAB)
    write_tiny_classifier(tmp_path / "models" / "nli", rng.standard_normal((len(VOCAB), 4)), rng.standard_normal((4, 3)), VOCAB)
    agent = with_enforcement(retail, relevance_check_enabled=True, grounding_check_enabled=True,
                             relevance_model_dir="models/rel", grounding_model_dir="models/nli")
    agent.base_dir = str(tmp_path)
    loaded: list[str] = []

    def rel(folder):
        loaded.append(folder)
        return shared_relevance_model(folder)

    def nli(folder):
        loaded.append(folder)
        return shared_entailment_model(folder)

    state = turn("refund order A1001", minilm, decision=CONFIRM, variables=ORDER)
    state.generate.drafts.append(Draft(text="Order A1001 came to $30.00, refund to your card?", source="model"))
    enforce._output_checks(agent, state, stage_deps(agent, minilm, relevance_model=rel, grounding_model=nli))
    assert loaded == [str(tmp_path / "models" / "rel"), str(tmp_path / "models" / "nli")]
    methods = {c.name: c.method for c in state.enforce.report.checks}
    assert methods == {"internals": "names", "language": "words", "relevance": "cross_encoder", "grounding": "claims+nli"}
    assert next(c for c in state.enforce.report.checks if c.name == "relevance").threshold == 0.5


def test_a_cross_encoder_folder_must_hold_model_and_tokenizer(tmp_path):
    from focal.adapters.onnx_cross_encoder import OnnxEntailmentModel, OnnxRelevanceModel

    for cls in (OnnxRelevanceModel, OnnxEntailmentModel):
        with pytest.raises(FileNotFoundError, match="model.onnx and tokenizer.json"):
            cls(tmp_path)


def test_a_masked_card_number_states_nothing_and_the_customers_card_supports_its_last_four():
    assert extract_claims("Your card 4111 **** **** 1111 is masked.") == []
    assert extract_claims("Your card **** **** **** 1111 is masked.") == []
    from focal.enforcement.grounding import LONG_DIGITS

    digits = {m.group(0)[-4:] for m in LONG_DIGITS.finditer("refund to my visa 4111 1111 1111 4242 please")}
    assert digits == {"4242"}
