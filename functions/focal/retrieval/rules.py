"""Keeping the index in step with the agent config, and the scope a turn may see.

Documents are the enabled rules' keys — the condition (not an action guard's: it describes the call
it guards, not a message), the condition followed by the action ('rule_id#action': a customer often names
what the rule settles — "move me to the unlimited tariff" for "I want to change my plan", whose action is
about plan changes — in words the condition alone lacks; measured on the example agents' labelled sets with
`focal bench retrieval`, it lifts recall at no cost in precision), the condition naming each term of the
rule's declared vocabulary ('rule_id#term-n': the entity names of the entity_list fields it depends on — a rule
about competitors says "another store", a customer says "Walmart"), each of the rule's examples, as
'rule_id#n' — and the scenarios' entry examples. Vectors are centred on the model's background mean before they are indexed
(focal.retrieval.calibration). Each document carries a digest of what was embedded and how, so
syncing re-embeds only what changed and deletes what is gone (a disabled rule leaves the index on
the next sync; the rule filter also drops it at once).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from focal.config.validate import resolve_step_scope
from focal.enforcement.guards import is_guard
from focal.models.agent import AgentConfig, Rule, Scope
from focal.models.session import Session
from focal.ports import Embedder, IndexedRule, RuleIndex, ScopeFilter, embed_fixed
from focal.retrieval.calibration import calibration_id, centred
from focal.turn.deps import Deps

EMBED_BATCH = 64


def indexed_scope_id(agent: AgentConfig, rule: Rule) -> str | None:
    """STEP rules are indexed as 'scenario_id.step_id' so a bare step id cannot match another scenario."""
    if rule.scope == Scope.STEP and rule.scope_id:
        found = resolve_step_scope(agent, rule.scope_id)
        return f"{found[0][0]}.{found[0][1]}" if len(found) == 1 else rule.scope_id
    return rule.scope_id


KEY_SEPARATOR = "#"  # 'rule_id#n': the n-th example of a rule ('scenario_id#n' for entry examples); ids hold no '#'
ACTION_KEY = "action"  # 'rule_id#action': the rule's condition followed by its action
TERM_KEY = "term"  # 'rule_id#term-n': the rule's condition naming the n-th term of its declared vocabulary


def _digest(embedder: Embedder, *parts: object) -> str:
    model = getattr(embedder, "model_id", type(embedder).__name__)
    head = (model, embedder.dimension, calibration_id(embedder))
    return hashlib.sha256("\x1f".join(str(p) for p in (*head, *parts)).encode()).hexdigest()[:32]


def rule_of(doc_id: str) -> str:
    """The rule a document id belongs to: 'refund_cap#2' → 'refund_cap'."""
    return doc_id.split(KEY_SEPARATOR, 1)[0]


def rule_vocabulary(agent: AgentConfig, rule: Rule) -> list[str]:
    """The names the rule is about, as the agent declares them: the allowed values (and their synonyms) of each
    entity_list field the rule depends on ("Amazon", "Walmart" for a rule about competitors)."""
    terms: list[str] = []
    for name in rule.depends_on_definitions:
        field = agent.field(name)
        if field is None or field.field_type != "entity_list":
            continue
        for value in field.allowed_values:
            terms += [t for t in (value, *field.value_synonyms.get(value, [])) if t.strip() and t not in terms]
    return terms


def rule_keys(rule: Rule, vocabulary: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(document id, text) of each key the rule is matched by; `vocabulary`: the rule's declared terms
    (`rule_vocabulary`), each a key of the condition naming it."""
    keys = [] if is_guard(rule) else [(rule.id, rule.condition_text)]
    if keys and rule.action_text.strip():
        keys.append((f"{rule.id}{KEY_SEPARATOR}{ACTION_KEY}", f"{rule.condition_text.rstrip(' .')}. {rule.action_text.strip()}"))
    if keys:
        keys += [(f"{rule.id}{KEY_SEPARATOR}{TERM_KEY}-{n}", f"{rule.condition_text.rstrip(' .')}: {term}")
                 for n, term in enumerate(vocabulary)]
    return keys + [(f"{rule.id}{KEY_SEPARATOR}{n}", text) for n, text in enumerate(rule.examples)]


def agent_rule_keys(agent: AgentConfig, rule: Rule) -> list[tuple[str, str]]:
    """`rule_keys` with the rule's vocabulary as the agent declares it."""
    return rule_keys(rule, rule_vocabulary(agent, rule))


def agent_documents(agent: AgentConfig, embedder: Embedder) -> list[IndexedRule]:
    docs = []
    for r in agent.rules:
        if not r.enabled:
            continue
        scope_id = indexed_scope_id(agent, r)
        for doc_id, text in agent_rule_keys(agent, r):
            docs.append(IndexedRule(doc_id, r.scope.value, scope_id, text, kind="rule", hard=r.is_hard_constraint,
                                    digest=_digest(embedder, "rule", r.scope.value, scope_id, r.is_hard_constraint, text)))
    for s in agent.scenarios:
        for n, example in enumerate(s.entry_examples):
            docs.append(IndexedRule(f"{s.id}#{n}", "SCENARIO", s.id, example, kind="scenario",
                                    digest=_digest(embedder, "scenario", s.id, example)))
    return docs


@dataclass
class SyncReport:
    embedded: int = 0
    unchanged: int = 0
    deleted: int = 0

    def __str__(self) -> str:
        return f"{self.embedded} embedded, {self.unchanged} unchanged, {self.deleted} deleted"


def sync_index(
    index: RuleIndex, embedder: Embedder, tenant_id: str, agent: AgentConfig,
    progress: Callable[[int, int], None] | None = None, delete: bool = True,
) -> SyncReport:
    """Upsert what changed (by digest), delete what is no longer in the config (unless `delete` is
    False: publishing deletes only after the new config is stored)."""
    docs = agent_documents(agent, embedder)
    indexed = index.digests(tenant_id, agent.id)
    changed = [d for d in docs if indexed.get(d.rule_id) != d.digest]
    gone = sorted(set(indexed) - {d.rule_id for d in docs})
    report = SyncReport(unchanged=len(docs) - len(changed), deleted=len(gone))
    vectors = []
    for start in range(0, len(changed), EMBED_BATCH):
        batch = changed[start:start + EMBED_BATCH]
        vectors.append(centred(embedder, embed_fixed(embedder, [d.text for d in batch])))
        report.embedded += len(batch)
        if progress:
            progress(report.embedded, len(changed))
    if changed:
        index.upsert(tenant_id, agent.id, changed, np.vstack(vectors))
    if gone and delete:
        index.delete(tenant_id, agent.id, gone)
    return report


_DIGESTS: OrderedDict[tuple[int, int], tuple[AgentConfig, Embedder, str]] = OrderedDict()  # ids → (agent, embedder, digest)
_DIGESTS_KEPT = 64
_DIGESTS_LOCK = threading.Lock()


def config_digest(agent: AgentConfig, embedder: Embedder) -> str:
    """The digest of everything an agent config puts in the index, computed once per config object
    (a config store hands out the same object until the file or record changes)."""
    with _DIGESTS_LOCK:
        hit = _DIGESTS.get((id(agent), id(embedder)))
        if hit is not None and hit[0] is agent and hit[1] is embedder:
            _DIGESTS.move_to_end((id(agent), id(embedder)))
            return hit[2]
    digest = hashlib.sha256("".join(d.digest for d in agent_documents(agent, embedder)).encode()).hexdigest()
    with _DIGESTS_LOCK:
        _DIGESTS[(id(agent), id(embedder))] = (agent, embedder, digest)  # both held: their ids are not reused
        while len(_DIGESTS) > _DIGESTS_KEPT:
            _DIGESTS.popitem(last=False)
    return digest


def ensure_indexed(deps: Deps, tenant_id: str, agent: AgentConfig) -> None:
    """Sync on the first turn after a config change (locally; in AWS the upload already indexed)."""
    key = (tenant_id, agent.id)
    digest = config_digest(agent, deps.embedder)
    if deps.indexed.get(key) == digest:
        return
    sync_index(deps.rule_index, deps.embedder, tenant_id, agent)
    deps.indexed[key] = digest


def turn_scope(tenant_id: str, agent: AgentConfig, session: Session, entering: list[str]) -> ScopeFilter:
    """GLOBAL + the active scenario and step, plus any scenario the message is entering (its entry step)."""
    scenarios, steps = [], []
    if session.active_scenario_id:
        scenarios.append(session.active_scenario_id)
        if session.active_step_id:
            steps.append(f"{session.active_scenario_id}.{session.active_step_id}")
    for scenario_id in entering:
        scenario = agent.scenario(scenario_id)
        if scenario and scenario_id not in scenarios:
            scenarios.append(scenario_id)
            steps.append(f"{scenario_id}.{scenario.entry_step_id}")
    return ScopeFilter(tenant_id, agent.id, tuple(scenarios), tuple(steps))
