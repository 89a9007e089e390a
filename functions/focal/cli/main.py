"""The `focal` command: demo, chat, turn, validate, schema, test, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from focal.cli.trace import format_trace

DEMO_SCRIPT = (
    ("c-100", "Hi there"),
    ("c-100", "I'd like a refund for my order"),
    ("c-100", "It's A1001"),
    ("c-100", "yes please"),
    ("c-100", "How long does shipping usually take?"),
    ("c-100", "Can I also get a refund for order A1002?"),
    ("c-100", "Could I speak to a human about it?"),
)


def _runner(agent: str, db: str, model: str | None):
    from focal.pipeline.runner import LocalRunner
    from focal.wiring import local_deps

    return LocalRunner(local_deps(agent, db, model=model))


def _agent_id(agent: str) -> str:
    from focal.config.loader import load_agent

    return load_agent(agent).id


def _turn(runner, args, agent_id: str, session: str, message: str, customer: str = "anonymous"):
    from focal.models.turn import TurnRequest

    return runner.turn(TurnRequest(
        tenant_id=args.tenant, agent_id=agent_id, session_id=session, customer_id=customer,
        turn_id=uuid.uuid4().hex, message=message,
    ))


def _show(result, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        print(f"agent> {result.response}")
        print(format_trace(result))


def cmd_validate(args) -> int:
    from focal.config.loader import load_agent_file
    from focal.config.validate import semantic_problems, semantic_warnings
    from focal.settings import get_settings

    loaded = load_agent_file(args.file)
    problems, warnings = list(loaded.problems), []
    if loaded.config is not None:
        problems += semantic_problems(loaded.config, loaded.raw)
        warnings = semantic_warnings(loaded.config, loaded.raw, model=get_settings().model)
    if problems:
        print(f"{args.file}: {len(problems)} problem(s)")
        for p in problems:
            print(f"  {p}")
    else:
        a = loaded.config
        assert a is not None
        print(f"{args.file}: OK — agent {a.id!r}: {len(a.scenarios)} scenarios, {len(a.rules)} rules, {len(a.tools)} tools")
    if warnings:
        print(f"{args.file}: {len(warnings)} warning(s)")
        for w in warnings:
            print(f"  {w}")
    return 1 if problems else 0


def cmd_schema(args) -> int:
    from focal.models.agent import AgentConfig

    print(json.dumps(AgentConfig.model_json_schema(), indent=2))
    return 0


def cmd_turn(args) -> int:
    runner = _runner(args.agent, args.db, args.model)
    result = _turn(runner, args, _agent_id(args.agent), args.session, args.message, args.customer)
    _show(result, args.json)
    return 0 if result.success else 2


def cmd_chat(args) -> int:
    runner = _runner(args.agent, args.db, args.model)
    agent_id = _agent_id(args.agent)
    session = args.session or uuid.uuid4().hex[:12]
    print(f"Chatting with {agent_id} (session {session}). Empty line or Ctrl-D to leave.")
    while True:
        try:
            line = input("you> ") if sys.stdin.isatty() else sys.stdin.readline()
        except EOFError:
            break
        message = line.strip()
        if not message:
            break
        _show(_turn(runner, args, agent_id, session, message, args.customer), args.json)
    return 0


def cmd_demo(args) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        runner = _runner(args.agent, str(Path(tmp) / "demo.db"), None)
        agent_id = _agent_id(args.agent)
        print(f"Focal demo: agent {agent_id!r} on the embedded defaults (MiniLM ONNX, SQLite, no model, no network)\n")
        for customer, message in DEMO_SCRIPT:
            print(f"you>   {message}")
            _show(_turn(runner, args, agent_id, "demo", message, customer), args.json)
            print()
    return 0


def cmd_test(args) -> int:
    from focal.conversation_tests import SuiteError, format_report, run_suite

    try:
        report = run_suite(args.agent, args.tests)
    except SuiteError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(format_report(report, verbose=args.verbose))
    return 0 if report.passed else 1


def cmd_index(args) -> int:
    from focal.cli.index import index_agent

    _, summary = index_agent(args.agent, args.tenant, args.db)
    print(summary)
    return 0


def cmd_bench(args) -> int:
    from focal.cli.bench import overhead

    suite = args.suite or str(Path(args.agent).parent / "tests.yaml")
    print(overhead(args.agent, suite, args.repeat))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="focal", description="Focal: run, test and check customer-facing agents.")
    sub = p.add_subparsers(dest="command", required=True)

    def with_agent(name: str, help_: str) -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=help_)
        s.add_argument("agent", help="the agent YAML file (or its folder)")
        s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"))
        return s

    s = sub.add_parser("validate", help="list every problem of an agent file (exit 1 if any) and its warnings")
    s.add_argument("file")
    s.set_defaults(func=cmd_validate)
    sub.add_parser("schema", help="print the agent file's JSON Schema").set_defaults(func=cmd_schema)

    def conversing(name: str, help_: str, session_required: bool) -> argparse.ArgumentParser:
        s = with_agent(name, help_)
        s.add_argument("--session", required=session_required)
        s.add_argument("--customer", default="anonymous")
        s.add_argument("--db", default=".focal/focal.db")
        s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"))
        s.add_argument("--json", action="store_true")
        return s

    s = conversing("turn", "run one turn; state is kept in a local SQLite file", session_required=True)
    s.add_argument("--message", required=True)
    s.set_defaults(func=cmd_turn)
    conversing("chat", "talk to an agent (answer + compact trace)", session_required=False).set_defaults(func=cmd_chat)

    from focal.cli.approve import add_parsers as add_approval_parsers

    add_approval_parsers(sub)  # `focal approve ID` / `focal deny ID`
    from focal.cli.serve import add_parser as add_serve_parser

    add_serve_parser(sub)  # `focal serve`: the API Gateway routes on loopback
    from focal.cli.keys import add_parser as add_keys_parser

    add_keys_parser(sub)  # `focal keys create|list|revoke`: scoped API keys, stored hashed

    s = with_agent("demo", "a scripted conversation on the embedded defaults")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_demo)

    s = with_agent("test", "run a YAML suite of conversations; exit 1 on any failure")
    s.add_argument("tests")
    s.add_argument("-v", "--verbose", action="store_true", help="show every turn, not only the failing ones")
    s.set_defaults(func=cmd_test)

    s = with_agent("index", "embed and upsert the agent's rules and scenario examples (only what changed)")
    s.add_argument("--db", default=".focal/focal.db", help="the local index lives beside this SQLite file")
    s.set_defaults(func=cmd_index)

    b = sub.add_parser("bench", help="benchmarks that print figures")
    bsub = b.add_subparsers(dest="bench", required=True)
    s = bsub.add_parser("overhead", help="per-stage p50/p95 on an example suite, offline")
    s.add_argument("agent")
    s.add_argument("--suite", help="conversation suite (default: tests.yaml beside the agent)")
    s.add_argument("--repeat", type=int, default=3)
    s.set_defaults(func=cmd_bench)
    from focal.cli.bench_intents import add_parser as add_intents_parser

    add_intents_parser(bsub)  # `focal bench intents`: Banking77 / CLINC150 beside published figures
    from focal.cli.bench_enforcement import add_parser as add_enforcement_parser

    add_enforcement_parser(bsub)  # `focal bench enforcement`: precision/recall per lane and check, latency per lane
    from focal.cli.bench_load import add_parser as add_load_parser
    from focal.cli.bench_coldstart import add_parser as add_coldstart_parser

    add_load_parser(bsub)  # `focal bench load`: concurrent conversations against focal serve
    add_coldstart_parser(bsub)  # `focal bench coldstart`: import + init per stage handler
    from focal.cli.bench_bands import add_parser as add_bands_parser

    add_bands_parser(bsub)  # `focal bench bands`: the approval gate's decisions over the example suites

    def bench_prevalidation(args) -> int:
        from focal.cli.bench_prevalidation import cli

        return cli(args)

    s = bsub.add_parser("prevalidation", help="caught / false-alarm counts of pre-validation on a labelled YAML set")
    s.add_argument("file", help="YAML with lists under attacks, dangerous, ordinary")
    s.add_argument("--show", action="store_true", help="also list the misses and false alarms")
    s.set_defaults(func=bench_prevalidation)

    def bench_retrieval(args) -> int:
        from focal.cli.bench_retrieval import cli

        return cli(args)

    s = bsub.add_parser("retrieval", help="recall@k and threshold trade-off on a labelled set; index scale with --rules")
    s.add_argument("agent", nargs="?", help="the agent YAML file (labelled mode)")
    s.add_argument("--cases", help="labelled set (default: retrieval.yaml beside the agent)")
    s.add_argument("--k", default="1,3,5,10", help="comma-separated k for recall@k")
    s.add_argument("--show", action="store_true", help="also per-rule figures and the missed cases")
    s.add_argument("--rules", help="synthetic index sizes, e.g. 1000,10000,100000 (scale mode)")
    s.add_argument("--queries", type=int, default=200, help="queries per size (scale mode)")
    s.add_argument("--embed-sample", type=int, default=500, help="texts for MiniLM throughput, 0 to skip (scale mode)")
    s.set_defaults(func=bench_retrieval)
    return p


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    args = parser().parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # a clear message, not a stack trace, for the operator
        from focal.config.loader import AgentConfigInvalid

        if isinstance(exc, AgentConfigInvalid):
            print(str(exc), file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
