"""`focal bench prevalidation FILE|DIR`: caught / false-alarm counts of pre-validation.

Three modes:
- FILE, a YAML with lists under `attacks` (prompt injection / jailbreak), `dangerous` (payloads) and
  `ordinary` (real customer messages), as tests/data/prevalidation_messages.yaml. Counts are printed
  for the heuristics alone and with every check (exemplar similarity and the injection classifier on
  the embedding too), plus the per-message cost.
- DIR, a folder of `messages.LANG.yaml` files (tests/data/prevalidation_blind): the figures per language
  (focal.bench.prevalidation_languages), with the multilingual classifier's size and cost.
- DIR, a folder holding `injection/` and `intents/` as `../shared/bench` does (or the word `shared`:
  that folder beside the checkout): the source-split evaluation of focal.bench.prevalidation_sources —
  every source the injection classifier and the combination of the checks were never trained or tuned on,
  one by one.

A message is *caught* when a blocking check fails; an ordinary message that fails one is a *false
alarm*. Only counts and check names are printed by default; `--show` lists misses and false alarms.
Embeddings are cached under `.focal/bench-cache/` (MiniLM on ~22k messages takes minutes once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from focal.bench.prevalidation_scoring import per_message_us
from focal.models.agent import AgentConfig
from focal.ports import Embedder, InjectionClassifier
from focal.sensing.injection_classifier import shipped_classifier
from focal.sensing.prevalidation import blocking_failures, prevalidate

LABELS = {"attacks": True, "dangerous": True, "ordinary": False}
REPO = Path(__file__).resolve().parents[3]
PAYLOADS = REPO / "tests" / "data" / "injection_payloads" / "garak_pyrit_payloads.json"


@dataclass
class Tally:
    label: str
    total: int = 0
    flagged: int = 0
    wrong: list[str] = field(default_factory=list)  # misses (attacks) or false alarms (ordinary)


def load_labelled(path: str | Path) -> dict[str, list[str]]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    unknown = set(data) - set(LABELS)
    if unknown:
        raise ValueError(f"{path}: unknown section(s) {sorted(unknown)}; expected {sorted(LABELS)}")
    out = {}
    for key, messages in data.items():
        if not isinstance(messages, list) or not all(isinstance(m, str) for m in messages):
            raise ValueError(f"{path}: '{key}' must be a list of strings (quote yes/no/on/off)")
        out[key] = messages
    return out


def evaluate(
    agent: AgentConfig,
    sets: dict[str, list[str]],
    embedder: Embedder | None,
    classifier: InjectionClassifier | None = None,
    multilingual: Embedder | None = None,
) -> dict[str, Tally]:
    """Run every message through `prevalidate` (no session: context completeness does not apply); a message in
    another language is read by the multilingual classifier on `multilingual`'s vectors (required then)."""
    tallies = {}
    for key, messages in sets.items():
        vectors = embedder.embed([m.strip() for m in messages]) if embedder is not None and messages else None
        tally = Tally(label=key, total=len(messages))
        for i, message in enumerate(messages):
            vector = vectors[i] if vectors is not None and message.strip() else None
            blocked = bool(blocking_failures(prevalidate(agent, message, vector, embedder, None, classifier,
                                                         multilingual=multilingual)))
            tally.flagged += blocked
            if blocked != LABELS[key]:
                tally.wrong.append(message)
        tallies[key] = tally
    return tallies


def _line(name: str, tallies: dict[str, Tally]) -> str:
    parts = []
    for key, tally in tallies.items():
        word = "caught" if LABELS[key] else "false alarms"
        parts.append(f"{key} {word} {tally.flagged}/{tally.total}")
    return f"{name:<24} " + ", ".join(parts)


def report(path: str, show: bool = False, agent: AgentConfig | None = None) -> str:
    from focal.adapters.onnx_classifier import shared_injection_classifier
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.use_embedder import shared_multilingual_embedder

    agent = agent or AgentConfig(id="bench", name="bench")
    sets = load_labelled(path)
    embedder, multilingual = shared_embedder(), shared_multilingual_embedder()
    classifier = shared_injection_classifier(agent.pre_validation.injection_classifier_dir)
    heuristics = evaluate(agent, sets, None)
    combined = evaluate(agent, sets, embedder, classifier, multilingual)
    cfg = agent.pre_validation
    lines = [
        f"pre-validation on {path} (exemplar cosine {cfg.injection_similarity_threshold}, "
        f"margin {cfg.injection_similarity_margin}, injection classifier ≥ {shipped_classifier().threshold:.4f}"
        f"{', ONNX classifier on' if classifier else ''})",
        _line("heuristics only", heuristics),
        _line("all checks", combined),
    ]
    everything = [m for messages in sets.values() for m in messages if m.strip()]
    if everything:
        p50, p95 = per_message_us(agent, everything, embedder, multilingual=multilingual)
        lines.append(f"{'cost per message':<24} p50 {p50:.0f} µs, p95 {p95:.0f} µs (embedding not included)")
    if show:
        for key, tally in combined.items():
            for message in tally.wrong:
                lines.append(f"  {'missed' if LABELS[key] else 'false alarm'} [{key}]: {message}")
    return "\n".join(lines)
