"""`focal test` start-up: the agent's vectors are cached on disk beside the local database, so a second run
embeds none of them; `-v` says how long the start-up took and `focal bench startup` measures both runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from focal.main import main

ROOT = Path(__file__).resolve().parents[2]
AGENT = str(ROOT / "examples" / "retail" / "agent.yaml")
SUITE = "conversations:\n  - name: hello\n    turns: [{user: Hello!, expect: {execution_path: respond}}]\n"
STARTUP = re.compile(r"start-up: (\d+\.\d\d) s to the first conversation \(CPU (\d+\.\d+) s\); the agent's texts: (\d+) vector\(s\) "
                     r"read from the cache, (\d+) embedded")


def focal_test(tmp_path: Path, suite: Path) -> re.Match[str]:
    env = {**os.environ, "FOCAL_DB_PATH": str(tmp_path / ".focal" / "focal.db"),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "functions"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-m", "focal.main", "test", AGENT, str(suite), "-v"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    found = STARTUP.search(done.stderr)
    assert found, done.stderr
    return found


def test_the_second_run_reads_every_vector_from_the_cache(tmp_path):
    suite = tmp_path / "tests.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    first = focal_test(tmp_path, suite)
    assert int(first.group(4)) > 0  # an empty cache: the agent's texts are embedded once
    assert list((tmp_path / ".focal" / "vectors").glob("*.npz"))  # beside the local database
    second = focal_test(tmp_path, suite)
    assert int(second.group(4)) == 0 and int(second.group(3)) >= int(first.group(4))


def test_bench_startup_prints_the_first_and_the_second_run(tmp_path, capsys):
    suite = tmp_path / "tests.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    assert main(["bench", "startup", AGENT, str(suite), "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"first run \(empty cache\): +\d+\.\d\d s, \d+ vector\(s\) embedded", out), out
    assert re.search(r"second run \(warm cache\): +\d+\.\d\d s, 0 vector\(s\) embedded", out), out
    assert re.search(r"an invalid suite is refused after +\d+\.\d\d s", out), out
