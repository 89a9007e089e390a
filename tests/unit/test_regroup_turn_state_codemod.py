"""scripts/regroup_turn_state.py, the codemod that moves flat TurnState access into the stage sections: what its
pass without mypy rewrites (names bound to a TurnState, constructor calls, a stored record's state document
and helpers returning one, comments), and that a second run changes nothing.

regroup_turn_state: leave as is (the samples below are flat on purpose; the codemod skips this file)
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "regroup_turn_state.py"

BEFORE = '''from focal.models.turn import Draft, RouteDecision, TurnState


def f(state: TurnState) -> Draft:
    state.decision.notes.append("x")  # state.decision gets a note
    return state.drafts[-1]


def g(request):
    st = TurnState(request=request, decision=RouteDecision(action="clarify"), feedback=["r: why"])
    return st.enforcement.checked


def h(record):
    doc = record.state
    return record.state["decision"], doc.get("drafts"), (record.state or {}).get("context")


def k(x):
    return x.decision, x.session


def last(deps):
    return deps.turns.list_for_session("t", "a", "s")[-1].state


def m(deps):
    record = last(deps)
    return last(deps)["tool_calls"], record["matched_rules"]
'''

AFTER = '''from focal.models.turn import Draft, RouteDecision, TurnState
from focal.models.turn import EnforceOutput, RouteOutput


def f(state: TurnState) -> Draft:
    state.route.decision.notes.append("x")  # state.route.decision gets a note
    return state.generate.drafts[-1]


def g(request):
    st = TurnState(
        request=request,
        route=RouteOutput(decision=RouteDecision(action="clarify")),
        enforce=EnforceOutput(feedback=["r: why"]),
    )
    return st.enforce.report.checked


def h(record):
    doc = record.state
    return record.state["route"]["decision"], (doc.get("generate") or {}).get("drafts"), \
((record.state or {}).get("sensor") or {}).get("context")


def k(x):
    return x.decision, x.session


def last(deps):
    return deps.turns.list_for_session("t", "a", "s")[-1].state


def m(deps):
    record = last(deps)
    return last(deps)["tools"]["tool_calls"], record["route"]["matched_rules"]
'''


def _codemod() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regroup_turn_state", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_the_codemod_moves_flat_access_into_the_sections_once(tmp_path: Path, capsys) -> None:
    codemod = _codemod()
    source = tmp_path / "sample.py"
    source.write_text(BEFORE)
    assert codemod.one_pass([str(source)], use_mypy=False) == 11
    assert source.read_text() == AFTER.replace(" \\\n", " ")
    assert codemod.one_pass([str(source)], use_mypy=False) == 0  # re-runnable: nothing rewritten twice
    assert "by name: 'decision' -> 'route.decision'" in capsys.readouterr().out
