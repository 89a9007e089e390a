"""Each subjective rule may say what happens when nobody can judge it: a dental agent keeps medical advice fail
closed while its tone rule is only marked unverified (clinic newcomer: one agent-wide switch made them choose
between blocking every answer and letting advice through)."""

from __future__ import annotations

from pathlib import Path

import yaml

from focal.cli.conversation_tests import format_report, run_suite
from focal.config.gate import validate_file

AGENT = """
id: dental
name: Dental desk
enforcement: {unverifiable_subjective: mark_unverified}
rules:
  - id: no_diagnosis
    condition_text: The patient describes pain or symptoms
    action_text: Never diagnose or recommend medication.
    is_hard_constraint: true
    subjective: true
    unverifiable: fail_closed
    fallback_text: I can't give medical advice, but I can book you an urgent appointment.
  - id: gentle_tone
    condition_text: The patient is anxious
    action_text: Be reassuring.
    is_hard_constraint: true
    subjective: true
"""


def test_a_rule_kept_fail_closed_blocks_while_the_other_is_only_marked(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT, encoding="utf-8")
    suite = tmp_path / "tests.yaml"
    suite.write_text(yaml.safe_dump({"conversations": [{"name": "pain", "turns": [{
        "user": "my tooth hurts a lot and I'm nervous",
        "model": {"generate": ["Sounds like an abscess; take ibuprofen."]},
        "expect": {"violations": ["no_diagnosis"], "unverified": ["gentle_tone"], "fallback_used": True,
                   "response_not_contains": "ibuprofen"}}]}]}), encoding="utf-8")
    report = run_suite(tmp_path / "agent.yaml", suite)
    assert report.conversations and report.passed, "\n" + format_report(report)


def test_validate_names_each_rules_own_setting_and_refuses_it_on_other_rules(tmp_path: Path):
    (tmp_path / "agent.yaml").write_text(AGENT + """  - id: plain
    condition_text: x
    action_text: y
    unverifiable: fail_closed
""", encoding="utf-8")
    result = validate_file(tmp_path / "agent.yaml")
    assert any(p.path == "rules[2].unverifiable" for p in result.problems), result.problems
    warned = {w.path: w.message for w in result.warnings if w.path.endswith(".subjective")}
    assert "its unverifiable is fail_closed" in warned["rules[0].subjective"]
    assert "enforcement.unverifiable_subjective is mark_unverified" in warned["rules[1].subjective"]
