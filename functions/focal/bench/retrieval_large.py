"""`focal bench retrieval --rules`: recall, precision and latency of a real large agent.

The example's own file (default examples/retail) with synthetic rules added — each a distinct rule-like condition and
an action, GLOBAL, as a business writes them — is read by the product's loader (focal.config.loader, with its limits:
an agent holds at most `AgentFileLimits.rules` rules and `embedded_texts` texts to embed, so the largest agent is the
example plus what those limits leave). It is synced into the index with `sync_index` (every key really embedded) and
its labelled messages (retrieval.yaml) are read as turns (focal.bench.retrieval.run_cases: the sensor and retrieve
stages, then the route's decision), so every per-agent behaviour a large agent gets — its lexical weights over all its
keys, no nearest-other threshold or overlap above their key limit, the crowd check — is the one measured.

An index of 10,000 or 100,000 rules holds many agents: the rows at those sizes fill the index with other agents'
rules (random unit vectors) around the largest agent, and time the agent's turns there.

Reported per row: recall and precision of the example's rules at the agent's threshold (a synthetic rule passing is
counted beside them, per message: no label says whether it applies), and the p50/p95 of a turn's retrieval (centring,
scope, search of the message and its parts, the decision). No customer text is printed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml

from focal.bench.retrieval import TENANT, CaseResult, load_cases, passing, run_cases
from focal.bench.retrieval_turn import injection_classifier_loader
from focal.config.limits import AGENT_FILE_LIMITS
from focal.config.loader import agent_from_text
from focal.config.size_checks import embedded_texts
from focal.models.agent import AgentConfig
from focal.ports import Embedder, IndexedRule

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
SYNTHETIC = "synthetic_"  # the synthetic rules' id prefix
AT_LIMIT = 0  # an agent size of 0 asks for the largest agent the loader's limits allow

_WHO = ["The customer", "A shopper", "The caller", "The user", "A Premium member"]
_VERB = ["asks about", "complains about", "wants to know about", "is unhappy with", "requests information on",
         "mentions", "asks whether we offer"]
_TOPIC = ["gift wrapping", "a damaged product", "loyalty points", "an invoice copy", "store pickup",
          "a missing document", "the size guide", "a late reply", "changing the payment method", "an expired coupon",
          "bulk discounts", "international fees", "a product recall", "assembly instructions", "a double charge",
          "cancelling a subscription", "the student discount"]
_TAIL = ["", " for a purchase made last month", " after the due date", " on the mobile app",
         " and wants a quick answer", " while a claim is already in progress",
         " and says it is urgent because it was a birthday present", " for a family member"]
_ACTIONS = ["Explain the policy in two sentences and offer further help.",
            "Say a specialist replies within 2 working days.", "Give the fee and how it is paid.",
            "Apologise and say the case is passed to the team.", "Point to the help page and summarise it.",
            "Say this is not offered and suggest the nearest alternative."]


def synthetic_rules(n: int, seed: int = 11) -> list[dict[str, str]]:
    """`n` rules as a file writes them: distinct rule-like conditions (at most the templates' product), an action each."""
    conditions = [f"{w} {v} {t}{tail}" for w, v, t, tail in itertools.product(_WHO, _VERB, _TOPIC, _TAIL)]
    if n > len(conditions):
        raise ValueError(f"at most {len(conditions)} distinct synthetic rules, asked for {n}")
    picks = np.random.default_rng(seed).permutation(len(conditions))[:n]
    return [{"id": f"{SYNTHETIC}{i}", "condition_text": conditions[j], "action_text": _ACTIONS[j % len(_ACTIONS)]}
            for i, j in enumerate(picks.tolist())]


def room(raw: dict) -> int:
    """How many rules the loader's limits leave beside the file's own (rules, and texts to embed)."""
    rules = len(raw.get("rules") or [])
    return max(0, min(AGENT_FILE_LIMITS.rules - rules, AGENT_FILE_LIMITS.embedded_texts - embedded_texts(raw)))


def large_agent(agent_path: Path, total: int) -> AgentConfig:
    """The agent file with synthetic rules added up to `total` rules (AT_LIMIT: as many as the limits allow), through
    the product's loader."""
    raw = yaml.safe_load(agent_path.read_text(encoding="utf-8"))
    own = len(raw.get("rules") or [])
    extra = room(raw) if total == AT_LIMIT else max(0, total - own)
    raw["rules"] = [*(raw.get("rules") or []), *synthetic_rules(extra)]
    text = yaml.dump(raw, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)  # the C dumper: 1,000 rules
    return agent_from_text(text, f"{agent_path} + {extra} synthetic rules", str(agent_path.parent.resolve()))


def other_agents(n: int, seed: int = 5) -> list[tuple[str, list[IndexedRule], np.ndarray]]:
    """`n` rules of other agents (100 each, random unit vectors), to fill the index around the measured agent."""
    rng = np.random.default_rng(seed)
    out = []
    for start in range(0, n, 100):
        size = min(100, n - start)
        docs = [IndexedRule(f"o{start + i}", "GLOBAL", None, f"rule {start + i}") for i in range(size)]
        vectors = rng.standard_normal((size, 384)).astype(np.float32)
        out.append((f"other-{start // 100}", docs, vectors / np.linalg.norm(vectors, axis=1, keepdims=True)))
    return out


@dataclass
class LargeRow:
    agent_rules: int
    index_rules: int
    found: int
    expected: int
    others: int  # the example's rules passing that the case does not expect
    synthetic: float  # synthetic rules passing, per message
    p50_ms: float
    p95_ms: float

    @property
    def recall(self) -> float:
        return self.found / max(self.expected, 1)

    @property
    def precision(self) -> float:
        return self.found / max(self.found + self.others, 1)


def measure(agent: AgentConfig, results: Sequence[CaseResult], index_rules: int) -> LargeRow:
    known = {r.id for r in agent.rules if not r.id.startswith(SYNTHETIC)}
    found = expected = others = synthetic = 0
    for r in results:
        passed = passing(agent, r.candidates, reading=r.reading, expected=r.case.expected)
        found += len(passed & set(r.case.expected))
        expected += len(r.case.expected)
        others += len((passed & known) - set(r.case.expected))
        synthetic += len(passed - known)
    times = [r.ms_search for r in results]
    return LargeRow(len(agent.rules), index_rules, found, expected, others, synthetic / max(len(results), 1),
                    float(np.percentile(times, 50)), float(np.percentile(times, 95)))


def large_row(agent: AgentConfig, cases_path: Path, embedder: Embedder, index_rules: int = 0) -> LargeRow:
    """The agent's labelled messages as turns, in an index holding `index_rules` rules in all (other agents' beside it)."""
    from focal.adapters.numpy_index import NumpyRuleIndex

    index = NumpyRuleIndex()
    for agent_id, docs, vectors in other_agents(max(0, index_rules - len(agent.rules))):
        index.upsert(TENANT, agent_id, docs, vectors)
    results = run_cases(agent, load_cases(cases_path), embedder, index, classifier=injection_classifier_loader())
    return measure(agent, results, max(index_rules, len(agent.rules)))


def large_lines(index_sizes: Sequence[int], agent_sizes: Sequence[int], embedder: Embedder,
                agent_dir: Path = EXAMPLES / "retail") -> list[str]:
    """The table: the example alone, the example grown to each of `agent_sizes` rules, then the largest of those agents
    in an index of each of `index_sizes` rules."""
    path, cases = agent_dir / "agent.yaml", agent_dir / "retrieval.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    lines = [
        f"a real large agent: {agent_dir.name}'s file plus synthetic rules (GLOBAL, condition and action), read by the"
        f" product's loader (at most {room(raw) + len(raw.get('rules') or [])} rules for this file), synced with"
        " sync_index, its retrieval.yaml read as turns",
        f"{'agent rules':>12}{'index rules':>13}{'recall':>8}{'precision':>11}{'found':>8}{'synthetic passing/msg':>23}"
        f"{'p50 ms':>9}{'p95 ms':>9}",
    ]
    agents = [large_agent(path, n) for n in (len(raw.get("rules") or []), *agent_sizes)]
    rows = [large_row(a, cases, embedder) for a in agents]
    largest = max(agents, key=lambda a: len(a.rules))
    rows += [large_row(largest, cases, embedder, n) for n in index_sizes]
    for row in rows:
        lines.append(f"{row.agent_rules:>12,}{row.index_rules:>13,}{row.recall:>8.2f}{row.precision:>11.2f}"
                     f"{f'{row.found}/{row.expected}':>8}{row.synthetic:>23.2f}{row.p50_ms:>9.2f}{row.p95_ms:>9.2f}")
    lines.append("precision counts the example's rules; a synthetic rule passing is counted beside them")
    return lines
