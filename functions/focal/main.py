"""The `focal` command: demo, chat, turn, validate, schema, test, bench.

It sits above every front end it dispatches (focal.cli, focal.bench), outside both: the benchmarks use the
cli's conversation-test runner and local server, so the command that registers them cannot live in focal.cli."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from focal.cli.help_texts import Parser, explain
from focal.cli.progress import loading_model as _loading_model
from focal.cli.progress import progress
from focal.cli.style import colour_for, paint
from focal.cli.trace import format_trace, guard_ids

DEMO_CUSTOMER = "c-100"  # the customer `focal demo` plays; its messages are the agent's `demo_messages`


def _runner(agent: str, db: str, model: str | None, tenant: str = "local"):
    from focal.config.loader import load_agent
    from focal.pipeline.runner import LocalRunner
    from focal.retrieval.rules import agent_documents, ensure_indexed
    from focal.wiring import local_deps

    _loading_model()
    deps = local_deps(agent, db, model=model)
    config = load_agent(agent)
    digests = deps.rule_index.digests(tenant, config.id)
    changed = sum(1 for d in agent_documents(config, deps.embedder) if digests.get(d.rule_id) != d.digest)
    if changed:
        progress(f"indexing {changed} rule and example text(s) of {config.id!r} (first time, or after a change)…")
    ensure_indexed(deps, tenant, config)  # the first turn would do it; here it is announced
    from focal.adapters.litellm_model import warm_up_if_configured

    warm_up_if_configured(model, config.models.model)  # litellm's import here, not on the first model turn
    return LocalRunner(deps)


def _load(agent: str):  # noqa: ANN202 - an AgentConfig (loaded lazily: `focal --help` imports no engine)
    from focal.config.loader import load_agent

    return load_agent(agent)


def _turn(runner, args, agent_id: str, session: str, message: str, customer: str = "anonymous"):
    from focal.models.turn import TurnRequest

    return runner.turn(TurnRequest(
        tenant_id=args.tenant, agent_id=agent_id, session_id=session, customer_id=customer,
        turn_id=uuid.uuid4().hex, message=message,
    ))


def _show(result, as_json: bool, guards: frozenset[str] = frozenset()) -> None:
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), indent=2))
    else:
        colour = colour_for(sys.stdout)
        print(f"{paint('agent>', 'agent', colour)} {result.response}")
        print(format_trace(result, colour=colour, guards=guards))


def cmd_validate(args) -> int:
    from focal.config.gate import validate_file
    from focal.settings import get_settings

    gate = validate_file(args.file, model=get_settings().model)
    colour = colour_for(sys.stdout)
    if gate.problems:
        print(f"{args.file}: {paint(f'{len(gate.problems)} problem(s)', 'blocked', colour)}")
        for p in gate.problems:
            print(f"  {p}")
    else:
        a = gate.config
        assert a is not None
        print(f"{args.file}: {paint('OK', 'pass', colour)} — agent {a.id!r}: {len(a.scenarios)} scenarios, "
              f"{len(a.rules)} rules, {len(a.tools)} tools")
    if gate.warnings:
        print(f"{args.file}: {paint(f'{len(gate.warnings)} warning(s)', 'unverified', colour)}")
        for w in gate.warnings:
            print(f"  {w}")
    return 1 if gate.problems else 0


def cmd_schema(args) -> int:
    from focal.models.agent import agent_json_schema

    print(json.dumps(agent_json_schema(), indent=2))
    return 0


def cmd_turn(args) -> int:
    runner = _runner(args.agent, args.db, args.model, args.tenant)
    agent = _load(args.agent)
    result = _turn(runner, args, agent.id, args.session, args.message, args.customer)
    _show(result, args.json, guard_ids(agent))
    return 0 if result.success else 2


def cmd_chat(args) -> int:
    runner = _runner(args.agent, args.db, args.model, args.tenant)
    agent = _load(args.agent)
    agent_id = agent.id
    session = args.session or uuid.uuid4().hex[:12]
    header = f"Chatting with {agent_id} (session {session}). Empty line or Ctrl-D to leave."
    if args.json:  # stdout carries JSON only: the greeting, then one turn result per message
        print(header, file=sys.stderr)
        print(json.dumps({"greeting": agent.greeting}))
    else:
        print(header)
        print(f"{paint('agent>', 'agent', colour_for(sys.stdout))} {agent.greeting}")
    while True:
        try:
            line = input("you> ") if sys.stdin.isatty() else sys.stdin.readline()
        except EOFError:
            break
        message = line.strip()
        if not message:
            break
        _show(_turn(runner, args, agent_id, session, message, args.customer), args.json, guard_ids(agent))
    return 0


def cmd_demo(args) -> int:
    agent = _load(args.agent)
    model = args.model or agent.models.model  # FOCAL_MODEL / --model first, as `focal chat` does
    with tempfile.TemporaryDirectory() as tmp:
        runner = _runner(args.agent, str(Path(tmp) / "demo.db"), args.model, args.tenant)
        agent_id = agent.id
        how = f"model {model}" if model else "no model, no network"
        print(f"Focal demo: agent {agent_id!r} on the embedded defaults (MiniLM ONNX, SQLite, {how})\n")
        for message in agent.demo_messages:
            print(f"you>   {message}")
            _show(_turn(runner, args, agent_id, "demo", message, DEMO_CUSTOMER), args.json, guard_ids(agent))
            print()
    return 0


def cmd_test(args) -> int:
    from focal.cli.suite_command import run_tests

    return run_tests(args)


def cmd_index(args) -> int:
    from focal.cli.index import index_agent

    _, summary = index_agent(args.agent, args.tenant, args.db)
    print(summary)
    return 0



def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("focal")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


LAZY_COMMANDS = ("approve", "deny", "serve", "keys", "profile", "bench")  # their modules import what they need


def parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `focal` parser; with `command` (one of LAZY_COMMANDS or another command), the lazily imported
    commands other than it are left out: `focal test` does not import the server or the benchmarks."""

    def want(*names: str) -> bool:
        return command is None or command in names

    p = Parser(prog="focal", description="Focal: run, test and check customer-facing agents.",
               epilog="example:\n  focal validate examples/retail/agent.yaml\n  focal chat examples/retail/agent.yaml\n"
                      "Run `focal COMMAND --help` for a command's options.")
    p.add_argument("--version", action="version", version=f"focal {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def with_agent(name: str, help_: str) -> argparse.ArgumentParser:
        s = sub.add_parser(name, help=help_, description=help_)
        s.add_argument("agent", help="the agent YAML file (or its folder, which holds agent.yaml)")
        s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"),
                       help="tenant id the state is kept under (FOCAL_TENANT when set)")
        return s

    help_ = "list every problem of an agent file, sorted by line (exit 1 if any), and its warnings"
    s: argparse.ArgumentParser = sub.add_parser("validate", help=help_, description=help_)
    s.add_argument("file", help="the agent YAML file (or its folder)")
    s.set_defaults(func=cmd_validate)
    help_ = "print the agent file's JSON Schema (draft 2020-12) for editor completion"
    sub.add_parser("schema", help=help_, description=help_).set_defaults(func=cmd_schema)

    def conversing(name: str, help_: str, session_required: bool) -> argparse.ArgumentParser:
        s = with_agent(name, help_)
        s.add_argument("--session", required=session_required,
                       help="session id; reuse it to continue a conversation" + ("" if session_required else " (default: a new one)"))
        s.add_argument("--customer", default="anonymous", help="customer id (profile and memory are kept per customer)")
        s.add_argument("--db", default=".focal/focal.db", help="the local SQLite file that keeps sessions, profiles and turns")
        s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"),
                       help="litellm model name, e.g. openai/gpt-4o-mini (default: FOCAL_MODEL, else models.model "
                            "of the agent file, else offline)")
        s.add_argument("--json", action="store_true", help="print each turn result as JSON instead of the answer and trace")
        return s

    s = conversing("turn", "run one turn; state is kept in a local SQLite file", session_required=True)
    s.add_argument("--message", required=True, help="the customer's message")
    s.set_defaults(func=cmd_turn)
    conversing("chat", "talk to an agent (answer + compact trace)", session_required=False).set_defaults(func=cmd_chat)

    if want("approve", "deny"):
        from focal.cli.approve import add_parsers as add_approval_parsers

        add_approval_parsers(sub)  # `focal approve ID` / `focal deny ID`
    if want("serve"):
        from focal.cli.serve import add_parser as add_serve_parser

        add_serve_parser(sub)  # `focal serve`: the API Gateway routes on loopback
    if want("keys"):
        from focal.cli.keys import add_parser as add_keys_parser

        add_keys_parser(sub)  # `focal keys create|list|revoke`: scoped API keys, stored hashed
    if want("profile"):
        from focal.cli.profile import add_parser as add_profile_parser

        add_profile_parser(sub)  # `focal profile set|show`: a customer's facts in the local store

    s = with_agent("demo", "a scripted conversation on the embedded defaults")
    s.add_argument("--json", action="store_true", help="print each turn result as JSON instead of the answer and trace")
    s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"),
                   help="litellm model name (default: FOCAL_MODEL, else models.model of the agent file, else offline)")
    s.set_defaults(func=cmd_demo)

    s = with_agent("test", "run YAML suites of conversations; exit 1 on any failure")
    s.add_argument("tests", nargs="+", metavar="TESTS", help="one or more suite files (tests.yaml)")
    s.add_argument("-v", "--verbose", action="store_true",
                   help="show every turn, not only the failing ones, and (on stderr) the start-up time")
    s.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE: a testsuite per suite, a testcase per conversation")
    s.add_argument("--json", action="store_true", help="print the report as JSON (per suite) instead of text")
    s.add_argument("-k", dest="select", action="append", metavar="TEXT",
                   help="run only the conversations whose name contains TEXT (case-insensitive; repeat for more)")
    s.add_argument("-x", "--exitfirst", dest="stop_first", action="store_true",
                   help="stop at the first failing conversation (the rest, and later suites, are reported as not run)")
    s.add_argument("--live", action="store_true",
                   help="run against the configured model, ignoring the scripted outputs, and check only what holds "
                        "whatever a competent model says (tool calls, blocked tools, response texts, hard rules kept, "
                        "rejected/approval paths); the rest is reported as skipped, with the model's figures")
    s.add_argument("--model", default=os.environ.get("FOCAL_MODEL"),
                   help="with --live: litellm model name (default: FOCAL_MODEL, else models.model of the agent file)")
    s.set_defaults(func=cmd_test)

    s = with_agent("index", "embed and upsert the agent's rules and scenario examples (only what changed)")
    s.add_argument("--db", default=".focal/focal.db", help="the local index lives beside this SQLite file")
    s.set_defaults(func=cmd_index)

    if want("bench"):
        _bench_parsers(sub)
    explain(p)
    return p


def _bench_parsers(sub) -> None:  # noqa: ANN001 - the subparsers of `focal`
    b = sub.add_parser("bench", help="benchmarks that print figures", description="benchmarks that print figures")
    bsub = b.add_subparsers(dest="bench", required=True)
    from focal.bench.overhead import add_parser as add_overhead_parser

    add_overhead_parser(bsub)  # `focal bench overhead`: offline, with an instant model, with model latency
    from focal.bench.intents_cli import add_parser as add_intents_parser

    add_intents_parser(bsub)  # `focal bench intents`: Banking77 / CLINC150 beside published figures
    from focal.bench.floor import add_parser as add_floor_parser

    add_floor_parser(bsub)  # `focal bench floor`: messages below the sensor's no-intent floor
    from focal.bench.enforcement import add_parser as add_enforcement_parser

    add_enforcement_parser(bsub)  # `focal bench enforcement`: precision/recall per lane and check, latency per lane
    from focal.bench.coldstart import add_parser as add_coldstart_parser
    from focal.bench.load import add_parser as add_load_parser

    add_load_parser(bsub)  # `focal bench load`: concurrent conversations against focal serve
    add_coldstart_parser(bsub)  # `focal bench coldstart`: import + init per stage handler
    from focal.bench.bands import add_parser as add_bands_parser

    add_bands_parser(bsub)  # `focal bench bands`: the approval gate's decisions over the example suites
    from focal.bench.drafts import add_parser as add_drafts_parser

    add_drafts_parser(bsub)  # `focal bench drafts`: the answer checks on labelled drafts written blind
    from focal.bench.relevance import add_parser as add_relevance_parser

    add_relevance_parser(bsub)  # `focal bench relevance`: the relevance check on labelled on/off-topic drafts
    from focal.bench.draft_speed import add_parser as add_draft_speed_parser

    add_draft_speed_parser(bsub)  # `focal bench draftspeed`: ms to read one draft offline, by size (1-8 KB)
    from focal.bench.tool_calls import add_parser as add_tool_calls_parser

    add_tool_calls_parser(bsub)  # `focal bench tools`: python tool workers: start, per-call overhead, replacement
    from focal.bench.startup import add_parser as add_startup_parser

    add_startup_parser(bsub)  # `focal bench startup`: focal test's time to its first conversation, cold and warm
    from focal.bench.language import add_parser as add_language_parser

    add_language_parser(bsub)  # `focal bench language`: messages and answers placed in a language, CPU per call
    from focal.bench.languages import add_parser as add_languages_parser

    add_languages_parser(bsub)  # `focal bench languages`: intent accuracy per language beside English, same rows
    from focal.bench.handoff import add_parser as add_handoff_parser

    add_handoff_parser(bsub)  # `focal bench handoff`: requests for a person caught / false hand-offs per language

    def bench_prevalidation(args) -> int:
        from focal.bench.prevalidation_cli import cli

        return cli(args)

    s = bsub.add_parser("prevalidation", help="caught / false-alarm counts of pre-validation on a labelled YAML set")
    s.add_argument("file", help="YAML with lists under attacks, dangerous, ordinary; a folder of messages.LANG.yaml "
                                "files (figures per language); or `shared` (sources never trained on)")
    s.add_argument("--show", action="store_true", help="also list the misses and false alarms")
    s.set_defaults(func=bench_prevalidation)

    def bench_retrieval(args) -> int:
        from focal.bench.retrieval_cli import cli

        return cli(args)

    s = bsub.add_parser("retrieval", help="recall@k and threshold trade-off on a labelled set; index scale with --rules")
    s.add_argument("agent", nargs="?", help="the agent YAML file (labelled mode)")
    s.add_argument("--cases", help="labelled set (default: retrieval.yaml beside the agent): YAML with `agent: ID` and "
                   "`cases: [{message, scenario, step, expected: [rule ids]}]`, scenario/step null outside a flow; "
                   "docs/reference/benchmarks.md")
    s.add_argument("--k", default="1,3,5,10", help="comma-separated k for recall@k")
    s.add_argument("--show", action="store_true", help="also per-rule figures and the missed cases")
    s.add_argument("--without-examples", action="store_true",
                   help="measure the agent with its rules' examples removed (rules as first written: condition and action)")
    s.add_argument("--rules", help="synthetic index sizes, e.g. 1000,10000,100000 (scale mode)")
    s.add_argument("--queries", type=int, default=200, help="queries per size (scale mode)")
    s.add_argument("--embed-sample", type=int, default=500, help="texts for MiniLM throughput, 0 to skip (scale mode)")
    s.add_argument("--agent-rules", default="150,500,max",
                   help="sizes of the real large agent (retail plus synthetic rules; max: as many as an agent file "
                        "may hold), measured at its threshold (scale mode)")
    s.set_defaults(func=bench_retrieval)
    coldstart = bsub.choices["coldstart"]
    coldstart.set_defaults(func=_announced(coldstart.get_default("func"),
                                           "measuring each stage function in fresh interpreters, without and with SnapStart "
                                           "(a few minutes; the first run also builds the Lambda layout)…"))


def _announced(func, message: str):  # noqa: ANN001, ANN202
    def run(args) -> int:  # noqa: ANN001
        progress(message)
        return func(args)

    return run


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    words = sys.argv[1:] if argv is None else argv
    first = next((w for w in words if not w.startswith("-")), None)
    command = first if first and "-h" not in words and "--help" not in words else None
    args = parser(command).parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `focal validate … | head`: the reader left; say nothing more
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would raise again
        return 141
    except Exception as exc:  # a clear message, not a stack trace, for the operator
        from focal.adapters.aws import problem
        from focal.config.loader import AgentConfigInvalid

        if isinstance(exc, AgentConfigInvalid):
            print(str(exc), file=sys.stderr)
            return 1
        aws_problem = problem(exc)  # no region, no credentials, an error AWS answered: one line
        if aws_problem:
            print(f"{_command_name(args)}: {aws_problem}", file=sys.stderr)
            return 2
        raise


def _command_name(args: argparse.Namespace) -> str:
    words = ["focal", args.command]
    words += [getattr(args, f"{args.command}_command", None) or getattr(args, args.command, None) or ""]
    return " ".join(w for w in words if isinstance(w, str) and w)


if __name__ == "__main__":
    sys.exit(main())
