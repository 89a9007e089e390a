"""The chat trace shows guards apart from the rules that matched the message: which guard ran on which call and
whether it passed or blocked it; a guard that only resembled the message (through its examples) is not listed
among the matched rules. Real turns of the tutorial agent through `focal turn`, its guard given examples."""

from __future__ import annotations

import shutil
from pathlib import Path

from focal.main import main

TUTORIAL = Path(__file__).resolve().parents[2] / "examples" / "tutorial"
GUARD = "    guarded_tool_ids: [renew_loan]\n"


def _agent(tmp_path: Path) -> Path:
    for name in ("agent.yaml", "tools.py"):
        shutil.copy(TUTORIAL / name, tmp_path / name)
    path = tmp_path / "agent.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(GUARD) == 1
    path.write_text(text.replace(GUARD, GUARD + '    examples: ["Renew my book for six weeks"]\n'), encoding="utf-8")
    return path


def _traces(tmp_path: Path, capsys, messages: list[str]) -> list[str]:
    agent, out = _agent(tmp_path), []
    for message in messages:
        assert main(["turn", str(agent), "--db", str(tmp_path / "t.db"), "--session", "s", "--message", message]) in (0, 2)
        out.append(capsys.readouterr().out)
    return out


def _line(trace: str, head: str) -> str | None:
    return next((row.strip() for row in trace.splitlines() if row.strip().startswith(head)), None)


def test_a_guard_that_resembled_the_message_is_no_matched_rule(tmp_path, capsys):
    first = _traces(tmp_path, capsys, ["Please renew my book for six weeks"])[0]
    assert _line(first, "rules:") == "rules: none", first
    assert _line(first, "guards:") == "guards: renewal_limit (matched the message; no call it guards ran)", first


def test_the_guard_that_ran_says_on_which_call_and_that_it_passed(tmp_path, capsys):
    *_, done = _traces(tmp_path, capsys, ["I'd like to renew a book", "LC204518, B30117", "2 weeks", "yes please"])
    assert _line(done, "guards:") == "guards: renewal_limit on renew_loan passed", done
    assert "renewal_limit" not in (_line(done, "rules:") or ""), done


def test_the_guard_that_blocked_says_so(tmp_path, capsys):
    *_, done = _traces(tmp_path, capsys, ["I'd like to renew a book", "LC204518, B30117", "6 weeks", "yes please"])
    assert _line(done, "guards:") == "guards: renewal_limit on renew_loan BLOCKED", done
    assert _line(done, "ACTION BLOCKED").startswith("ACTION BLOCKED renew_loan: guard renewal_limit"), done
