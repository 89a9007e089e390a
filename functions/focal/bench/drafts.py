"""`focal bench drafts [DIR]`: what the offline checks decide on labelled drafts, with no verification call.

DIR (default: tests/data/drafts_blind) holds one folder per domain with `agent.yaml` and `drafts.yaml`
(`cases:` with `id`, `language`, `customer`, `known`, `draft` — a string, or `{text, commitments}` as a
structured answer — and `label`: compliant or violating). Each draft is treated as the model's answer on a turn
where every hard response constraint of the agent is in scope: rendered (placeholders bound to `known` and the
commitments), assessed (focal.enforcement.assess), evaluated by lane 1 and checked for unbound facts and
internal names — a figure from the agent's texts read in context with the shipped embedders, as the enforce stage
reads a model's draft (focal.enforcement.figure_context). Its outcome is one of:

- **blocked**: a rule fails on a declared or certain value, or an output check fails;
- **verify**: the tripwire raised something only the verification call can settle (offline: blocked);
- **passed**.

Printed: per domain and label the three counts; violating drafts that passed (the number that must be 0);
compliant drafts blocked and sent to verification (as shares); per language and form; and the time a 4 KB
draft takes. `--show` lists every miss and every compliant draft that was not passed, with the reasons.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from focal.config.loader import load_agent
from focal.enforcement.assess import assess
from focal.enforcement.bindings import render_draft
from focal.enforcement.deterministic import deterministic
from focal.enforcement.facts import DeclaredFigure, agent_declared_texts, build_sources, unbound_facts
from focal.enforcement.figure_context import figure_problems
from focal.enforcement.internals import leaked_names
from focal.enforcement.reading import apply_reading, expression_names
from focal.models.agent import AgentConfig, Rule
from focal.models.turn import Draft
from focal.ports import Embedder

DEFAULT_DIR = Path("tests/data/drafts_blind")


@dataclass
class Outcome:
    case_id: str
    domain: str
    label: str
    language: str
    form: str  # structured / plain
    verdict: str  # blocked / verify / passed
    reasons: list[str]
    ms: float


def response_rules(agent: AgentConfig) -> list[Rule]:
    return [r for r in agent.rules if r.enabled and r.is_hard_constraint and not r.guarded_tool_ids]


def _known(agent: AgentConfig, case_known: dict[str, Any]) -> dict[str, Any]:
    out = {f.field_name: f.default for f in agent.profile_field_definitions if f.default is not None}
    out.update({k: v for k, v in (case_known or {}).items() if v is not None})
    return out


def shipped_embedders() -> tuple[Embedder, Embedder]:
    """The deployment's embedders (MiniLM, USE multilingual), loaded once per process."""
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.use_embedder import shared_multilingual_embedder

    return shared_embedder(), shared_multilingual_embedder()


def judge_offline(agent: AgentConfig, raw: Any, known: dict[str, Any], message: str, language: str | None = None,
                  embedders: tuple[Embedder, Embedder] | None = None) -> tuple[str, list[str]]:
    """(verdict, reasons) of one model draft with no verification call; `embedders` (English, multilingual; the
    shipped ones when None) read the agent's figures in context."""
    rules = response_rules(agent)
    names = expression_names(rules)
    text, commitments = (raw.get("text", ""), raw.get("commitments") or {}) if isinstance(raw, dict) else (str(raw), None)
    shown = render_draft(text, known, commitments, names)
    committed = shown.commitments if commitments is not None else None
    draft = Draft(text=shown.text, source="model", commitments=committed, spans=shown.spans, bindings=shown.bound,
                  unbound_placeholders=shown.unbound)
    variables = dict(known)
    found = assess(agent, rules, names, draft, variables, message, acted=False)
    checkable, unverifiable = apply_reading(agent, rules, variables, found.reading)
    certain = [v for v in deterministic([r for r in checkable if not r.subjective], variables)
               if not v.reason.startswith("cannot verify")]
    settled = {n: variables[n] for n in names if n in variables}  # as the enforce stage: the values the lanes settled
    blocked = [f"{v.rule_id}: {v.reason}" for v in certain + found.broken]
    blocked += _facts(agent, draft, {**known, **settled}, message, language, embedders)
    blocked += [f"unbound placeholder {{{n}}}" for n in draft.unbound_placeholders]
    blocked += [f"internal name {n}" for n in leaked_names(agent, draft.text)]
    if blocked:
        return "blocked", blocked
    verify = [f"{v.rule_id}: {v.reason}" for v in unverifiable]
    verify += [f"default {r.id}" for r in found.defaults]
    verify += [f"subjective {r.id}" for r in rules if r.subjective]
    return ("verify", verify) if verify else ("passed", [])


def _facts(agent: AgentConfig, draft: Draft, known: dict[str, Any], message: str, language: str | None,
           embedders: tuple[Embedder, Embedder] | None) -> list[str]:
    """The draft's unbound facts, and its figures from the agent's texts said for another fact."""
    texts = agent_declared_texts(agent)
    src = build_sources(texts, known, [message])
    declared: list[DeclaredFigure] = []
    found = [f"unbound {u.kind} {u.text!r}" for u in unbound_facts(draft.text, src, draft.spans, declared=declared)]
    return found + figure_problems(agent, texts, declared, language, *(embedders or shipped_embedders()))


def run_set(folder: Path) -> list[Outcome]:
    out: list[Outcome] = []
    for domain in sorted(p for p in folder.iterdir() if (p / "agent.yaml").exists() and (p / "drafts.yaml").exists()):
        agent = load_agent(domain / "agent.yaml")
        cases = (yaml.safe_load((domain / "drafts.yaml").read_text(encoding="utf-8")) or {}).get("cases") or []
        for case in cases:
            known = _known(agent, case.get("known") or {})
            started = time.perf_counter()
            verdict, reasons = judge_offline(agent, case.get("draft", ""), known, str(case.get("customer") or ""),
                                             case.get("language"))
            ms = (time.perf_counter() - started) * 1000
            out.append(Outcome(str(case.get("id")), domain.name, str(case.get("label")), str(case.get("language", "?")),
                               "structured" if isinstance(case.get("draft"), dict) else "plain", verdict, reasons, ms))
    return out


def _share(n: int, d: int) -> str:
    return f"{n}/{d} ({100 * n / d:.1f} %)" if d else "0/0"


def speed_4kb(folder: Path) -> float:
    """Milliseconds to check one 4 KB plain draft (the first domain's compliant drafts, repeated)."""
    domain = next(p for p in sorted(folder.iterdir()) if (p / "agent.yaml").exists())
    agent = load_agent(domain / "agent.yaml")
    cases = yaml.safe_load((domain / "drafts.yaml").read_text(encoding="utf-8"))["cases"]
    texts = [c["draft"] if isinstance(c["draft"], str) else c["draft"]["text"] for c in cases if c["label"] == "compliant"]
    text = ""
    while len(text) < 4096:
        text += " ".join(texts) + " "
    text = text[:4096]
    known = _known(agent, cases[0].get("known") or {})
    times = []
    for _ in range(5):
        started = time.perf_counter()
        judge_offline(agent, text, known, "")
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _counts(outcomes: list[Outcome]) -> list[str]:
    table = Counter((o.domain, o.label, o.verdict) for o in outcomes)
    lines = []
    for domain in sorted({o.domain for o in outcomes}):
        for label in ("violating", "compliant"):
            got = {v: table[(domain, label, v)] for v in ("blocked", "verify", "passed")}
            lines.append(f"{domain:10} {label:10} n={sum(got.values()):3}  blocked {got['blocked']:3}  "
                         f"verify {got['verify']:3}  passed {got['passed']:3}")
    return lines


def _shares(outcomes: list[Outcome], indent: str = "") -> str:
    bad = [o for o in outcomes if o.label == "violating"]
    ok = [o for o in outcomes if o.label == "compliant"]
    missed = sum(o.verdict == "passed" for o in bad)
    return (f"{indent}missed (violating neither blocked nor sent to verification) {_share(missed, len(bad))}; "
            f"compliant blocked {_share(sum(o.verdict == 'blocked' for o in ok), len(ok))}, "
            f"sent to verification {_share(sum(o.verdict == 'verify' for o in ok), len(ok))}")


def report(outcomes: list[Outcome], show: bool) -> str:
    lines = _counts(outcomes) + ["all: " + _shares(outcomes)]
    for key in ("language", "form"):
        for value in sorted({getattr(o, key) for o in outcomes}):
            lines.append(_shares([o for o in outcomes if getattr(o, key) == value], f"  {key} {value}: "))
    ms = sorted(o.ms for o in outcomes)
    if ms:
        lines.append(f"ms per draft: p50 {statistics.median(ms):.2f}, max {ms[-1]:.2f}")
    if show:
        lines += [f"- {o.case_id} [{o.label} → {o.verdict}] {'; '.join(o.reasons)[:300]}" for o in outcomes
                  if (o.label == "violating") == (o.verdict == "passed")]
    return "\n".join(lines)


def cli(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if not folder.is_dir():
        print(f"focal bench drafts: {folder} is not a folder of domain folders (agent.yaml, drafts.yaml)", file=sys.stderr)
        return 2
    outcomes = run_set(folder)
    if not outcomes:
        print(f"focal bench drafts: no labelled drafts under {folder}", file=sys.stderr)
        return 2
    print(report(outcomes, args.show))
    print(f"a 4 KB draft: {speed_4kb(folder):.1f} ms")
    return 0


def _parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("folder", nargs="?", default=str(DEFAULT_DIR), help="a folder of domain folders (agent.yaml, drafts.yaml)")
    parser.add_argument("--show", action="store_true", help="list the misses and the compliant drafts not passed")
    return parser


def add_parser(bsub) -> None:  # noqa: ANN001 - argparse sub-parsers
    """Register `focal bench drafts` on the bench subparsers."""
    s = _parser(bsub.add_parser("drafts", help="the answer checks on labelled drafts written blind, no verification call"))
    s.set_defaults(func=cli)


def main(argv: list[str] | None = None) -> int:
    return cli(_parser(argparse.ArgumentParser(prog="focal bench drafts")).parse_args(argv))
