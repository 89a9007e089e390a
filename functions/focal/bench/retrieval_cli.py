"""`focal bench retrieval`'s command line: labelled mode (focal.bench.retrieval) and scale mode
(focal.bench.retrieval_scale)."""

from __future__ import annotations

from focal.bench.retrieval import labelled
from focal.bench.retrieval_large import AT_LIMIT
from focal.bench.retrieval_scale import scale


def _ints(text: str) -> list[int]:
    try:
        values = [int(x.replace("_", "")) for x in text.split(",") if x.strip()]
    except ValueError as exc:
        raise ValueError(f"expected comma-separated integers, got {text!r}") from exc
    if not values or min(values) < 1:
        raise ValueError(f"expected positive integers, got {text!r}")
    return values


def _agent_sizes(text: str) -> list[int]:
    """Agent sizes in rules; "max" is the largest agent the loader's limits allow (AT_LIMIT)."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    numbers = ",".join(p for p in parts if p != "max")
    return [*(_ints(numbers) if numbers else []), *([AT_LIMIT] if "max" in parts else [])]


def cli(args) -> int:
    if args.agent is None and not args.rules:
        print("focal bench retrieval: give an AGENT (labelled set) and/or --rules N,... (synthetic scale)")
        return 2
    out = []
    if args.agent is not None:
        try:
            report, _ = labelled(args.agent, args.cases, _ints(args.k), show=args.show,
                                 examples=not getattr(args, "without_examples", False))
        except (ValueError, FileNotFoundError) as exc:
            print(str(exc))
            return 1
        out.append(report)
    if args.rules:
        try:
            agent_sizes = _agent_sizes(getattr(args, "agent_rules", "150,500,max"))
        except ValueError as exc:
            print(str(exc))
            return 1
        out.append(scale(_ints(args.rules), queries=args.queries, embed_sample=args.embed_sample,
                         agent_sizes=agent_sizes))
    print("\n\n".join(out))
    return 0
