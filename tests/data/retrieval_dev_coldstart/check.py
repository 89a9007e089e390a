# Checks the labelled sets against their agent files: parse, ids exist, scope respected, counts.
import sys, yaml
ok = True
for agent in ["gym", "vet", "dental"]:
    a = yaml.safe_load(open(f"{agent}/agent.yaml"))
    rules = {r["id"]: r for r in a["rules"]}
    steps = {s["id"]: {st["id"] for st in s["steps"]} for s in a["scenarios"]}
    d = yaml.safe_load(open(f"{agent}.yaml"))
    assert d["agent"] == a["id"]
    cases = d["cases"]
    n_empty = n_two = 0
    msgs = set()
    for i, c in enumerate(cases):
        assert set(c) == {"message", "scenario", "step", "expected"}, c
        assert c["message"] not in msgs, c; msgs.add(c["message"])
        sc, st = c["scenario"], c["step"]
        if sc is not None:
            assert sc in steps and st in steps[sc], c
        else:
            assert st is None, c
        for rid in c["expected"]:
            if rid not in rules:
                print("unknown rule", rid, c); ok = False; continue
            r = rules[rid]; scope = r.get("scope", "GLOBAL")
            if scope == "SCENARIO" and sc != r["scope_id"]:
                print("scenario rule out of scope", rid, c); ok = False
            if scope == "STEP" and f"{sc}.{st}" != r["scope_id"]:
                print("step rule out of scope", rid, c); ok = False
        n_empty += not c["expected"]; n_two += len(c["expected"]) >= 2
    used = {r for c in cases for r in c["expected"]}
    print(f"{agent}: {len(cases)} cases, {n_empty} expected [], {n_two} with 2 rules, "
          f"{len(rules)} rules ({sum(1 for r in rules.values() if r.get('scope','GLOBAL')=='GLOBAL')} GLOBAL), "
          f"rules never expected: {sorted(set(rules) - used)}")
print("OK" if ok else "FAIL"); sys.exit(0 if ok else 1)
