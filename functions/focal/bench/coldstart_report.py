"""The cold-start report: what was measured here and what is assumed, on separate, labelled lines.

Measured: CPU milliseconds of each function's fresh interpreter (handler import; first invocation;
threads it left running). Assumed: the CPU share a memory size buys, the platform's start without
SnapStart and a snapshot's restore with it; each with its source. Every total is split into the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from focal.bench.coldstart_layout import Function

FULL_CPU_MB = 1769  # one vCPU at 1,769 MB; CPU share proportional to memory below it
TURN_LIMIT_S = 8.0


@dataclass(frozen=True)
class Assumptions:
    restore_s: float = 0.5  # SnapStart restore per function
    platform_s: float = 0.15  # sandbox + runtime start per function without SnapStart
    s3_mb_s: float = 60.0  # S3 GetObject throughput into a Lambda in the same region (the multilingual weights)

    def lines(self) -> list[str]:
        return [
            "assumed (not measurable on this machine), with sources:",
            f"  - CPU share = memory / {FULL_CPU_MB} MB (1 vCPU at {FULL_CPU_MB} MB), at this machine's CPU speed; "
            "source: AWS Lambda documentation, memory and computing power",
            f"  - platform start {self.platform_s:.2f} s per function without SnapStart (sandbox + runtime before "
            "Python runs; not CPU of the probe); source: none here, a placeholder (--platform-s)",
            f"  - SnapStart restore {self.restore_s:.2f} s per function; source: AWS SnapStart documentation "
            "(restores of a few hundred ms); no snapshot can be restored here (--restore-s)",
            f"  - S3 download {self.s3_mb_s:.0f} MB/s into a function (the multilingual weights); source: none here, "
            "a placeholder (single-stream GetObject in-region is commonly quoted at 50-90 MB/s)",
        ]


@dataclass
class Row:
    function: Function
    on_demand: dict[str, Any] | None = None  # probe result without priming (a cold start without SnapStart)
    snap: dict[str, Any] | None = None  # probe result with priming at init (SnapStart's snapshot init)
    failures: list[str] = field(default_factory=list)


@dataclass
class Split:
    """Seconds of a cold start: the measured CPU scaled to the function's share, plus assumed fixed costs."""

    cpu_ms: float = 0.0  # measured, as on this machine
    scaled_s: float = 0.0  # measured × the assumed CPU share
    fixed_s: float = 0.0  # assumed platform start or restore
    complete: bool = True

    @property
    def total_s(self) -> float:
        return self.scaled_s + self.fixed_s

    def add(self, other: Split) -> None:
        self.cpu_ms += other.cpu_ms
        self.scaled_s += other.scaled_s
        self.fixed_s += other.fixed_s
        self.complete = self.complete and other.complete


def share(memory_mb: int) -> float:
    """Seconds per CPU second at this memory size."""
    return max(1.0, FULL_CPU_MB / memory_mb)


def cold(row: Row, assumed: Assumptions) -> Split:
    """Without SnapStart: interpreter start + handler import + first invocation + its background threads."""
    m = row.on_demand
    if m is None:
        return Split(complete=False, fixed_s=assumed.platform_s)
    cpu = m["startup"] + m["init"] + m["first"] + m.get("background", 0.0)
    return Split(cpu, cpu / 1000 * share(row.function.memory_mb), assumed.platform_s)


def restored(row: Row, assumed: Assumptions) -> Split:
    """With SnapStart: the restore, then the first invocation after the primed init (+ threads still running).
    A function the stack deploys without SnapStart starts cold here too."""
    if not row.function.snap_start:
        return cold(row, assumed)
    m = row.snap
    if m is None:
        return Split(complete=False, fixed_s=assumed.restore_s)
    cpu = m["first"] + m.get("background", 0.0)
    return Split(cpu, cpu / 1000 * share(row.function.memory_mb), assumed.restore_s)


def _ms(m: dict[str, Any] | None, *keys: str) -> str:
    return "n/a" if m is None else f"{sum(m.get(k, 0.0) for k in keys):.0f}"


def _s(split: Split) -> str:
    return f"{split.total_s:.1f}" + ("" if split.complete else "*")


def _verdict(split: Split) -> str:
    if not split.complete:
        return "incomplete (* a probe failed)"
    return "✓" if split.total_s <= TURN_LIMIT_S else "✗"


def report(rows: list[Row], *, agent: str, layout_label: str, layout_notes: tuple[str, ...], memory_source: str,
           model: str | None, litellm_ms: float | None, assumed: Assumptions,
           multilingual: tuple[str, dict[str, float]] | None = None) -> str:
    lines = [f"focal bench coldstart: agent {agent}; memory and layers from {memory_source}; "
             f"model {model or 'none (offline)'}",
             f"{'function':<9}{'MB':>6} {'layers':<21}{'import':>7}{'1st call':>9}{'bg':>6}{'litellm':>8}"
             f"{'cold s':>8}{'snap init':>10}{'restored':>9}{'SnapStart s':>12}"]
    turn_cold, turn_snap = Split(), Split()
    for row in rows:
        f = row.function
        c, r = cold(row, assumed), restored(row, assumed)
        loaded = "n/a" if row.on_demand is None else ("yes" if "litellm" in row.on_demand.get("loaded", []) else "no")
        lines.append(f"{f.name:<9}{f.memory_mb:>6} {'+'.join(f.layers):<21}"
                     f"{_ms(row.on_demand, 'startup', 'init'):>7}{_ms(row.on_demand, 'first'):>9}"
                     f"{_ms(row.on_demand, 'background'):>6}{loaded:>8}{_s(c):>8}"
                     f"{_ms(row.snap, 'startup', 'init'):>10}{_ms(row.snap, 'first', 'background'):>9}{_s(r):>12}")
        if f.name != "fallback":  # the respond path runs every stage once
            turn_cold.add(c)
            turn_snap.add(r)
    lines += ["", "measured on this machine (CPU ms, user + system, every thread; never wall time):",
              f"  where: {layout_label}"]
    lines += [f"  note: {n}" for n in layout_notes]
    lines += [
        "  import = interpreter start + handler module import (Lambda's init); 1st call = one invocation on the",
        "  stage's input from a real local turn (ports, models, per-agent work, litellm if it calls the model);",
        "  bg = threads left running, waited for; litellm = imported by then; snap init = import with priming",
        "  (SnapStart's snapshot, not on the cold path); restored = the first call after that init",
    ]
    if model:
        lines.append(f"  a model is configured ({model}): its calls go to a refused loopback port and fail at once, "
                     "so the provider's answer time is not in the figures")
    if litellm_ms is not None:
        lines.append(f"  litellm's import alone: {litellm_ms:.0f} ms (inside the 1st call of a function that calls the "
                     "model; before the snapshot with SnapStart)")
    lines.append("  a function whose 1st call made no model call (its offline path this turn) pays litellm's import "
                 "at its first model call")
    for row in rows:
        for mode, m in (("on demand", row.on_demand), ("SnapStart", row.snap)):
            if m is not None and m.get("error"):
                lines.append(f"  {row.function.name} ({mode}): the 1st call ended in {m['error']} (measured up to there)")
        for failure in row.failures:
            lines.append(f"  not measured: {failure}")
    lines += ["  stand-ins: the agent YAML and SQLite in place of DynamoDB (boto3 calls and their latency not in "
              "the figures)", ""]
    lines += multilingual_lines(multilingual, assumed)
    lines += assumed.lines()
    n = sum(1 for row in rows if row.function.name != "fallback")
    lines += ["", f"whole cold turn (sensor→persist, all {n} functions cold), target ≤ {TURN_LIMIT_S:.0f} s; "
              "total = measured CPU × assumed share + assumed fixed costs:"]
    for label, split, what in (("without SnapStart", turn_cold, f"{n} × {assumed.platform_s:.2f} s platform start"),
                               ("with SnapStart", turn_snap, f"{n} × {assumed.restore_s:.2f} s restore")):
        lines.append(f"  {label:<18} {split.total_s:5.1f} s = measured {split.cpu_ms / 1000:.1f} s CPU here → "
                     f"{split.scaled_s:.1f} s at the share + assumed {split.fixed_s:.2f} s ({what})  {_verdict(split)}")
    return "\n".join(lines)


def multilingual_lines(found: tuple[str, dict[str, float]] | None, assumed: Assumptions) -> list[str]:
    """The multilingual model's first use (sensor and retrieve): measured CPU of the digest checks, the load and one
    embedding, plus the assumed fetch."""
    from focal.adapters.use_files import WEIGHTS, UseModelUnavailable, package_folder

    if found is None:
        return ["multilingual model: not measured (see the messages above)", ""]
    function, ms = found
    try:
        weights_mb = (package_folder() / "resources" / WEIGHTS).stat().st_size / 1e6
    except (UseModelUnavailable, OSError):
        weights_mb = 0.0
    fetch_s = weights_mb / assumed.s3_mb_s
    cpu = ms["digests"] + ms["load"] + ms["embed"]
    return [
        f"multilingual model, first turn in another language ({function}; retrieve pays the same, once per container):",
        f"  measured CPU: digest checks {ms['digests']:.0f} ms + load {ms['load']:.0f} ms + first embedding "
        f"{ms['embed']:.0f} ms = {cpu:.0f} ms",
        f"  assumed: S3 fetch of the weights ({weights_mb:.1f} MB) {fetch_s:.2f} s; a warm container reuses /tmp",
        f"  total ≈ {cpu / 1000 + fetch_s:.2f} s at full CPU (scale the CPU part by the function's share)",
        "  with SnapStart (as deployed) the snapshot's init pays it (focal.prime, where FOCAL_USE_FILES is set): a "
        "restored function's first turn in another language pays none of it; without SnapStart that turn pays it",
        "",
    ]
