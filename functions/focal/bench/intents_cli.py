"""The `focal bench intents` command line: arguments → focal.bench.intents.intents, and with `--finetuned DIR`
the rows of the encoders fine-tuned at build time (focal.bench.intents_finetuned) beside the shipped one."""

from __future__ import annotations

from pathlib import Path

from focal.bench.intents import intents
from focal.bench.intents_finetuned import measure_finetuned


def _finetuned_rows(root: Path, head_weight: float | None):
    if not root.is_dir():
        raise SystemExit(f"focal bench intents: --finetuned {root} is not a folder (write one with "
                         "scripts/finetune_intents.py)")

    def more(run, data, log) -> None:
        measure_finetuned(run, root, data, head_weight, log)

    return more


def cmd(args) -> int:
    def ints(s: str) -> list[int]:
        return [int(x) for x in s.split(",") if x.strip()]

    more = _finetuned_rows(Path(args.finetuned), args.head_weight) if args.finetuned else None
    print(intents(
        args.data, None if args.no_cache else args.cache, shots=ints(args.shots), seeds=ints(args.seeds),
        full=not args.no_full, clinc=not args.no_clinc, classes=args.classes, per_label=args.rows_per_label,
        head_weight=args.head_weight, baseline=not args.no_baseline, throughput_sentences=args.throughput,
        threads=args.threads, log=(lambda *_: None) if args.quiet else (lambda m: print(m, flush=True)), more=more,
        joint=not args.minilm_only,
    ))
    return 0


def add_parser(bsub) -> None:
    s = bsub.add_parser("intents", help="the offline intent sensor on Banking77 and CLINC150 beside published figures")
    s.add_argument("--data", help="folder with the benchmark files (default: ../shared/bench/intents)")
    s.add_argument("--cache", default=".focal/bench-cache", help="embedding cache folder")
    s.add_argument("--no-cache", action="store_true")
    s.add_argument("--shots", default="10,30")
    s.add_argument("--seeds", default="0,1,2,3,4")
    s.add_argument("--no-full", action="store_true", help="skip Banking77 full training data")
    s.add_argument("--no-clinc", action="store_true")
    s.add_argument("--no-baseline", action="store_true", help="skip the nearest-example-only rows")
    s.add_argument("--classes", type=int, help="slice: only the first N labels (sorted) of each data set")
    s.add_argument("--rows-per-label", type=int, help="slice: at most N rows per label in each split")
    s.add_argument("--head-weight", type=float, help="override navigation.intent_head_weight")
    s.add_argument("--throughput", type=int, default=1000, help="sentences timed for throughput (0: skip)")
    s.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads")
    s.add_argument("--finetuned", help="folder of encoders fine-tuned at build time (scripts/finetune_intents.py): "
                                       "their rows beside the shipped model's")
    s.add_argument("--minilm-only", action="store_true",
                   help="match in MiniLM's space alone (a deployment without the multilingual model)")
    s.add_argument("--quiet", action="store_true", help="print only the table")
    s.set_defaults(func=cmd)
