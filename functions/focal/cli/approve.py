"""`focal approve ID` / `focal deny ID`: answer a pending approval request against the local SQLite state.

The agent file is needed to run the approved tools (`--agent`, or FOCAL_AGENT_FILE). Exit 0 when
the answer was taken (and, approving, every tool ran ok), 1 when it was refused (unknown, already
decided, expired) or a tool failed.
"""

from __future__ import annotations

import json
import os
import sys


def add_parsers(sub) -> None:  # noqa: ANN001 - argparse's private subparsers type
    for name, help_ in (("approve", "approve a pending approval request: its action runs once"),
                        ("deny", "deny a pending approval request: nothing runs")):
        s = sub.add_parser(name, help=help_, description=help_)
        s.add_argument("approval_id", metavar="ID", help="the approval request's id (from the turn result or the trace)")
        s.add_argument("--agent", default=os.environ.get("FOCAL_AGENT_FILE"),
                       help="the agent YAML file (default: FOCAL_AGENT_FILE)")
        s.add_argument("--tenant", default=os.environ.get("FOCAL_TENANT", "local"),
                       help="tenant id the request belongs to (FOCAL_TENANT when set)")
        s.add_argument("--db", default=".focal/focal.db", help="the local SQLite file that holds the pending request")
        s.add_argument("--json", action="store_true", help="print the outcome as JSON")
        s.set_defaults(func=cmd_answer, approve=name == "approve")


def cmd_answer(args) -> int:  # noqa: ANN001
    from focal.pipeline.approval_answer import answer
    from focal.wiring import local_deps

    if not args.agent:
        print("focal approve/deny needs the agent file: --agent FILE or FOCAL_AGENT_FILE", file=sys.stderr)
        return 2
    result = answer(local_deps(args.agent, args.db), args.tenant, args.approval_id, approve=args.approve)
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        print(result.message)
        for call in result.tool_calls:
            print(f"  tool {call['tool_id']}: {call['status']}" + (f" ({call['error']})" if call.get("error") else ""))
        if result.response:
            print(f"agent> {result.response}")
    return 0 if result.ok else 1
