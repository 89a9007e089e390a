"""Stage 5 — generate: draft the answer, with the model when one is configured, else offline."""

from __future__ import annotations

import time

from focal.dialogue.variables import known_variables
from focal.errors import ModelError
from focal.generation.offline import compose
from focal.generation.prompt import generation_messages
from focal.models.turn import Draft, ModelCall, TurnState
from focal.pipeline.deps import Deps

EXECUTION_PATHS = {"escalate": "escalate", "out_of_scope": "clarify", "tool_error": "fallback", "clarify": "clarify"}


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    variables = known_variables(agent, state.session, state.profile)
    state.execution_path = EXECUTION_PATHS.get(state.decision.action, "respond")  # type: ignore[assignment]
    if state.decision.action == "clarify" and state.context:
        likely = [agent.scenario(s.scenario_id) for s in state.context.intent_scores[:3]]
        state.suggested_questions = [s.entry_examples[0] for s in likely if s and s.entry_examples]
    if state.decision.action == "out_of_scope":
        state.suggested_questions = [s.entry_examples[0] for s in agent.scenarios if s.entry_examples][:3]

    llm = deps.llm(agent)
    if llm.available("generate"):
        started = time.perf_counter()
        try:
            reply = llm.complete("generate", generation_messages(agent, state, variables))
            state.model_calls.append(ModelCall(
                purpose="generate", model=reply.model, input_tokens=reply.input_tokens,
                output_tokens=reply.output_tokens, cost_usd=reply.cost_usd,
                ms=round((time.perf_counter() - started) * 1000, 3),
            ))
            if reply.text.strip():
                state.drafts.append(Draft(text=reply.text.strip(), source="model"))
                return state
        except ModelError as exc:
            state.model_calls.append(ModelCall(purpose="generate", model="?", ok=False, note=str(exc)))
            state.decision.notes.append("generation model failed; offline composer used")
    source = "template" if state.feedback else "offline"
    state.drafts.append(Draft(text=compose(agent, state, variables), source=source))
    return state
