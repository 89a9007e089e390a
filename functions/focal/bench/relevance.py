"""`focal bench relevance`: the relevance check on labelled model drafts, through the turn's own path.

Two sets, both written before the check was tuned:
- FILE (default tests/data/relevance_drafts/drafts.yaml): short conversations with the example agents,
  answered by a model in another product's style, labelled `on_topic`, `off_topic` (a competitor pitch, a
  poem, unrelated advice or facts: what the check must catch) or `wrong_answer` (same domain, another
  question: reported, not a target);
- `--blind DIR ...` (default tests/data/drafts_blind and tests/data/drafts_held_out): the drafts another
  session wrote for the enforcement checks, compliant and violating alike — every one of them answers its
  customer's message, so each is on topic (en, es, de).

Each case runs offline in a copy of its agent with the relevance check switched on and every answer worded
by the model: the earlier messages first, then the message the draft answers, with a scripted generation
model (at the port, like any provider) that answers with the draft. The relevance verdict on that first draft
is what counts (the other checks may still block an on-topic draft: not counted against relevance). Printed:
on-topic drafts rejected (the share that must stay ≤ 2 %), off-topic drafts caught by the relevance check and
by the whole turn (any check, an agent's rule against naming competitors included), wrong answers caught, per
agent, per language and per kind, and the check's time per draft. `--show` lists every draft decided against
its label.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from focal.models.turn import TurnRequest
from focal.ports import ModelReply

ROOT = Path(__file__).resolve().parents[3]
DEFAULT_FILE = ROOT / "tests" / "data" / "relevance_drafts" / "drafts.yaml"
DEFAULT_BLIND = (ROOT / "tests" / "data" / "drafts_blind", ROOT / "tests" / "data" / "drafts_held_out")
EXAMPLES = ROOT / "examples"
AGENT_HOMES = (EXAMPLES, ROOT / "tests" / "data")  # an example agent, or a kept newcomer agent of tests/data
LABELS = ("on_topic", "off_topic", "wrong_answer")
OWN_WORDS = "composed from the agent's own templates"  # the turn's answer was not the model's draft
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass
class DraftCase:
    case_id: str
    agent_dir: Path
    customer: str
    draft: str
    label: str
    kind: str = ""
    history: list[str] = field(default_factory=list)
    language: str = "en"


@dataclass
class Verdict:
    case: DraftCase
    passed: bool | None  # None: the draft was never checked (the turn did not ask the model)
    score: float | None
    method: str
    reason: str
    ms: float
    reached: bool = False  # the draft reached the customer as written (no check of any kind replaced it)


class ScriptedDraft:
    """A generation model at the port boundary: answers the next generation call with the draft, then nothing."""

    spends_no_time = True  # written down: the turn budget never turns it down (focal.turn.budget)

    def __init__(self, draft: str) -> None:
        self.drafts = [draft]

    def available(self, purpose: str) -> bool:
        return purpose == "generate" and bool(self.drafts)

    def complete(self, purpose: str, messages: list[dict[str, str]], json_schema: dict[str, Any] | None = None) -> ModelReply:
        return ModelReply(text=self.drafts.pop(0), model="scripted/draft")


def load_drafts(path: Path) -> list[DraftCase]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries = data.get("cases") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected a mapping with 'cases:'")
    out = []
    for i, entry in enumerate(entries):
        where = f"{path}: cases[{i}]"
        if not isinstance(entry, dict) or entry.get("label") not in LABELS:
            raise ValueError(f"{where}.label must be one of {', '.join(LABELS)}")
        for key in ("id", "agent", "customer", "draft"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise ValueError(f"{where}.{key} must be a non-empty string")
        history = entry.get("history") or []
        if not isinstance(history, list) or not all(isinstance(h, str) for h in history):
            raise ValueError(f"{where}.history must be a list of customer messages")
        agent_dir = next((home / entry["agent"] for home in AGENT_HOMES
                          if (home / entry["agent"] / "agent.yaml").is_file()), None)
        if agent_dir is None:
            raise ValueError(f"{where}.agent: no examples/{entry['agent']}/agent.yaml "
                             f"nor tests/data/{entry['agent']}/agent.yaml")
        out.append(DraftCase(entry["id"], agent_dir, entry["customer"], entry["draft"], entry["label"],
                             str(entry.get("kind", "")), history, str(entry.get("language", "en"))))
    return out


def _rendered(raw: Any, known: dict[str, Any]) -> str:
    """A blind draft as the customer would read it: a structured one's text with its values filled in."""
    if isinstance(raw, dict):
        values = {**known, **(raw.get("commitments") or {})}
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(1), m.group(0))), str(raw.get("text", "")))
    return str(raw)


def load_blind(folder: Path) -> list[DraftCase]:
    """Every draft of a drafts_blind-style folder (domain/agent.yaml + drafts.yaml), as on topic."""
    out = []
    for drafts in sorted(folder.glob("*/drafts.yaml")):
        for entry in yaml.safe_load(drafts.read_text(encoding="utf-8")).get("cases", []):
            out.append(DraftCase(str(entry["id"]), drafts.parent, str(entry["customer"]),
                                 _rendered(entry["draft"], entry.get("known") or {}), "on_topic",
                                 f"blind {entry.get('label', '')}".strip(), language=str(entry.get("language", "en"))))
    return out


def _checked_copy(agent_dir: Path, into: Path, languages: list[str]) -> Path:
    """The agent's folder copied with the relevance check on, every answer worded by the model, and the cases'
    languages declared beside its own (a case's `language`: the conversation's)."""
    target = into / agent_dir.name
    if not target.exists():
        shutil.copytree(agent_dir, target)
        path = target / "agent.yaml"
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        data.setdefault("enforcement", {})["relevance_check_enabled"] = True
        data.setdefault("models", {})["rephrase_fixed_texts"] = True
        declared = list(data.get("languages") or ["en"])
        data["languages"] = declared + [lang for lang in languages if lang not in declared]
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
    return target / "agent.yaml"


def run(cases: list[DraftCase]) -> list[Verdict]:
    from focal.config.loader import load_agent
    from focal.pipeline.runner import LocalRunner
    from focal.wiring import local_deps

    verdicts = []
    languages: dict[Path, list[str]] = defaultdict(list)
    for case in cases:
        languages[case.agent_dir] += [case.language] if case.language not in languages[case.agent_dir] else []
    with tempfile.TemporaryDirectory(prefix="focal-relevance-") as tmp:
        runners: dict[Path, tuple[LocalRunner, str, Any]] = {}
        for n, case in enumerate(cases):
            if case.agent_dir not in runners:
                path = _checked_copy(case.agent_dir, Path(tmp), languages[case.agent_dir])
                runner = LocalRunner(local_deps(path, Path(tmp) / f"{case.agent_dir.name}.db"))
                runners[case.agent_dir] = (runner, load_agent(path).id, runner.deps.model)
            runner, agent_id, offline = runners[case.agent_dir]
            session = f"rel-{n}"

            def say(message: str, turn: int, model: Any, runner: Any = runner, agent_id: str = agent_id,
                    session: str = session) -> Any:
                runner.deps.model = model
                return runner.turn(TurnRequest(tenant_id="bench", agent_id=agent_id, session_id=session,
                                               customer_id=f"c-{session}", turn_id=f"{session}-{turn}", message=message))

            for i, message in enumerate(case.history):
                say(message, i, offline)
            result = say(case.customer, len(case.history), ScriptedDraft(case.draft))
            runner.deps.model = offline
            first = next((c for c in result.enforcement.get("checks", [])
                          if c["name"] == "relevance" and c["draft"] == 0), None)
            if first is None or str(first.get("reason", "")).startswith(OWN_WORDS):
                verdicts.append(Verdict(case, None, None, "", "not checked: no model draft on this turn", 0.0))
            else:
                verdicts.append(Verdict(case, bool(first["passed"]), first.get("score"), first.get("method", ""),
                                        first.get("reason", ""), float(first.get("ms", 0.0)),
                                        result.response.strip() == case.draft.strip()))
    return verdicts


def _share(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.1f} %)" if total else "0/0"


def _line(name: str, verdicts: list[Verdict]) -> str:
    checked = [v for v in verdicts if v.passed is not None]
    on = [v for v in checked if v.case.label == "on_topic"]
    off = [v for v in checked if v.case.label == "off_topic"]
    wrong = [v for v in checked if v.case.label == "wrong_answer"]
    parts = [f"{name:<22} on-topic rejected {_share(sum(not v.passed for v in on), len(on)):<16}"]
    if off:
        parts.append(f"off-topic caught {_share(sum(not v.passed for v in off), len(off)):<16}")
        parts.append(f"(by the whole turn {_share(sum(not v.reached for v in off), len(off))})")
    if wrong:
        parts.append(f"wrong answers caught {_share(sum(not v.passed for v in wrong), len(wrong))}")
    return "  ".join(parts).rstrip()


# Which part of the cosine check decided a rejection, by the words of its reason (focal.enforcement.relevance).
PATHS = (("below the threshold", "does not address"), ("closer to unrelated content", "about something else"),
         ("off the agent's business", "not about the agent's business"),
         ("nearer the off-domain side", "nearer the off-domain side"))


def _kept_by_sentence(verdicts: list[Verdict]) -> list[str]:
    """How many drafts below the domain floor as a whole were kept by their sentences (focal.enforcement.draft_parts)."""
    kept = [v for v in verdicts if v.passed and "sentence by sentence" in v.reason]
    if not kept:
        return []
    on = sum(v.case.label == "on_topic" for v in kept)
    return [f"  kept sentence by sentence below the domain floor: on topic {on}, off topic {len(kept) - on}"]


def thresholds(verdicts: list[Verdict]) -> list[str]:
    """The thresholds the check ran with and the evidence for them on this set: the on-topic drafts' lowest scores
    against the cosine threshold and the off-topic drafts caught by each part of the check."""
    from focal.enforcement.domain_fit import ELSEWHERE_MARGIN, FLOOR_SHARE, SCALE_QUANTILE
    from focal.enforcement.off_domain_bank import OFF_DOMAIN_TEXTS
    from focal.models.agent import EnforcementConfig

    cfg = EnforcementConfig()
    scored = [v for v in verdicts if v.passed is not None and v.method == "cosine"]
    on = sorted(v.score for v in scored if v.case.label == "on_topic" and v.score is not None)
    lines = [f"  thresholds: cosine ≥ {cfg.relevance_cosine_threshold:.2f} (relevance_cosine_threshold), off-topic margin "
             f"{cfg.relevance_off_topic_margin:.2f}, domain floor {FLOOR_SHARE} × the agent's own scale (its texts' "
             f"{SCALE_QUANTILE}th-percentile leave-one-out cosine); on a turn off the business, rejected when nearer the "
             f"off-domain side ({sum(map(len, OFF_DOMAIN_TEXTS.values()))} texts in {'/'.join(OFF_DOMAIN_TEXTS)} and the "
             f"unrelated exemplars) than the business or a decline by {ELSEWHERE_MARGIN:.2f}"]
    if on:
        lines.append(f"  evidence: on-topic scored drafts' lowest cosines {', '.join(f'{s:.2f}' for s in on[:3])} "
                     f"(median {statistics.median(on):.2f}) of {len(on)}")
    lines += _kept_by_sentence(verdicts)
    for label, title in (("off", "off-topic caught by"), ("on", "on-topic rejected by")):
        rejected = [v for v in verdicts if v.passed is False and (v.case.label == "on_topic") == (label == "on")]
        if rejected:
            lines.append(f"  {title}: " + ", ".join(f"{name} {sum(words in v.reason for v in rejected)}"
                                                    for name, words in PATHS))
    return lines


def report(title: str, verdicts: list[Verdict], show: bool) -> str:
    unchecked = sum(v.passed is None for v in verdicts)
    lines = [f"{title}: {len(verdicts)} drafts" + (f", {unchecked} not checked (no model draft)" if unchecked else ""),
             _line("all", verdicts)]
    for key in ("agent", "language"):
        groups: dict[str, list[Verdict]] = defaultdict(list)
        for v in verdicts:
            groups[v.case.agent_dir.name if key == "agent" else v.case.language].append(v)
        if len(groups) > 1:
            lines += [_line(f"  {key} {value}", group) for value, group in sorted(groups.items())]
    kinds: dict[str, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        kinds[f"{v.case.label}/{v.case.kind}"].append(v)
    lines.append("  by kind: " + ", ".join(f"{k} {sum(v.passed is False for v in g)}/{len(g)} rejected"
                                           for k, g in sorted(kinds.items())))
    lines += thresholds(verdicts)
    ms = [v.ms for v in verdicts if v.passed is not None and v.method != "bypass"]
    if ms:
        lines.append(f"  check time per scored draft: p50 {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms")
    if show:
        lines += [f"  - {v.case.case_id} [{v.case.label} → {'passed' if v.passed else 'rejected'}] {v.reason}"
                  for v in verdicts if v.passed is not None and v.passed != (v.case.label == "on_topic")]
    return "\n".join(lines)


def cli(args: argparse.Namespace) -> int:
    try:
        labelled = load_drafts(Path(args.file))
    except (ValueError, OSError) as exc:
        print(f"focal bench relevance: {exc}", file=sys.stderr)
        return 2
    out = [report(f"labelled drafts ({args.file})", run(labelled), args.show)]
    blind = [c for folder in (args.blind if args.blind is not None else DEFAULT_BLIND) for c in load_blind(Path(folder))]
    if blind and not args.no_blind:
        out.append(report("on-topic drafts written blind for the enforcement checks", run(blind), args.show))
    print("\n\n".join(out))
    return 0


def add_parser(bsub: Any) -> None:
    """Register `focal bench relevance` on the bench subparsers."""
    s = bsub.add_parser("relevance", help="the relevance check on labelled on/off-topic model drafts, through the turn")
    s.add_argument("file", nargs="?", default=str(DEFAULT_FILE), help="labelled drafts (cases: id, agent, history, "
                   "customer, draft, label, optional language: the conversation's, declared for the agent's copy)")
    s.add_argument("--blind", nargs="*", default=None, help="drafts_blind-style folders whose drafts are all on topic "
                   "(default: tests/data/drafts_blind and drafts_held_out)")
    s.add_argument("--no-blind", action="store_true", help="only the labelled file")
    s.add_argument("--show", action="store_true", help="list every draft decided against its label")
    s.set_defaults(func=cli)
