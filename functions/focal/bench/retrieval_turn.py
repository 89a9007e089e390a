"""A labelled case of `focal bench retrieval` as a turn: the sensor and retrieve stages themselves, then the route's
rule decision (focal.dialogue.rule_answers.matched_rules) on what they produced.

The rules a turn matches depend on more than similarity: a message that only asks how things are is not held back by
a flow's resemblance, and a rule that answers questions is not said to a message that asks none inside a flow (or as
its flow starts, which the sensor's commands say). The bench reads each case with the stages a turn runs, offline, in
a fresh session at the case's scenario and step, so its figures are the turn's. A case the sensor ends early
(pre-validation refuses it, or it is asked to clarify) reaches no rule, as on a turn. A rule that comes only because a
matched rule entails it reaches the turn, so it is found when the case expects it; when it does not, it is not
counted against precision: the agent's author chose to bring it, the message did not select it.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from focal.dialogue.rule_answers import matched_rules
from focal.models.agent import AgentConfig
from focal.models.context import Command
from focal.models.session import CustomerProfile, Session
from focal.models.turn import ScoredRule, TurnRequest, TurnState
from focal.ports import Embedder, ModelReply, RuleIndex
from focal.stages import retrieve, sensor
from focal.turn.deps import Deps

TENANT = "bench"
ENTAILED = "entailed by"  # a rule another matched rule brings (entails_rule_ids): the agent's choice, not a match


@dataclass(frozen=True)
class TurnReading:
    """What the route decides a turn's rules with, besides the candidates: the session, the message, the commands."""

    session: Session
    message: str = ""
    commands: list[Command] = field(default_factory=list)
    ended: str | None = None  # the sensor ended the turn early (its execution path): no rule reaches it


def decided(agent: AgentConfig, candidates: list[ScoredRule], reading: TurnReading | None,
            expected: Collection[str] = ()) -> set[str]:
    """The rule ids the route matches among the candidates (no reading: a fresh session outside any flow, no commands);
    a rule only entailed by a matched one counts when `expected`, and is left out otherwise."""
    if reading is None:
        reading = TurnReading(Session(tenant_id=TENANT, agent_id=agent.id, session_id="bench", customer_id="bench"))
    if reading.ended:
        return set()
    session = reading.session.model_copy(deep=True)  # the rule filter reads fire counts; nothing is kept
    matched = matched_rules(agent, session, reading.message, reading.commands, candidates, [])
    return {m.rule_id for m in matched if not m.reason.startswith(ENTAILED) or m.rule_id in expected}


class _Offline:
    """No model: the offline path every turn takes without one."""

    def available(self, purpose: str) -> bool:
        return False

    def complete(self, purpose: str, messages: list[dict[str, str]],
                 json_schema: dict[str, Any] | None = None) -> ModelReply:  # pragma: no cover - never available
        raise RuntimeError("no model in focal bench retrieval")


@dataclass
class _Stores:
    """The case's session (at its scenario and step) and the agent; nothing is saved."""

    agent: AgentConfig
    session: Session

    def get_agent(self, tenant_id: str, agent_id: str) -> AgentConfig:
        return self.agent

    def get(self, tenant_id: str, agent_id: str, key: str) -> Session | None:
        return self.session.model_copy(deep=True) if key == self.session.session_id else None

    def save(self, item: Any, expected_version: int | None = None) -> Any:  # pragma: no cover - stages here never save
        return item


class _NoProfiles:
    def get(self, tenant_id: str, agent_id: str, customer_id: str) -> CustomerProfile | None:
        return None

    def save(self, profile: CustomerProfile) -> None:  # pragma: no cover - stages here never save
        return None


def bench_deps(agent: AgentConfig, embedder: Embedder, index: RuleIndex, multilingual: Embedder | None,
               multilingual_index: RuleIndex | None, classifier: Any = None) -> Deps:
    """The ports the two stages read: the bench's embedders and (already synced) indexes, no model, no memory.
    `classifier`: loads the agent's injection classifier (focal.adapters.onnx_classifier), as a deployment does."""
    stores = _Stores(agent, Session(tenant_id=TENANT, agent_id=agent.id, session_id="-", customer_id="bench"))
    return Deps(configs=stores, sessions=stores, profiles=_NoProfiles(), turns=None,  # type: ignore[arg-type]
                embedder=embedder, rule_index=index, model=_Offline(), tools=None,  # type: ignore[arg-type]
                multilingual_embedder=multilingual, multilingual_index=multilingual_index,
                injection_classifier=classifier, sync_on_turn=False)


def read_case(deps: Deps, n: int, message: str, scenario: str | None,
              step: str | None) -> tuple[TurnState, TurnReading, float]:
    """The case through the sensor and, unless the sensor ended the turn, the retrieve stage (and its milliseconds)."""
    stores = deps.configs
    assert isinstance(stores, _Stores)
    stores.session = Session(tenant_id=TENANT, agent_id=stores.agent.id, session_id=f"case-{n}", customer_id="bench",
                             active_scenario_id=scenario, active_step_id=step)
    state = TurnState(request=TurnRequest(tenant_id=TENANT, agent_id=stores.agent.id, session_id=f"case-{n}",
                                          customer_id="bench", turn_id=f"case-{n}", message=message))
    state = sensor.run(state, deps)
    assert state.session is not None
    ended = state.execution_path if state.control.next == "persist" else None
    started = time.perf_counter()
    if not ended:
        state = retrieve.run(state, deps)
    ms = (time.perf_counter() - started) * 1000
    context = state.sensor.context
    assert state.session is not None
    reading = TurnReading(state.session, context.message if context else message, list(state.sensor.commands), ended)
    return state, reading, ms


def injection_classifier_loader() -> Any:
    """The deployment's loader of an agent's injection classifier."""
    from focal.adapters.onnx_classifier import shared_injection_classifier

    return shared_injection_classifier

