"""Stage 4 — tools: the tools of matched rules and of the step being completed; outputs → variables.

Every call is prepared first (`dialogue/tool_calls.py`): its exact arguments are fixed and every
action guard in scope is evaluated on them. A blocked call never runs; the turn answers with one
guard's own text (`action_blocked`; which one: generation/offline.py), and the trace, the turn record
and an `action_blocked` event name the call and every rule that stopped it, with the reasons.

A block of the active step's own action withdraws its confirmation: the flow waits at the step in state
`blocked` (`flow.hold_blocked`), so the next message is read fresh, never as the answer to a question the
customer was told cannot be done. The yes is spent on the attempt it met: a confirmation is single-use. A changed
value moves the flow as any correction does; any other message that reaches the blocked step attempts nothing: its
guards are only previewed as a fresh yes would meet them (`_check_again`; no tool call, no event): still blocked, the
customer hears why again; allowed now, the question is asked again and only a new yes runs it. A request waiting
for approval of the blocked action is withdrawn with it.

A turn runs at most `MAX_ACTION_ROUNDS` step actions in a row (a step's action runs, the flow moves on, the
next step's action runs, ...); a further one waits for the next message, and the trace says so.

with `features.graded_confidence` the turn's confidence is graded here; with
`features.approval_gates` a side-effecting call runs only when the gate says execute (otherwise an
approval request holding the exact arguments and guard verdicts, a clarification, or a rejection).

Actions happen once: before a turn runs its first side effect it claims the session (a conditional
write that marks the step's action as taken). A concurrent turn that read the session before the
claim loses that write, and one that read it after sees the claim: either way it runs nothing and
answers `session_conflict`. A later execution of the same turn id that finds the turn's claim still
there (the earlier one died, or lost its turn claim, before persist cleared it) runs an action again
only if every call of it is safe to repeat (`tool_calls.may_repeat`), checked before any approval gate;
otherwise the action's calls are `not_repeated` (outcome unknown). The step whose action the claim marked as taken
is not offered again, unless the action failed with nothing done: a failed action is never taken as done (`_failed`,
dialogue/action_outcome: a fresh yes runs it again, an unknown outcome waits at the step). An approved request resumes
here too (`state.resume`): exactly its stored calls, after the guards are checked again on those arguments.

around the step's actions, `dialogue/resolution.py` resolves the variables the turn needs
(session → profile → read-only tools, at most 3 rounds → ask the customer).

State (focal.models.turn): reads `route`, `sensor`, `resume`, `session`, `profile`; owns `tools`. Amends
`route` (a blocked or failed action, the pending tools it took, a rule variable resolution applied), claims
and changes the `session`; the approval gate sets `confidence` and `suggested_questions`, a session conflict
`error` and the jump to persist.
"""

from __future__ import annotations

from focal.dialogue import approvals, identity_checks, resolution
from focal.dialogue.action_outcome import hold_failed, hold_unknown, note_effects, outcome, remember_unknown, unknown_before
from focal.dialogue.confidence import assess
from focal.dialogue.decision import apply_progress
from focal.dialogue.flow import customer_confirmed, hold_blocked, progress
from focal.dialogue.handoff import SUMMARY, conversation_summary
from focal.dialogue.tool_calls import execute, may_repeat, not_repeated, prepare
from focal.enforcement.scope import turn_scope
from focal.errors import VersionConflict
from focal.flow_reading import current_step
from focal.generation.offline import speaking_rank
from focal.models.agent import AgentConfig
from focal.models.engine_texts import english
from focal.models.turn import ToolCall, TurnError, TurnState
from focal.sensing import lexicon
from focal.turn.deps import Deps
from focal.variables import known_variables

MAX_ACTION_ROUNDS = 3
CLAIM_TTL_S = 120  # a claim older than this belongs to a turn that died; it no longer stops others
CONFLICT_MESSAGE = english("turn_in_progress")


def _attached(agent: AgentConfig, rule_id: str) -> list[str]:
    rule = agent.rule(rule_id)
    return list(rule.attached_tool_ids) if rule else []


def _side_effects(agent: AgentConfig, tool_ids: list[str]) -> bool:
    """Whether the gate applies: a side-effecting tool, or one the agent does not define (rejected)."""
    return any((tool := agent.tool(t)) is None or tool.side_effect for t in tool_ids)


def _record(state: TurnState, deps: Deps, agent: AgentConfig, calls: list[ToolCall]) -> None:
    state.tools.tool_calls.extend(calls)
    if not agent.features.enabled:
        return  # events belong to the approval and confidence features; the plain pipeline publishes none
    for call in calls:
        approvals.tool_result_event(deps, state, call, state.resume.approval_id if state.resume else None)


def block(state: TurnState, agent: AgentConfig, deps: Deps, calls: list[ToolCall], at_step: bool = False) -> None:
    """Guards stopped an action: nothing runs and the customer hears one guard's text. `at_step`: the action is the
    active step's own, whose confirmation is then withdrawn (`flow.hold_blocked`), with any request waiting for its
    approval; a rule's tool or a handoff leaves the flow as it is."""
    stopped = [c for c in calls if c.status == "blocked"]
    state.tools.tool_calls.extend(stopped)
    d = state.route.decision
    d.action = "action_blocked"
    for call in stopped:
        rules = [v.rule_id for v in call.guards if not v.passed]
        d.blocked_by += [r for r in rules if r not in d.blocked_by]
        d.notes.append(f"{call.tool_id} blocked before it ran ({call.trigger}): {call.error}")
        # the rule ids only: a guard's reason prints the values it read, which may be personal data
        approvals.publish_turn(deps, state, "action_blocked", None, tool_id=call.tool_id, trigger=call.trigger, rules=rules)
    session = state.session
    assert session is not None
    if at_step:
        hold_blocked(session)
        d.notes.append(f"confirmation of {session.active_step_id} withdrawn: the flow waits there for a changed value")
        if session.pending_approval_id:
            d.notes.append(f"approval {session.pending_approval_id} withdrawn: the action it waits for is blocked")
            session.pending_approval_id = None
    d.scenario_id, d.step_id = session.active_scenario_id, session.active_step_id


def _question_a_rule_answers(agent: AgentConfig, state: TurnState) -> bool:
    """The message asks something a soft rule answers ("how long does that take?"); a message that asks nothing
    ("yes, do it anyway") is about the blocked request, whatever rule shares its topic."""
    message = state.sensor.context.message if state.sensor.context else state.request.message
    return lexicon.is_question(message) and any(
        (r := agent.rule(m.rule_id)) is not None and not r.is_hard_constraint for m in state.route.matched_rules)


def _check_again(state: TurnState, agent: AgentConfig, tool_ids: list[str], trigger: str) -> None:
    """The active step's action was blocked and nothing the message changed moved the flow. The yes that met the
    block was spent on that attempt, so nothing is attempted now: the guards are only previewed on the action's
    current arguments, as a fresh yes to a fresh offer would meet them (`_preview`). Still blocked: the customer
    hears why again. Allowed now (a fact changed since): the confirmation is asked again, and only a new yes to it
    runs the action. A question a soft rule answers is answered by the rule, and the step keeps waiting."""
    session = state.session
    assert session is not None
    if _question_a_rule_answers(agent, state):
        state.route.decision.notes.append(f"step {session.active_step_id} stays blocked: a rule answers the message")
        return
    stopping = _preview(state, agent, tool_ids, trigger)
    if stopping:
        d = state.route.decision
        d.action = "action_blocked"
        d.blocked_by += [r for r in stopping if r not in d.blocked_by]
        d.notes.append(f"step {session.active_step_id} stays blocked: {', '.join(stopping)} would still stop "
                       f"{', '.join(tool_ids)} even after a new yes; nothing was attempted")
        hold_blocked(session)
        d.scenario_id, d.step_id = session.active_scenario_id, session.active_step_id
        return
    state.route.decision.notes.append(f"the guards that blocked {', '.join(tool_ids)} now hold: the confirmation is asked again")
    session.flow_state = "confirming"
    apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))


def _preview(state: TurnState, agent: AgentConfig, tool_ids: list[str], trigger: str) -> list[str]:
    """The guards that would stop the blocked step's action on its current arguments if the customer said yes to it
    again, the one the customer hears first. A preview, not an attempt: it is not recorded as a tool call, publishes
    no `action_blocked` event and never runs anything."""
    verdicts = [v for t in tool_ids for v in prepare(state, agent, t, trigger, confirmed=True).guards if not v.passed]
    return list(dict.fromkeys(v.rule_id for v in sorted(verdicts, key=lambda v: speaking_rank(agent, v))))


def _live_claims(state: TurnState, deps: Deps) -> dict[str, float]:
    assert state.session is not None
    now = deps.clock()
    return {t: at for t, at in state.session.action_claims.items() if now - at < CLAIM_TTL_S}


def _conflict(state: TurnState, why: str) -> TurnState:
    state.route.decision.notes.append(why)
    state.error = TurnError(code=VersionConflict.code, message=CONFLICT_MESSAGE, stage="tools")
    state.control.next = "persist"
    return state


def claim(state: TurnState, deps: Deps, step_id: str | None) -> bool:
    """Save the session with this turn's claim before any side effect runs; False if another turn won."""
    session = state.session
    assert session is not None
    if state.request.turn_id in session.action_claims:
        return True  # claimed earlier in this turn (or by this very turn id, retried)
    session.action_claims = {**_live_claims(state, deps), state.request.turn_id: deps.clock()}
    if step_id is not None:
        session.actions_done_step = step_id
    try:
        state.session = deps.sessions.save(session, expected_version=session.version)
    except VersionConflict:
        return False
    state.tools.actions_claimed = True
    return True


def claimed_before(state: TurnState) -> bool:
    """An earlier execution of this turn id claimed the session for side effects and never reached persist
    (which clears the claim): what it started may have run."""
    assert state.session is not None
    return state.request.turn_id in state.session.action_claims and not state.tools.actions_claimed


def _run_resume(state: TurnState, agent: AgentConfig, deps: Deps) -> TurnState:
    """An approved request: exactly its stored calls, the guards checked again on those arguments."""
    res, session = state.resume, state.session
    assert res is not None and session is not None
    scope = turn_scope(agent, state)
    if res.step:
        scope.add(*res.step.split(".", 1))
    session.pending_approval_id = None
    calls: list[ToolCall] = []
    for tool_id in res.tools:
        tool = agent.tool(tool_id)
        arguments = {n: res.arguments[n] for n in (tool.input if tool else {}) if n in res.arguments}
        call = prepare(state, agent, tool_id, res.trigger, arguments=arguments, confirmed=res.customer_confirmed, scope=scope)
        if call.status == "blocked":
            block(state, agent, deps, [call], at_step=res.step is not None and approvals.step_key(session) == res.step)
            return state
        calls.append(execute(state, agent, deps, call))
        if calls[-1].status != "ok":
            break
    _record(state, deps, agent, calls)
    at_step = res.step is not None and approvals.step_key(session) == res.step
    step = current_step(agent, session) if at_step else None
    if any(c.status != "ok" for c in calls):
        _failed(state, agent, deps, calls, step.id if step else None, res.tools)
    elif at_step:
        session.confirmed_step = session.actions_done_step = step.id if step else None  # the approval stands for the yes
        note_effects(agent, session, step.id if step else None, res.tools)
        apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    return state


def _not_repeated(state: TurnState, deps: Deps, agent: AgentConfig, checked: list[ToolCall]) -> bool:
    """An earlier execution of this turn claimed the session for its side effects and never finished, or a call of
    the action is one whose earlier outcome is unknown: none of the action's calls runs. Those not safe to repeat
    are `not_repeated` (their outcome is unknown), the rest are skipped with them (the action runs whole or not)."""
    calls = []
    for call in checked:
        calls.append(not_repeated(call) if not may_repeat(agent, call.tool_id) else call.model_copy(
            update={"status": "skipped", "error": "not run: another call of this action is not repeated"}))
    _record(state, deps, agent, calls)
    state.route.decision.notes.append(
        f"{', '.join(c.tool_id for c in checked)} not run again: an earlier attempt may have taken effect")
    return True


def _run_action(state: TurnState, agent: AgentConfig, deps: Deps, tool_ids: list[str], trigger: str,
                step_id: str | None, confirmed: bool) -> bool:
    """Prepare, guard, gate, claim and run one action; True when its tools ran (whatever their status)."""
    gates = agent.feature_on("approval_gates")
    checked = [prepare(state, agent, t, trigger, confirmed=confirmed) for t in tool_ids]
    if any(c.status == "blocked" for c in checked):
        block(state, agent, deps, checked, at_step=step_id is not None)
        return False
    side = _side_effects(agent, tool_ids)
    if side and (unknown_before(agent, state.session, checked) or claimed_before(state) and not all(
            may_repeat(agent, t) for t in tool_ids)):
        return _not_repeated(state, deps, agent, checked)  # asked before any gate: an approval would repeat it too
    if gates and side and (
        (step_id is not None and approvals.held(state, agent, deps, tool_ids))
        or approvals.gate(state, agent, deps, tool_ids, trigger, checked, confirmed) != "execute"
    ):
        return False  # waiting for approval, asking, or rejected: the action does not run this turn
    if side and not claim(state, deps, step_id):
        _conflict(state, f"{', '.join(tool_ids)} not run: another turn of this session claimed it first")
        return False
    calls: list[ToolCall] = []
    for tool_id in tool_ids:  # prepared again: a later tool may read what an earlier one returned
        call = prepare(state, agent, tool_id, trigger, confirmed=confirmed)
        if call.status == "blocked":
            _record(state, deps, agent, calls)
            block(state, agent, deps, [call], at_step=step_id is not None)
            return False
        calls.append(execute(state, agent, deps, call))
        if calls[-1].status != "ok":
            break  # the action stops at its first failure: a later tool may need what this one was to do
    _record(state, deps, agent, calls)
    return True


def _hand_off(state: TurnState, agent: AgentConfig, deps: Deps, tool_id: str) -> None:
    """The customer is handed to a person through the agent's own tool, with a summary. Asking for a person needs
    no approval, but the tool's guards still apply; a handoff that fails is said, never claimed."""
    session = state.session
    assert session is not None
    session.variables[SUMMARY] = conversation_summary(agent, session, state.request.message,
                                                      state.route.decision.escalation_reason)
    call = prepare(state, agent, tool_id, "escalation", confirmed=True)
    if call.status == "blocked":
        block(state, agent, deps, [call])
        return
    tool = agent.tool(tool_id)
    if tool is not None and tool.side_effect and not claim(state, deps, None):
        _conflict(state, f"{tool_id} not run: another turn of this session claimed it first")
        return
    call = execute(state, agent, deps, call)
    _record(state, deps, agent, [call])
    if call.status != "ok":
        state.route.decision.action = "tool_error"
        state.route.decision.notes.append(f"the handoff through {tool_id} failed: {call.error}")


def _failed(state: TurnState, agent: AgentConfig, deps: Deps, calls: list[ToolCall], step_id: str | None,
            tool_ids: list[str]) -> None:
    """An action did not complete; it is never taken as done (dialogue/action_outcome). Nothing of a side-effecting
    one took effect: the step asks again, and only a fresh yes runs it. It may have: it is never run again, the flow
    waits at the step, and the customer is handed to a person when the agent has a handoff tool. A rule's action (no
    step) leaves the flow where it is, its confirmation withdrawn: nothing else runs on the yes this turn spent."""
    session, d = state.session, state.route.decision
    assert session is not None
    d.action, d.pending_tools, names = "tool_error", [], ", ".join(tool_ids)
    if not _side_effects(agent, tool_ids):  # a read-only action: nothing to be unsure about, it runs again next turn
        session.flow_state = "error"
        d.notes.append(f"{names} failed; the flow waits in state error")
        return
    unknown = outcome(agent, calls) == "unknown"
    if unknown:
        remember_unknown(session, calls)
    if step_id is None:
        session.confirmed_step = None
    elif unknown:
        hold_unknown(session, step_id)
        note_effects(agent, session, step_id, tool_ids)
    else:
        hold_failed(session, step_id)
    d.notes.append(f"{names} may have taken effect (outcome unknown): never run again, never reported done"
                   if unknown else f"{names} failed with nothing done: only a fresh yes runs it again")
    if unknown and agent.handoff_tool:
        d.escalation_reason = f"The outcome of {names} is unknown: check whether it took effect before anything else."
        _hand_off(state, agent, deps, agent.handoff_tool)


def _run_rule_tools(state: TurnState, agent: AgentConfig, deps: Deps, rule_tools: list[tuple[str, str]]) -> bool:
    """The tools attached to the rules that matched, each its own action; False when the turn must stop."""
    for rule_id, tool_id in rule_tools:
        ran = _run_action(state, agent, deps, [tool_id], f"rule {rule_id}", None, confirmed=False)
        if state.error is not None:
            return False
        calls = [c for c in state.tools.tool_calls if c.trigger == f"rule {rule_id}" and c.tool_id == tool_id]
        if ran and _side_effects(agent, [tool_id]) and outcome(agent, calls) != "done":
            _failed(state, agent, deps, calls, None, [tool_id])
            return False  # what the turn says is that failure: no step action runs after it
    return True


def _after_step_action(state: TurnState, agent: AgentConfig, deps: Deps, step_id: str | None, tool_ids: list[str],
                       trigger: str) -> bool:
    """The step's action ran: a failed call stops the flow at the step (False, `_failed`); otherwise it moves on."""
    session = state.session
    assert session is not None
    calls = [c for c in state.tools.tool_calls if c.trigger == trigger]
    if any(c.status != "ok" for c in calls):
        _failed(state, agent, deps, calls, step_id, tool_ids)
        return False
    session.actions_done_step = step_id
    if step_id is not None:  # read by transitions as the built-in step_attempts ("after two failed checks, escalate")
        session.step_attempts[step_id] = session.step_attempts.get(step_id, 0) + 1
    note_effects(agent, session, step_id, tool_ids)
    apply_progress(state, agent, progress(agent, session, known_variables(agent, session, state.profile)))
    return True


def _run_step_actions(state: TurnState, agent: AgentConfig, deps: Deps) -> None:
    """The actions of the steps the flow reaches, at most MAX_ACTION_ROUNDS in a row: a step's action can move the
    flow to a step with an action of its own."""
    for _ in range(MAX_ACTION_ROUNDS):
        pending, state.route.decision.pending_tools = state.route.decision.pending_tools, []
        session = state.session  # a claim saves (and replaces) it
        if not pending or session is None:
            return
        step = current_step(agent, session)
        trigger = f"step {session.active_scenario_id}.{session.active_step_id}"
        if step is not None and step.requires_confirmation and session.flow_state == "blocked":
            _check_again(state, agent, pending, trigger)
            return
        step_id = step.id if step else None
        if not _run_action(state, agent, deps, pending, trigger, step_id, customer_confirmed(agent, session)):
            return
        if not _after_step_action(state, agent, deps, step_id, pending, trigger):
            return
    if state.route.decision.pending_tools:
        state.route.decision.notes.append(f"{MAX_ACTION_ROUNDS} step actions ran this turn (MAX_ACTION_ROUNDS): "
                                    f"{', '.join(state.route.decision.pending_tools)} wait for the next message")


def run(state: TurnState, deps: Deps) -> TurnState:
    r = state.request
    agent = deps.configs.get_agent(r.tenant_id, r.agent_id)
    assert state.session is not None
    if state.resume is not None:
        return _run_resume(state, agent, deps)
    if any(t != r.turn_id for t in _live_claims(state, deps)):
        return _conflict(state, "another turn of this session is running its actions")
    if state.route.decision.action == "escalate" and agent.handoff_tool:
        _hand_off(state, agent, deps, agent.handoff_tool)
        return state
    rule_tools = [(m.rule_id, tool_id) for m in state.route.matched_rules for tool_id in _attached(agent, m.rule_id)]
    if agent.feature_on("graded_confidence"):
        # The turn's confidence: for what it is about to run (a gate below may re-assess its own action).
        approvals.record_assessment(state, assess(state, agent, [t for _, t in rule_tools] + state.route.decision.pending_tools))
    if not _run_rule_tools(state, agent, deps, rule_tools):
        return state

    def run_one(tool_id: str, trigger: str) -> ToolCall:  # variable resolution: read-only tools only
        call = execute(state, agent, deps, prepare(state, agent, tool_id, trigger))
        _record(state, deps, agent, [call])
        return call

    resolution.before_actions(state, agent, run_one)
    _run_step_actions(state, agent, deps)
    identity_checks.hand_over_when_spent(state, agent)
    if state.error is None and state.route.decision.action == "escalate" and agent.handoff_tool:
        _hand_off(state, agent, deps, agent.handoff_tool)  # a step's transition escalated on what its action returned
        return state
    if state.error is None:
        resolution.after_actions(state, agent, run_one)  # what the answer will say: session → profile → tools → ask
        if identity_checks.hand_over_when_spent(state, agent) and agent.handoff_tool:  # a check resolution ran
            _hand_off(state, agent, deps, agent.handoff_tool)
    return state
