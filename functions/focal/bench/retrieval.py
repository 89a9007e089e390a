"""`focal bench retrieval`: how well and how fast the rule index retrieves.

Labelled mode (`focal bench retrieval AGENT [--cases FILE] [--k 1,3,5,10]`): every case of a
labelled set (default: retrieval.yaml beside the agent) is read as a turn reads it
(focal.bench.retrieval_turn): `sync_index` into the embedded index, then the sensor and retrieve stages
themselves in a fresh session at the case's scenario/step (offline, no model), then the route's rule decision
(focal.dialogue.rule_answers.matched_rules: the rule filter's thresholds and margins, a flow's resemblance set
aside for an information request, a rule that answers questions set aside in a flow when the message asks none,
fire limits and exclusions). It prints recall@k (expected rule ids among the top k rules; "always included" hits do
not count), recall and precision of what the route matches at the agent's threshold and around it (a rule only
entailed by a matched one counts when expected, never against precision), the expected ids that do not pass counted
by the first similarity check they fail (focal.bench.retrieval_misses), and the latency of a turn's retrieval
(p50/p95, with and without embedding the message).

A case the turn would read in another of the agent's languages is matched in the multilingual space, as its turn
(focal.bench.retrieval_language). `--without-examples` measures the agent with its rules' examples removed: rules
as a business first writes them, matched through their conditions alone.

Scale mode (`--rules 10000,100000`): focal.bench.retrieval_scale.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from focal.bench.retrieval_language import Spaces, case_language, search_case
from focal.bench.retrieval_misses import miss_cause, miss_line
from focal.bench.retrieval_turn import TurnReading, bench_deps, decided, injection_classifier_loader, read_case
from focal.dialogue.match_bounds import CROWD_GAP
from focal.models.agent import AgentConfig, Scope
from focal.models.turn import ScoredRule
from focal.ports import Embedder, RuleIndex, ScopeFilter
from focal.retrieval.calibration import centred
from focal.retrieval.matching import RuleHit, search_rules
from focal.retrieval.rules import indexed_scope_id, sync_index, turn_scope
from focal.sensing.spaces import multilingual_turn

TENANT = "bench"
DEFAULT_KS = (1, 3, 5, 10)


# --------------------------------------------------------------------------- labelled set

@dataclass(frozen=True)
class Case:
    message: str
    scenario: str | None
    step: str | None
    expected: tuple[str, ...]


def load_cases(path: str | Path) -> list[Case]:
    """Parse a labelled set: a list of cases, or a mapping with `cases:` (and an optional `agent:`)."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ValueError(f"{path}: expected a list of cases (or a mapping with 'cases:')")
    cases = []
    for i, item in enumerate(items):
        where = f"{path}: cases[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where} must be a mapping")
        unknown = set(item) - {"message", "scenario", "step", "expected"}
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        message, expected = item.get("message"), item.get("expected")
        if not isinstance(message, str) or not message.strip():
            raise ValueError(f"{where}.message must be a non-empty string (quote yes/no/on/off)")
        if not isinstance(expected, list) or not all(isinstance(r, str) for r in expected):
            raise ValueError(f"{where}.expected must be a list of rule ids ([] for none)")
        for key in ("scenario", "step"):
            if item.get(key) is not None and not isinstance(item[key], str):
                raise ValueError(f"{where}.{key} must be a string or null")
        cases.append(Case(message, item.get("scenario"), item.get("step"), tuple(expected)))
    return cases


def case_problems(agent: AgentConfig, cases: Sequence[Case]) -> list[str]:
    """Labelling errors against the agent: unknown ids, and expected rules the scope would hide."""
    problems = []
    for i, case in enumerate(cases):
        where = f"cases[{i}]"
        if case.scenario is not None and agent.scenario(case.scenario) is None:
            problems.append(f"{where}.scenario: '{case.scenario}' does not exist")
            continue
        if case.step is not None and (case.scenario is None or agent.step(case.scenario, case.step) is None):
            problems.append(f"{where}.step: '{case.step}' is not a step of scenario '{case.scenario}'")
            continue
        if len(set(case.expected)) != len(case.expected):
            problems.append(f"{where}.expected: duplicate rule ids")
        for rule_id in case.expected:
            rule = agent.rule(rule_id)
            if rule is None:
                problems.append(f"{where}.expected: rule '{rule_id}' does not exist")
            elif not rule.enabled:
                problems.append(f"{where}.expected: rule '{rule_id}' is disabled")
            elif not _visible(agent, rule_id, case):
                problems.append(f"{where}.expected: rule '{rule_id}' ({rule.scope.value} {rule.scope_id}) "
                                "is outside the case's scope, the filter hides it")
    return problems


MIN_CASES_PER_RULE = 3


def thinly_labelled(agent: AgentConfig, cases: Sequence[Case]) -> list[tuple[str, int]]:
    """Enabled soft rules that fewer than MIN_CASES_PER_RULE cases expect (the set lags the agent)."""
    counts = {r.id: 0 for r in agent.rules if r.enabled and not r.is_hard_constraint}
    for case in cases:
        for rule_id in case.expected:
            if rule_id in counts:
                counts[rule_id] += 1
    return [(rule_id, n) for rule_id, n in counts.items() if n < MIN_CASES_PER_RULE]


def _visible(agent: AgentConfig, rule_id: str, case: Case) -> bool:
    rule = agent.rule(rule_id)
    assert rule is not None
    if rule.scope == Scope.GLOBAL:
        return True
    if rule.scope == Scope.SCENARIO:
        return rule.scope_id == case.scenario
    return indexed_scope_id(agent, rule) == f"{case.scenario}.{case.step}"


@dataclass
class CaseResult:
    case: Case
    ranked: list[RuleHit]  # similarity hits folded into rules, best first (for recall@k)
    candidates: list[ScoredRule]  # what a turn's retrieve stage returns: top_k + always included
    ms_search: float = 0.0  # centring, scope, search_rules and the similarity decision
    ms_embed: float = 0.0  # embedding the message (the sensor does it on a turn)
    reading: TurnReading | None = None  # the session, message and commands the route decides with


def scored(agent: AgentConfig, hits: list[RuleHit]) -> list[ScoredRule]:
    return [ScoredRule(rule_id=h.rule_id, score=h.score, scope=rule.scope.value, reason=h.reason, flow_id=h.flow_id,
                       flow_score=h.flow_score, best_score=h.best_score,
                       nearest_other=h.nearest_other, overlaps_best=h.overlaps_best, crowd_score=h.crowd)
            for h in hits if (rule := agent.rule(h.rule_id)) is not None]


def passing(agent: AgentConfig, candidates: list[ScoredRule], threshold: float | None = None,
            reading: TurnReading | None = None, expected: Sequence[str] = ()) -> set[str]:
    """The candidates the route matches (at `threshold`, else the agent's): the rule filter and the rule answers'
    decisions, on the turn's `reading` (None: a fresh session outside any flow, no commands); a rule entailed by a
    matched one only when `expected` (focal.bench.retrieval_turn.decided)."""
    if threshold is not None:
        agent = agent.model_copy(update={"retrieval": agent.retrieval.model_copy(update={"rule_match_threshold": threshold})})
    return decided(agent, candidates, reading, expected)


def run_cases(agent: AgentConfig, cases: Sequence[Case], embedder: Embedder, index: RuleIndex | None = None,
              max_k: int = 10, multilingual: Embedder | None = None, classifier: Any = None) -> list[CaseResult]:
    """Each case as a turn reads it (focal.bench.retrieval_turn): the sensor and retrieve stages on the synced index,
    then the route's rule decision. `multilingual`: the multilingual embedder (default: the product's), in whose space
    a case the turn reads in another language is matched (focal.bench.retrieval_language).
    `classifier`: the loader of the agent's injection classifier, for pre-validation as deployed."""
    from focal.adapters.numpy_index import NumpyRuleIndex
    from focal.adapters.use_embedder import shared_multilingual_embedder

    if index is None:
        index = NumpyRuleIndex()
    if multilingual is None:  # a turn reads every message there too (pre-validation, a request for a person)
        multilingual = shared_multilingual_embedder()
    spaces = Spaces(embedder, index, multilingual, NumpyRuleIndex() if multilingual is not None else None)
    sync_index(index, embedder, TENANT, agent)
    deps = bench_deps(agent, embedder, index, multilingual, spaces.multilingual_index, classifier)
    clear = getattr(embedder, "clear_cache", None)
    results = []
    for n, case in enumerate(cases):
        if clear:
            clear()  # a message the model has not seen, as on a turn
        t0 = time.perf_counter()
        vector = embedder.embed([case.message.strip()])[0]
        t1 = time.perf_counter()
        state, reading, ms_retrieve = read_case(deps, n, case.message, case.scenario, case.step)
        t2 = time.perf_counter()
        candidates = list(state.retrieve.candidates)
        passing(agent, candidates, reading=reading)
        t3 = time.perf_counter()
        ranked = _ranked(agent, spaces, turn_scope(TENANT, agent, reading.session, []), case.message,
                         centred(embedder, vector), max_k, multilingual)
        results.append(CaseResult(case, ranked, candidates, (t3 - t2) * 1000 + ms_retrieve,
                                  (t1 - t0) * 1000, reading))
    return results


def _ranked(agent: AgentConfig, spaces: Spaces, scope: ScopeFilter, message: str, query: np.ndarray, max_k: int,
            multilingual: Embedder | None) -> list[RuleHit]:
    """The similarity hits folded into rules, best first, for recall@k (the turn's space and parts)."""
    in_space = multilingual is not None and multilingual_turn(agent, case_language(agent, message))
    hits = search_case(agent, spaces, scope, message, query) if in_space else \
        search_rules(agent, spaces.index, scope, query, max_k, message)
    return [h for h in hits if h.reason == "similarity"]


def recall_at(results: Sequence[CaseResult], k: int) -> tuple[int, int, int]:
    """(expected ids found in the top k, expected ids, cases with every expected id found)."""
    found = total = complete = 0
    for r in results:
        top = {h.rule_id for h in r.ranked[:k]}
        hit = sum(1 for rule_id in r.case.expected if rule_id in top)
        found, total = found + hit, total + len(r.case.expected)
        complete += bool(r.case.expected) and hit == len(r.case.expected)
    return found, total, complete


@dataclass
class ThresholdRow:
    threshold: float
    above_expected: int = 0
    above_unexpected: int = 0
    above_unexpected_hard: int = 0  # of which GLOBAL hard constraints (enforced on every reply anyway)
    expected_missed: int = 0  # expected but below the threshold (or not among the candidates)
    quiet_cases_matched: int = 0  # cases expecting no rule where something passes the threshold

    @property
    def precision(self) -> float:
        return self.above_expected / max(self.above_expected + self.above_unexpected, 1)

    @property
    def recall(self) -> float:
        return self.above_expected / max(self.above_expected + self.expected_missed, 1)


def threshold_row(agent: AgentConfig, results: Sequence[CaseResult], threshold: float) -> ThresholdRow:
    row = ThresholdRow(threshold)
    for r in results:
        passed = passing(agent, r.candidates, threshold, r.reading, r.case.expected)
        expected = set(r.case.expected)
        row.above_expected += len(passed & expected)
        unexpected = passed - expected
        row.above_unexpected += len(unexpected)
        row.above_unexpected_hard += sum(1 for rule_id in unexpected if _global_hard(agent, rule_id))
        row.expected_missed += len(expected - passed)
        row.quiet_cases_matched += not expected and bool(passed)
    return row


def _global_hard(agent: AgentConfig, rule_id: str) -> bool:
    rule = agent.rule(rule_id)
    return bool(rule and rule.is_hard_constraint and rule.scope == Scope.GLOBAL)


def labelled_report(agent: AgentConfig, results: Sequence[CaseResult], ks: Sequence[int], show: bool = False) -> str:
    n_quiet = sum(1 for r in results if not r.case.expected)
    n_expected = sum(len(r.case.expected) for r in results)
    threshold = agent.retrieval.rule_match_threshold
    lines = [
        f"focal bench retrieval: agent {agent.id!r}, {len(results)} cases ({len(results) - n_quiet} expecting "
        f"{n_expected} rule ids, {n_quiet} expecting none); MiniLM (centred) + numpy index, scope by turn_scope",
        "",
        f"{'recall@k':<10}{'found':>12}{'recall':>9}{'cases complete':>17}",
    ]
    with_rules = len(results) - n_quiet
    for k in ks:
        found, total, complete = recall_at(results, k)
        lines.append(f"{'@' + str(k):<10}{f'{found}/{total}':>12}{found / max(total, 1):>9.2f}"
                     f"{f'{complete}/{with_rules}':>17}")
    lines += [
        "",
        f"rule filter on each turn's candidates (top_k {agent.retrieval.top_k} + always included): calibrated score"
        f" >= threshold, {CROWD_GAP:g} above the message's crowd, within {agent.retrieval.rule_match_margin:g} of the"
        f" best rule and of another flow's best example; * = the agent's {threshold:.2f}",
        f"{'threshold':<11}{'above:expected':>15}{'above:other':>13}{'(hard)':>8}{'expected below':>16}"
        f"{'precision':>11}{'recall':>8}{'none-cases hit':>16}",
    ]
    for t in sorted({round(min(max(threshold + d, 0.0), 1.0), 2) for d in (-0.15, -0.1, -0.05, 0, 0.05, 0.1)}):
        row = threshold_row(agent, results, t)
        mark = "*" if abs(t - threshold) < 1e-9 else " "
        lines.append(f"{f'{t:.2f}{mark}':<11}{row.above_expected:>15}{row.above_unexpected:>13}"
                     f"{f'({row.above_unexpected_hard})':>8}{row.expected_missed:>16}{row.precision:>11.2f}"
                     f"{row.recall:>8.2f}{f'{row.quiet_cases_matched}/{n_quiet}':>16}")
    lines.append("(hard) = unexpected GLOBAL hard constraints among 'above:other'; enforce checks those on every reply anyway")
    row = threshold_row(agent, results, threshold)
    lines.append(f"at the agent's threshold {threshold:.2f}: recall {row.recall:.2f}, precision {row.precision:.2f}"
                 f" ({row.above_expected} of {row.above_expected + row.expected_missed} expected ids pass,"
                 f" {row.above_unexpected} others)")
    lines.append(miss_line(agent, [(r.case.expected, r.candidates) for r in results]))
    lines.append(route_line(agent, results))
    lines.append(latency_line(results))
    thin = thinly_labelled(agent, [r.case for r in results])
    if thin:
        lines.append(f"rules with fewer than {MIN_CASES_PER_RULE} cases: " + ", ".join(f"{i} ({n})" for i, n in thin))
    if show:
        lines += ["", *per_rule_lines(agent, results), "", *miss_lines(results, agent)]
    return "\n".join(lines)


def route_line(agent: AgentConfig, results: Sequence[CaseResult]) -> str:
    """Expected ids the similarity checks let through that the turn still does not match, and cases it ended early."""
    ended = sum(1 for r in results if r.reading is not None and r.reading.ended)
    aside = sum(1 for r in results for rule_id in r.case.expected
                if miss_cause(agent, r.candidates, rule_id) is None
                and rule_id not in passing(agent, r.candidates, reading=r.reading, expected=r.case.expected))
    return (f"expected ids set aside by the route's decision (in a flow, a message asking nothing; an exclusion; "
            f"a turn the sensor ended): {aside}; cases the sensor ended (clarify, refused): {ended}")


def latency_line(results: Sequence[CaseResult]) -> str:
    search = [r.ms_search for r in results]
    full = [r.ms_search + r.ms_embed for r in results]
    return (f"latency per turn: retrieval (centre, scope, search, decide) p50 {np.percentile(search, 50):.2f} ms,"
            f" p95 {np.percentile(search, 95):.2f} ms; with embedding the message p50 {np.percentile(full, 50):.2f} ms,"
            f" p95 {np.percentile(full, 95):.2f} ms")


def per_rule_lines(agent: AgentConfig, results: Sequence[CaseResult]) -> list[str]:
    lines = [f"{'rule':<20}{'cases':>6}{'@1':>5}{'@5':>5}{'rank (mean)':>13}{'score (min)':>13}{'passed':>11}"
             f"{'false hits':>12}"]
    return lines + [_rule_line(agent, rule.id, results) for rule in agent.rules]


def _rank(rule_id: str, result: CaseResult) -> int:
    """The rule's rank among the case's similarity hits (1 = best); one past the last when it is not among them."""
    ids = [h.rule_id for h in result.ranked]
    return ids.index(rule_id) + 1 if rule_id in ids else len(ids) + 1


def _score(rule_id: str, result: CaseResult) -> float:
    """The rule's score among the case's candidates, NaN when it is not one."""
    return next((h.score for h in result.candidates if h.rule_id == rule_id), float("nan"))


def _lowest(scores: list[float]) -> str:
    """The lowest score that is a number, '-' when none is."""
    return f"{np.nanmin(scores):.2f}" if scores and not np.all(np.isnan(scores)) else "-"


def _rule_line(agent: AgentConfig, rule_id: str, results: Sequence[CaseResult]) -> str:
    """One rule's row: the cases expecting it, how many rank it first and in the top 5, its mean rank and lowest
    score there, how many of them it passes, and the cases not expecting it that it passes (false hits)."""
    mine = [r for r in results if rule_id in r.case.expected]
    ranks = [_rank(rule_id, r) for r in mine]
    scores = [_score(rule_id, r) for r in mine]
    false_hits = sum(1 for r in results if rule_id not in r.case.expected
                     and rule_id in passing(agent, r.candidates, reading=r.reading, expected=r.case.expected))
    at1 = sum(1 for x in ranks if x <= 1)
    at5 = sum(1 for x in ranks if x <= 5)
    above = sum(1 for r in mine if rule_id in passing(agent, r.candidates, reading=r.reading, expected=r.case.expected))
    mean_rank = f"{np.mean(ranks):.1f}" if ranks else "-"
    return (f"{rule_id:<20}{len(mine):>6}{at1:>5}{at5:>5}{mean_rank:>13}{_lowest(scores):>13}"
            f"{f'{above}/{len(mine)}':>11}{false_hits:>12}")


def miss_lines(results: Sequence[CaseResult], agent: AgentConfig) -> list[str]:
    lines = ["cases with an expected rule outside the top 5 or not passing, or a wrong rule passing:"]
    for n, r in enumerate(results):
        top5 = [h.rule_id for h in r.ranked[:5]]
        passed = passing(agent, r.candidates, reading=r.reading, expected=r.case.expected)
        missing = [x for x in r.case.expected if x not in top5 or x not in passed]
        wrong = sorted(passed - set(r.case.expected))
        if missing or wrong:
            top = ", ".join(f"{h.rule_id} {h.score:.2f}" for h in r.ranked[:3])
            lines.append(f"  [{n}] {r.case.message!r} ({r.case.scenario}/{r.case.step}) expected {list(r.case.expected)}"
                         f" · top: {top}" + (f" · passed, not expected: {wrong}" if wrong else ""))
    return lines


def labelled(agent_path: str, cases_path: str | None, ks: Sequence[int], show: bool = False,
             embedder: Embedder | None = None, examples: bool = True) -> tuple[str, list[CaseResult]]:
    """The labelled report; `examples=False` measures the agent with its rules' examples removed (without_examples)."""
    from focal.config.loader import load_agent

    agent = load_agent(agent_path) if examples else without_examples(load_agent(agent_path))
    if not any(r.enabled for r in agent.rules):
        return (f"focal bench retrieval: agent {agent.id!r} has no enabled rules, so there is nothing to retrieve"
                " (no labelled set is needed)"), []
    path = Path(cases_path) if cases_path else _beside(agent_path)
    if not path.is_file():
        raise ValueError(f"{path}: no labelled set there; write one beside the agent (retrieval.yaml) or pass --cases FILE")
    cases = load_cases(path)
    problems = case_problems(agent, cases)
    if problems:
        raise ValueError(f"{path}: {len(problems)} problem(s)\n  " + "\n  ".join(problems))
    if embedder is None:  # the product's models
        from focal.adapters.onnx_embedder import shared_embedder

        embedder = shared_embedder()
    results = run_cases(agent, cases, embedder, max_k=max(ks), classifier=injection_classifier_loader())
    return labelled_report(agent, results, ks, show), results


def without_examples(agent: AgentConfig) -> AgentConfig:
    """The agent with every rule's `examples` removed, its translations' too: rules as a business first writes them
    (condition and action only), so retrieval without examples is measurable on any labelled set."""
    rules = [r.model_copy(update={"examples": []}) for r in agent.rules]
    translations = {lang: texts.model_copy(update={"rules": {rule_id: t.model_copy(update={"examples": []})
                                                             for rule_id, t in texts.rules.items()}})
                    for lang, texts in agent.translations.items()}
    return agent.model_copy(update={"rules": rules, "translations": translations})


def _beside(agent_path: str) -> Path:
    p = Path(agent_path)
    return (p if p.is_dir() else p.parent) / "retrieval.yaml"
