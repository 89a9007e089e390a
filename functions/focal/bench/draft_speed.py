"""`focal bench draftspeed [AGENT]`: how long the offline reading of one draft takes, by draft size.

A draft of support prose (paragraphs with amounts, reference ids, dates, a refusal, a review, a promise, a
question; by default the retail example agent's words) is grown to each size (1, 2, 4 and 8 KB by
default) and read, each size `--repeat` times (median and best printed):

  reading   `focal.enforcement.reading.offline_reading` for every name the agent's expressions read;
  lane 1    the enforce stage on one model draft with the output checks off and no model: its
            deterministic lane (`EnforcementReport.timings["deterministic"]`: reading the draft's values
            and evaluating the hard constraints).

Two shapes: `prose` (sentences and paragraphs) and `run-on` (the same words with no sentence
punctuation: one sentence of many clauses, the reader's worst case for clause-level work). The
per-KB figure shows whether reading time grows linearly with the draft (it should stay flat).
Timings only: nothing is asserted (tests/unit/test_draft_speed.py checks that it runs).
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
RETAIL = EXAMPLES / "retail" / "agent.yaml"
SIZES = (1024, 2048, 4096, 8192)
SHAPES = ("prose", "run-on")

# The turn a draft answers and its prose: `draft_speed.yaml` beside the agent file (the retail example has one).
def context(agent_path: str | Path) -> dict:
    """The bench's turn for this agent: message, paragraphs of prose, scenario, step, variables, tool outputs."""
    path = Path(agent_path).parent / "draft_speed.yaml"
    if not path.exists():
        raise SystemExit(f"focal bench draftspeed: {path} not found (the prose and the turn to read it in)")
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def draft(size: int, shape: str = "prose", paragraphs: Sequence[str] = ()) -> str:
    """About `size` characters of support prose (cut at a space), in `shape`."""
    paragraphs = paragraphs or context(RETAIL)["paragraphs"]
    text, i = "", 0
    while len(text) < size:
        text += paragraphs[i % len(paragraphs)] + "\n\n"
        i += 1
    text = text[:size].rsplit(" ", 1)[0]
    if shape == "run-on":
        text = re.sub(r"[.;!?]+(?=\s)|\n+", " ", text)
    return text


@dataclass
class Row:
    shape: str
    size: int
    reading_ms: list[float]
    lane1_ms: list[float]
    verdict: str


def _case(draft_text: str, turn: dict):  # noqa: ANN202 - a focal.bench.enforcement_cases.Case
    from focal.bench.enforcement_cases import Case

    return Case(id="draftspeed", category="speed", message=turn["message"], draft=draft_text, expected=frozenset(),
                scenario=turn.get("scenario"), step=turn.get("step"), variables=dict(turn.get("variables") or {}),
                tools={k: dict(v) for k, v in (turn.get("tools") or {}).items()})


def measure(agent_path: str | Path = RETAIL, sizes: Sequence[int] = SIZES, shapes: Sequence[str] = SHAPES,
            repeat: int = 5) -> list[Row]:
    """Read a draft of each shape and size `repeat` times: offline_reading alone, and the enforce stage's lane 1."""
    from focal.bench.enforcement import _FixedAgent, benched_agent, build_state
    from focal.config.loader import load_agent
    from focal.enforcement.reading import expression_names, offline_reading
    from focal.stages import enforce
    from focal.variables import known_variables
    from focal.wiring import local_deps

    agent = load_agent(agent_path)
    turn = context(agent_path)
    benched = benched_agent(agent, ())  # one draft, no regeneration, no output checks: lane 1 is what is timed
    deps = local_deps(agent_path, ":memory:")
    deps.configs, deps.model_factory = _FixedAgent(benched), None
    names = expression_names(agent.rules)
    embedding = [0.0] * 384  # relevance is off: the message's vector is not read

    def lane1(text: str) -> tuple[float, str]:
        state = enforce.run(build_state(benched, _case(text, turn), embedding), deps)
        shown = ", ".join(sorted({v.rule_id for v in state.generate.drafts[0].violations})) or "passes"
        return float(state.enforce.report.timings.get("deterministic", 0.0)), shown

    lane1(draft(200, "prose", turn["paragraphs"]))  # warm-up: lazy imports, compiled patterns, caches
    rows = []
    for shape in shapes:
        for size in sizes:
            text = draft(size, shape, turn["paragraphs"])
            state = build_state(benched, _case(text, turn), embedding)
            known = known_variables(benched, state.session, state.profile)
            reading, timed = [], []
            for _ in range(repeat):
                started = time.perf_counter()
                offline_reading(benched, text, names, known)
                reading.append((time.perf_counter() - started) * 1000)
            for _ in range(repeat):
                ms, verdict = lane1(text)
                timed.append(ms)
            rows.append(Row(shape, len(text), reading, timed, verdict))
    return rows


def format_rows(rows: Sequence[Row]) -> str:
    head = (f"{'shape':<8}{'size':>7}   {'reading p50':>11}{'best':>8}{'per KB':>8}   "
            f"{'lane 1 p50':>10}{'best':>8}{'per KB':>8}   verdict")
    lines = ["offline reading of one draft (ms; median and best of the repeats)", head]
    for r in rows:
        kb = r.size / 1024
        read50, lane50 = statistics.median(r.reading_ms), statistics.median(r.lane1_ms)
        lines.append(f"{r.shape:<8}{r.size:>7}   {read50:>11.2f}{min(r.reading_ms):>8.2f}{read50 / kb:>8.2f}   "
                     f"{lane50:>10.2f}{min(r.lane1_ms):>8.2f}{lane50 / kb:>8.2f}   {r.verdict}")
    return "\n".join(lines)


def _parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("agent", nargs="?", default=str(RETAIL), help="the agent YAML file (default: the retail example)")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="draft sizes in characters, comma-separated")
    parser.add_argument("--shapes", default=",".join(SHAPES), help=f"among {', '.join(SHAPES)}")
    parser.add_argument("--repeat", type=int, default=5, help="readings per size (median and best printed)")
    return parser


def cli(args: argparse.Namespace) -> int:
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if not set(shapes) <= set(SHAPES):
        print(f"--shapes: among {', '.join(SHAPES)}", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    print(format_rows(measure(args.agent, sizes, shapes, max(1, args.repeat))))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m focal.bench.draft_speed [AGENT] [--sizes …] [--shapes …] [--repeat N]`."""
    return cli(_parser(argparse.ArgumentParser(prog="focal bench draftspeed", description=__doc__.splitlines()[0])).parse_args(argv))


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    """Register `focal bench draftspeed` on the bench subparsers."""
    s = _parser(bsub.add_parser("draftspeed", help="milliseconds to read one draft offline, by draft size (1-8 KB)"))
    s.set_defaults(func=cli)


if __name__ == "__main__":
    sys.exit(main())
