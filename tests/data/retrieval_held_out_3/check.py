"""Checks the third held-out set against the agent files (ids, scenario/step names, scope, no copied messages).
Reads only examples/*/agent.yaml and the format file tests/data/retrieval_held_out/cards.yaml; runs no project code."""
import pathlib
import re
import sys

import yaml

MAIN = pathlib.Path(__file__).resolve().parents[3]  # the checkout
HERE = pathlib.Path(__file__).parent
AGENTS = ["retail", "airline", "telecom", "cards", "tutorial", "guardrails", "enforcement_demo"]

def norm(s):
    """Letters and digits only, lower case: catches copies that differ only in punctuation."""
    return re.sub(r"[^0-9a-záéíóúñäöüßàèçêâ]+", " ", s.lower()).strip()

def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)

fmt = yaml.safe_load((MAIN / "tests/data/retrieval_held_out/cards.yaml").read_text())
fmt_msgs = {norm(c["message"]) for c in fmt["cases"]}
bad = 0
total = 0
for name in AGENTS:
    agent = yaml.safe_load((MAIN / f"examples/{name}/agent.yaml").read_text())
    agent_strings = {norm(s) for s in strings(agent)}
    rules = {r["id"]: r for r in agent.get("rules", [])}
    steps = {s["id"]: {st["id"] for st in s.get("steps", [])} for s in agent.get("scenarios", [])}
    data = yaml.safe_load((HERE / f"{name}.yaml").read_text())
    first = (HERE / f"{name}.yaml").read_text().splitlines()[0]
    errs = []
    if not first.startswith("# Third held-out set"):
        errs.append("first line is not the held-out comment")
    if data["agent"] != agent["id"]:
        errs.append(f"agent {data['agent']} != {agent['id']}")
    seen = set()
    for i, c in enumerate(data["cases"]):
        if set(c) != {"message", "scenario", "step", "expected"}:
            errs.append(f"case {i}: keys {sorted(c)}")
        m, sc, st, exp = c["message"], c["scenario"], c["step"], c["expected"]
        if m.strip().lower() in seen:
            errs.append(f"case {i}: duplicate message")
        seen.add(m.strip().lower())
        if norm(m) in agent_strings or norm(m) in fmt_msgs:
            errs.append(f"case {i}: message copied verbatim: {m!r}")
        if (sc is None) != (st is None):
            errs.append(f"case {i}: scenario/step must both be set or both null")
        if sc is not None and (sc not in steps or st not in steps[sc]):
            errs.append(f"case {i}: unknown scenario/step {sc}/{st}")
        if len(set(exp)) != len(exp):
            errs.append(f"case {i}: duplicate id in expected")
        for rid in exp:
            r = rules.get(rid)
            if r is None:
                errs.append(f"case {i}: unknown rule {rid}")
                continue
            scope = r.get("scope", "GLOBAL")
            if scope == "SCENARIO" and r["scope_id"] != sc:
                errs.append(f"case {i}: {rid} is scoped to scenario {r['scope_id']}, case is in {sc}")
            if scope == "STEP" and r["scope_id"] != f"{sc}.{st}":
                errs.append(f"case {i}: {rid} is scoped to step {r['scope_id']}, case is in {sc}.{st}")
            if r.get("guarded_tool_ids") and not r["condition_text"].startswith("The customer"):
                errs.append(f"case {i}: {rid} is an action guard about the agent's next action")
    n = len(data["cases"])
    empty = sum(1 for c in data["cases"] if not c["expected"])
    total += n
    status = "ok" if not errs else "ERRORS"
    print(f"{name:18s} agent={data['agent']:17s} cases={n:3d} empty={empty:3d} {status}")
    for e in errs:
        print("   ", e)
    bad += len(errs)
print("total cases", total)
sys.exit(1 if bad else 0)
