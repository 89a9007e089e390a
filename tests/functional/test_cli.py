"""The `focal` command as a user runs it (in-process through `main`, real files, real SQLite)."""

from __future__ import annotations

import json
from pathlib import Path

from focal.main import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RETAIL = str(EXAMPLES / "retail" / "agent.yaml")


def test_validate_lists_every_problem_with_its_path_and_exits_1(capsys):
    assert main(["validate", str(EXAMPLES / "broken" / "agent.yaml")]) == 1
    out = capsys.readouterr().out
    assert "rules[0].enforcement_expression: name 'refund_amt' is not a declared variable" in out
    assert "scenarios[0].entry_step_id: step 'start' does not exist" in out
    assert "tools[0].entrypoint: file 'tools.py' not found next to the agent file" in out


def test_validate_reports_yaml_syntax_errors_with_a_line(capsys):
    assert main(["validate", str(EXAMPLES / "broken" / "bad_yaml.yaml")]) == 1
    out = capsys.readouterr().out
    assert "YAML syntax error" in out and "(line 7)" in out


def test_validate_accepts_the_example(capsys):
    assert main(["validate", RETAIL]) == 0
    assert "OK" in capsys.readouterr().out


def test_schema_is_json_schema_of_the_agent_file(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert {"rules", "scenarios", "tools", "navigation", "enforcement"} <= set(schema["properties"])


def test_turn_keeps_state_in_a_local_sqlite_file(tmp_path, capsys):
    db = str(tmp_path / "state.db")
    # c-200 owns A1004: the address change looks the order up on the customer's account first
    base = ["turn", RETAIL, "--session", "cli-1", "--db", db, "--json", "--customer", "c-200"]
    assert main([*base, "--message", "I want to change my delivery address"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["scenario"] == {"id": "change_address", "step_id": "ask_order"}
    assert main([*base, "--message", "It's A1004"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["scenario"] == {"id": "change_address", "step_id": "ask_address"}
    assert Path(db).exists()


def test_bench_overhead_reports_stages_model_calls_by_purpose_and_latency(tmp_path, capsys):
    from focal.main import main

    suite = tmp_path / "suite.yaml"
    # "yes" at a confirmation and an order number are sure offline readings; a shipping question is not.
    suite.write_text(
        "conversations:\n"
        "  - name: a\n    customer_id: c-500\n    turns:\n      - user: Please refund order A1009\n      - user: 'yes'\n"
        "  - name: b\n    turns:\n      - user: how long does shipping take?\n",
        encoding="utf-8",
    )
    agent = Path(__file__).resolve().parents[2] / "examples" / "retail" / "agent.yaml"
    assert main(["bench", "overhead", str(agent), "--suite", str(suite), "--repeat", "1", "--latency-ms", "50"]) == 0
    out = capsys.readouterr().out
    assert "2 conversations, 3 turns × 1" in out and "offline, no model (3 turns)" in out
    for stage in ("sensor", "retrieve", "route", "tools", "generate", "enforce", "persist", "turn"):
        assert f"\n    {stage} " in out
    assert "first turn" in out and "JSON hops" in out
    assert "original-language answer: composed on no turn" in out  # retail speaks only its file's language
    assert "instant model, through litellm.completion (mock_response) (3 turns)" in out
    # the shipping question needs the sensor; every turn drafts once with the model
    calls = next(line for line in out.splitlines() if "model calls per turn" in line)
    assert "sensor 0.33" in calls and "generate 1.00" in calls, calls
    assert "first model turn" in out and "CPU per model call: ours" in out
    assert "differs from offline on 0 of 3 turns" in out
    latency = next(line for line in out.splitlines() if line.startswith("with 50 ms per model call"))
    assert float(latency.split("wall p50 ")[1].split(" ms")[0]) >= 50, latency


def test_bench_overhead_prints_the_original_language_answers_cost_on_translated_turns(tmp_path, capsys):
    """A German turn of the card agent is said in a translation: the answer is composed again in English for enforce
    (focal.generation.original_text); the bench prints what composing and reading it cost."""
    from focal.main import main

    suite = tmp_path / "suite.yaml"
    suite.write_text("conversations:\n  - name: de\n    turns:\n      - user: Meine Karte wurde gestohlen, bitte sperren\n"
                     "      - user: Wie hoch ist mein Kreditlimit?\n", encoding="utf-8")
    agent = Path(__file__).resolve().parents[2] / "examples" / "cards" / "agent.yaml"
    assert main(["bench", "overhead", str(agent), "--suite", str(suite), "--repeat", "1", "--offline-only"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if "original-language answer" in line)
    assert "on 2 of 2 turns (translated" in line and "composed" in line and "read by enforce" in line, line


def test_bench_overhead_prints_both_bounds_of_the_judge_calls_when_the_sensor_reads_conditions(capsys):
    """guardrails' GLOBAL subjective rule: the instant model reads its condition as holding (every draft
    judged), then a second run as not holding (only drafts the sensor's model did not read are judged)."""
    from focal.main import main

    agent = Path(__file__).resolve().parents[2] / "examples" / "guardrails" / "agent.yaml"
    assert main(["bench", "overhead", str(agent), "--repeat", "1", "--latency-ms", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    calls = [line for line in lines if "model calls per turn" in line]
    assert len(calls) == 2 and "read as not holding:" in "\n".join(lines)

    def judge(line: str) -> float:
        return float(line.split("judge ")[1].split()[0])

    upper, lower = judge(calls[0]), judge(calls[1])
    assert 0 < lower < upper, calls
