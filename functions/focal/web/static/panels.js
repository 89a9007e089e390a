// The playground's marks on an answer the customer got in place of another, and the live flow panel.
// Uses h, badge and kv of app.js; every server value is shown as text, never as HTML.
"use strict";

// What the customer did not get (trace.replaced, trace.blocked_actions): red, the rules in the line, the reasons
// in its tooltip and in the line's expansion.
function turnMarks(t) {
  if (!t) return [];
  const out = [];
  const r = t.replaced;
  if (r) {
    const why = r.rules.map((x) => `${x.rule_id} (${x.lanes.join(", ")}): ${x.reasons.join("; ")}`);
    const said = r.said + (r.regenerations ? ` after ${r.regenerations} regeneration(s)` : "");
    out.push(h("details", { class: "mark replaced-mark", "data-rules": r.rule_ids.join(" "), title: [said, ...why].join("\n") },
      h("summary", {}, badge("REPLACED", "blocked"), ` by ${r.rule_ids.join(", ") || "no rule named"}`),
      h("ul", {}, h("li", {}, said), why.map((w) => h("li", {}, w)),
        r.not_regenerated ? h("li", {}, `not regenerated: ${r.not_regenerated}`) : "")));
  }
  for (const a of t.blocked_actions || []) {
    out.push(h("details", { class: "mark blocked-action", "data-tool": a.tool_id, "data-rules": a.rule_ids.join(" "), title: a.reasons.join("\n") },
      h("summary", {}, badge("ACTION BLOCKED", "blocked"), ` ${a.tool_id} by ${a.rule_ids.join(", ")}`),
      h("ul", {}, a.reasons.map((w) => h("li", {}, w)))));
  }
  return out;
}

// Where the session stands now (GET …/sessions/{id}/flow): the active scenario's steps with the current one
// highlighted, the flow stack, the offer, the slots and variables as the server masked them.
function renderFlow(box, f) {
  box.dataset.session = f.session_id;
  box.dataset.turns = String(f.turn_count);
  if (!f.started) { box.replaceChildren(h("p", { class: "muted" }, "no turn in this session yet")); return; }
  const sc = f.scenario;
  const step = (st) => h("li", { "data-step": st.id, class: st.current ? "current" : "", "aria-current": st.current ? "step" : null },
    st.id, st.entry ? " (entry)" : "", st.call ? ` → calls ${st.call}` : "",
    st.slots.length ? ` · asks ${st.slots.join(", ")}` : "", st.action.length ? ` · runs ${st.action.join(", ")}` : "",
    st.confirms ? " · confirms first" : "", st.effects_done ? " · done" : "");
  const frame = (fr) => h("li", { "data-frame": fr.scenario_id, "data-step": fr.step_id },
    `${fr.scenario_name || fr.scenario_id}/${fr.step_id} · ${fr.called ? "waits for the flow it called" : "interrupted"} (${fr.state})`,
    fr.stale ? " · stale" : "", kv(fr.slots, "slot"));
  box.replaceChildren(
    h("p", { class: "flow-head" }, sc ? h("b", { "data-scenario": sc.id }, sc.name || sc.id) : "no active flow", ` · ${f.flow_state}`,
      f.pending_approval_id ? [" ", badge("awaiting approval", "warn")] : ""),
    sc ? h("ol", { class: "steps" }, sc.steps.map(step)) : "",
    sc && !sc.known ? h("p", { class: "warn" }, `the agent has no scenario ${sc.id} any more`) : "",
    h("h4", {}, "flow stack (resumed first on top)"),
    f.stack.length ? h("ol", { class: "stack" }, f.stack.map(frame)) : h("p", { class: "muted" }, "empty"),
    f.offer ? h("p", { "data-offer": f.offer.kind }, `offered: ${f.offer.kind} ${f.offer.scenario_id}`) : "",
    h("h4", {}, "slots"), kv(f.slots, "slot"), h("h4", {}, "variables"), kv(f.variables, "variable"));
}
