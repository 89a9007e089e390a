#!/usr/bin/env python3
"""Focal CDK app: one stack per tenant environment.

    npx aws-cdk@2.1148.1 deploy -c tenant=acme       # stack Focal-acme (cdk.json runs this file)
    python3 infra/app.py -c tenant=acme [-o DIR]     # the same synth without the CLI, into DIR
                                                     # (default cdk.out/<tenant>, kept)

Context (`-c key=value`, repeatable) is read the same way in both cases: the CLI passes it in
CDK_CONTEXT_JSON, run directly it comes from the command line. Options: focal_infra/options.py.
Run under the system python3 without the project's packages, it re-runs itself with .venv/bin/python
(so `npx aws-cdk ...` works from a fresh clone after `make install`, venv activated or not).
Run as a script it prints CDK's warnings and a cdk-nag AwsSolutions summary and fails on any warning or
finding left (focal_infra/synth_gate.py, focal_infra/nag.py); build_app alone does not.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV_PYTHON = HERE.parent / ".venv" / "bin" / "python"
sys.path.insert(0, str(HERE))

USAGE = "usage: app.py [-c|--context KEY=VALUE]... [-o|--output DIR]"


def _ensure_project_python() -> None:
    try:
        import aws_cdk  # noqa: F401
    except ImportError:
        in_venv = Path(sys.prefix).resolve() == VENV_PYTHON.parent.parent.resolve()
        if VENV_PYTHON.exists() and not in_venv and not os.environ.get("FOCAL_APP_REEXEC"):
            os.environ["FOCAL_APP_REEXEC"] = "1"
            os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), __file__, *sys.argv[1:]])
        sys.exit("infra/app.py: aws-cdk-lib is not installed for this python. Run `make install` first "
                 "(it creates .venv), then `make deploy TENANT=...` or, with the venv active, npx aws-cdk@2.1148.1 ...")


def parse_args(argv: list[str]) -> tuple[dict[str, object], str | None]:
    """(context, output folder) from `-c key=value` / `--context key=value` / `-o DIR` arguments."""
    context: dict[str, object] = {}
    outdir = None
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("-c", "--context", "-o", "--output"):
            if not args:
                raise SystemExit(f"{arg} needs a value\n{USAGE}")
            value = args.pop(0)
        elif arg.startswith(("--context=", "--output=")):
            arg, value = arg.split("=", 1)
        else:
            raise SystemExit(f"unknown argument {arg!r}\n{USAGE}")
        if arg in ("-o", "--output"):
            outdir = value
            continue
        key, sep, raw = value.partition("=")
        if not sep or not key:
            raise SystemExit(f"context {value!r}: use KEY=VALUE\n{USAGE}")
        # like the CDK CLI: strings, except JSON lists and objects (e.g. aws:cdk:bundling-stacks=[])
        context[key] = json.loads(raw) if raw[:1] in "[{" else raw
    return context, outdir


def build_app(app=None):
    import aws_cdk as cdk

    from focal_infra.stack import FocalStack, tenant_from_context

    app = app or cdk.App()
    tenant = tenant_from_context(app)
    env = None
    if os.environ.get("CDK_DEFAULT_ACCOUNT") and os.environ.get("CDK_DEFAULT_REGION"):
        env = cdk.Environment(account=os.environ["CDK_DEFAULT_ACCOUNT"], region=os.environ["CDK_DEFAULT_REGION"])
    stack = FocalStack(
        app,
        f"Focal-{tenant}",
        tenant=tenant,
        env=env,
        description=f"Focal alignment engine, tenant environment {tenant}",
        tags={"focal:tenant": tenant},
    )
    return app, stack


def main(argv: list[str]) -> int:
    import aws_cdk as cdk

    from focal_infra import synth_gate
    from focal_infra.testing import cdk_json_context

    context, outdir = parse_args(argv)
    if os.environ.get("CDK_OUTDIR"):  # run by the CDK CLI: it passes context and output folder itself
        application = cdk.App(context=context or None)
    else:
        merged = {**cdk_json_context(), **context}
        tenant = str(merged.get("tenant") or "dev")
        application = cdk.App(context=merged, outdir=outdir or str(HERE.parent / "cdk.out" / tenant))
    application, focal_stack = build_app(application)
    # CDK's warnings and cdk-nag AwsSolutions (focal_infra/nag.py), printed; any left fails the synth
    # (and so `cdk deploy`, which runs this app first).
    return synth_gate.run(application, focal_stack, out=sys.stdout)


if __name__ == "__main__":
    _ensure_project_python()
    sys.exit(main(sys.argv[1:]))
