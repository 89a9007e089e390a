// The Focal playground: chat with an agent through `focal serve` and see each turn's trace.
// Plain DOM, no dependencies. Every value from the server is shown with textContent, never as HTML.
"use strict";

const KEY_STORE = "focal.apiKey";
const API = "/playground/api";
const $ = (id) => document.getElementById(id);
const state = { agent: null, session: null, traces: [], selected: -1, agents: [] };

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k === "style") el.style.cssText = v; // CSSOM: allowed by the page's CSP, a style attribute is not
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const json = (v) => h("pre", { class: "json" }, JSON.stringify(v, null, 1));
const ms = (v) => (typeof v === "number" ? v.toFixed(1) : "—");
const badge = (text, cls) => h("span", { class: "badge " + (cls || "") }, text);
const newSessionId = () => "pg-" + Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, "0")).join("");

function setStatus(text, busy) {
  const s = $("status");
  s.textContent = text || "";
  s.dataset.state = busy ? "busy" : "idle";
}

async function call(method, path, body) {
  const headers = { "x-api-key": sessionStorage.getItem(KEY_STORE) || "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = $("customer-token").value.trim();
  if (token && path.endsWith("/turns") && method === "POST") headers["X-Focal-Customer-Token"] = token;
  const resp = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let doc = null;
  try { doc = await resp.json(); } catch (e) { doc = null; }
  if (resp.status === 401 && !path.endsWith("/turns")) askKey("The server refused this key (401).");
  return { status: resp.status, doc };
}
const errorText = (r) => (r.doc && r.doc.error ? `${r.status} ${r.doc.error.code}: ${r.doc.error.message}` : `HTTP ${r.status}`);

// --- key -------------------------------------------------------------------------------------------
function askKey(message) {
  $("key-error").textContent = message || "";
  if (!$("key-dialog").open) $("key-dialog").showModal();
}

async function useKey(ev) {
  ev.preventDefault();
  sessionStorage.setItem(KEY_STORE, $("key-input").value.trim());
  const r = await call("GET", `${API}/agents`);
  if (r.status !== 200) { $("key-error").textContent = errorText(r); return; }
  $("key-input").value = "";
  $("key-dialog").close();
  loadAgents(r.doc.items);
}

// --- agents, sessions ------------------------------------------------------------------------------
function loadAgents(agents) {
  state.agents = agents;
  const sel = $("agent-select");
  sel.replaceChildren(...agents.map((a) => h("option", { value: a.id }, `${a.name} (${a.id})`)));
  if (agents.length) selectAgent(agents[0].id);
}

function selectAgent(id) {
  state.agent = id;
  newSession();
  refreshSessions();
  refreshApprovals();
}

function newSession() {
  state.session = newSessionId();
  state.traces = [];
  state.selected = -1;
  $("session-id").textContent = state.session;
  const agent = state.agents.find((a) => a.id === state.agent);
  $("transcript").replaceChildren(agent ? h("div", { class: "msg agent greeting" }, agent.greeting) : "");
  $("transcript").dataset.turns = "0";
  $("test-yaml").hidden = true;
  $("test-download").hidden = true;
  renderTrace(null);
  renderFlow($("flow-view"), { session_id: state.session, started: false, turn_count: 0 });
}

async function refreshFlow() {
  const session = state.session;
  if (!state.agent || !session) return;
  const r = await call("GET", `${API}/agents/${encodeURIComponent(state.agent)}/sessions/${encodeURIComponent(session)}/flow`);
  if (session !== state.session) return; // another session was opened meanwhile
  if (r.status !== 200) { $("flow-view").replaceChildren(h("p", { class: "error" }, errorText(r))); return; }
  renderFlow($("flow-view"), r.doc.items);
}

async function refreshSessions() {
  if (!state.agent) return;
  const r = await call("GET", `${API}/agents/${encodeURIComponent(state.agent)}/sessions`);
  const list = $("sessions");
  if (r.status !== 200) { list.replaceChildren(h("li", { class: "error" }, errorText(r))); return; }
  list.replaceChildren(...r.doc.items.map((s) => h("li", { "data-session": s.session_id },
    h("button", { type: "button", class: "link", onclick: () => openSession(s.session_id) }, s.session_id),
    ` ${s.turns} turn(s) · ${s.customer_id || "?"} · ${new Date(s.last_at * 1000).toLocaleTimeString()} `,
    h("button", { type: "button", class: "replay", onclick: () => replaySession(s) }, "replay"))));
}

async function loadTraces(session) {
  const r = await call("GET", `${API}/agents/${encodeURIComponent(state.agent)}/sessions/${encodeURIComponent(session)}/turns`);
  if (r.status !== 200) { $("trace-note").textContent = "Trace not available: " + errorText(r); return null; }
  return r.doc.items;
}

async function openSession(session) {
  const traces = await loadTraces(session);
  if (!traces) return;
  state.session = session;
  $("session-id").textContent = session;
  state.traces = traces;
  $("transcript").replaceChildren();
  traces.forEach((t, i) => addExchange(t.message, t.response, t.execution_path, i, t));
  selectTurn(traces.length - 1);
  await refreshFlow();
}

// Replay: the session's messages again, in a new session as the same customer, compared turn by turn.
async function replaySession(s) {
  const traces = await loadTraces(s.session_id);
  if (!traces) return;
  newSession();
  if (s.customer_id && s.customer_id !== "anonymous") $("customer-id").value = s.customer_id;
  const rows = [];
  for (const t of traces) {
    const result = await sendMessage(t.message);
    const same = result && result.execution_path === t.execution_path && result.response === t.response;
    rows.push(h("li", { class: same ? "same" : "changed" }, `turn ${t.turn_number}: `, same ? "same answer" : "changed"));
  }
  $("replay-result").replaceChildren(h("p", {}, `Replay of ${s.session_id} → ${state.session}`), h("ul", {}, rows));
  refreshSessions();
}

// --- chat ------------------------------------------------------------------------------------------
// `trace` (when readable) marks an answer that replaced a blocked draft, and the actions a guard stopped.
function addExchange(message, response, path, index, trace) {
  const tr = $("transcript");
  const marks = turnMarks(trace);
  tr.append(h("div", { class: "msg user" }, message));
  tr.append(h("div", { class: `msg agent path-${path}` + (marks.length ? " replaced" : ""), "data-turn": index, onclick: () => selectTurn(index) },
    response, " ", badge(path, "path"), marks));
  tr.dataset.turns = String(tr.querySelectorAll(".msg.agent[data-turn]").length);
  tr.scrollTop = tr.scrollHeight;
}

async function sendMessage(message) {
  setStatus("thinking…", true);
  const body = { message };
  const customer = $("customer-id").value.trim();
  if (customer) body.customer_id = customer;
  const path = `/v1/agents/${encodeURIComponent(state.agent)}/sessions/${encodeURIComponent(state.session)}/turns`;
  const r = await call("POST", path, body);
  if (!r.doc || r.doc.response === undefined) {
    $("transcript").append(h("div", { class: "msg error" }, errorText(r)));
    setStatus("", false);
    return null;
  }
  const traces = await loadTraces(state.session);
  if (traces) state.traces = traces;
  const last = state.traces[state.traces.length - 1];
  addExchange(message, r.doc.response, r.doc.execution_path, state.traces.length - 1,
    last && last.turn_id === r.doc.turn_id ? last : null);
  selectTurn(state.traces.length - 1);
  await refreshFlow();
  if (r.doc.approval) refreshApprovals();
  setStatus("", false);
  return r.doc;
}

async function onSend(ev) {
  ev.preventDefault();
  const input = $("message-input");
  const message = input.value.trim();
  if (!message || $("status").dataset.state === "busy") return;
  input.value = "";
  await sendMessage(message);
  refreshSessions();
}

// --- save as test ----------------------------------------------------------------------------------
async function saveAsTest() {
  const r = await call("GET", `${API}/agents/${encodeURIComponent(state.agent)}/sessions/${encodeURIComponent(state.session)}/test`);
  const area = $("test-yaml");
  area.hidden = false;
  if (r.status !== 200) { area.value = errorText(r); area.dataset.ready = "error"; return; }
  area.value = r.doc.items.yaml;
  area.dataset.ready = "yes";
  const link = $("test-download");
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([r.doc.items.yaml], { type: "application/yaml" }));
  link.download = r.doc.items.file_name;
  link.hidden = false;
}

// --- approvals -------------------------------------------------------------------------------------
async function refreshApprovals() {
  const r = await call("GET", `${API}/approvals`);
  const list = $("approvals");
  if (r.status === 403) { list.replaceChildren(h("li", { class: "muted" }, "this key has no 'approve' scope")); return; }
  if (r.status !== 200) { list.replaceChildren(h("li", { class: "error" }, errorText(r))); return; }
  if (!r.doc.items.length) { list.replaceChildren(h("li", { class: "muted" }, "none")); return; }
  list.replaceChildren(...r.doc.items.map((a) => h("li", { "data-approval": a.approval_id },
    h("b", {}, a.tool_id), ` · ${a.agent_id}/${a.session_id} · confidence ${a.confidence.toFixed(2)}`,
    json(a.arguments),
    h("ul", {}, a.guard_verdicts.map((g) => h("li", { class: g.passed ? "" : "blocked" }, `${g.rule_id}: ${g.passed ? "passed" : "FAILED"}`))),
    h("button", { type: "button", class: "approve", onclick: () => decide(a, "approve") }, "Approve"),
    h("button", { type: "button", class: "deny", onclick: () => decide(a, "deny") }, "Deny"))));
}

async function decide(a, decision) {
  const r = await call("POST", `/v1/approvals/${encodeURIComponent(a.approval_id)}`, { decision });
  setStatus(r.status === 200 ? `${decision === "deny" ? "denied" : "approved"} ${a.approval_id}` : errorText(r), false);
  await refreshApprovals();
  if (a.session_id === state.session) openSession(state.session);
}

// --- the trace panels ------------------------------------------------------------------------------
function selectTurn(index) {
  state.selected = index;
  document.querySelectorAll(".msg.agent").forEach((el) => el.classList.toggle("selected", Number(el.dataset.turn) === index));
  renderTrace(state.traces[index] || null);
}

function panel(id, ...content) { $(id).querySelector(".body").replaceChildren(...content); }
function table(headers, rows) {
  return h("table", {}, h("tr", {}, headers.map((x) => h("th", {}, x))), rows);
}
function kv(obj, kind) {
  const entries = Object.entries(obj || {});
  return entries.length ? h("dl", {}, entries.map(([k, v]) => [h("dt", {}, k),
    h("dd", kind ? { ["data-" + kind]: k } : {}, typeof v === "object" ? JSON.stringify(v) : String(v))])) : h("p", { class: "muted" }, "none");
}

function renderTrace(t) {
  $("trace").dataset.turn = t ? t.turn_id : "";
  $("trace-turn").textContent = t ? `${t.turn_number} · ${t.execution_path}` : "—";
  $("trace-note").textContent = t && t.error ? `error: ${JSON.stringify(t.error)}` : "";
  if (!t) { document.querySelectorAll("#trace .panel .body").forEach((b) => b.replaceChildren()); return; }
  const max = Math.max(1, ...t.timeline.map((s) => s.ms || 0));
  panel("panel-timeline", ...t.timeline.map((s) => h("div", { class: "stage" + (s.ran ? "" : " idle"), "data-stage": s.stage },
    h("span", { class: "name" }, s.stage), h("span", { class: "bar", style: `width:${s.ran ? Math.max(1, 100 * s.ms / max) : 0}%` }),
    h("span", { class: "ms" }, s.ran ? `${ms(s.ms)} ms` : (s.stage === "persist" ? "writes this record" : "did not run")))),
    h("p", {}, `total ${ms(t.total_ms)} ms · confidence ${t.confidence}`));
  const i = t.intent;
  panel("panel-intent", h("p", {}, h("b", {}, i.label || "none"), ` ${Number(i.confidence).toFixed(3)} · ${i.source}`,
      i.fast_path ? ` · fast path (${i.fast_path_reason})` : ""),
    table(["scenario", "label", "score"], i.scores.map((s) => h("tr", {}, h("td", {}, s.scenario_id), h("td", {}, s.label), h("td", {}, s.score.toFixed(3))))),
    h("h4", {}, "entities"), kv(i.entities), h("h4", {}, "confidence factors"),
    table(["factor", "value", "why"], Object.entries(t.confidence_factors).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v), h("td", {}, t.confidence_reasons[k] || "")))),
    t.prevalidation.length ? h("p", { class: "blocked" }, "pre-validation: " + t.prevalidation.map((c) => `${c.name} (${c.reason})`).join("; ")) : "",
    i.notes.length ? h("ul", { class: "notes" }, i.notes.map((n) => h("li", {}, n))) : "");
  const d = t.decision;
  panel("panel-commands", t.commands.length ? table(["command", "flow", "slot", "value"], t.commands.map((c) =>
      h("tr", { "data-command": c.name }, h("td", {}, c.name), h("td", {}, c.flow || ""), h("td", {}, c.slot || ""), h("td", {}, c.value === null || c.value === undefined ? "" : JSON.stringify(c.value)))))
      : h("p", { class: "muted" }, "no commands"),
    h("p", {}, `decision: ${d.action} · ${d.scenario_id || "no scenario"}${d.step_id ? "/" + d.step_id : ""} · executed: ${(d.executed || []).join(", ") || "none"}`),
    (d.blocked_by || []).length ? h("p", { class: "blocked" }, "blocked by " + d.blocked_by.join(", ")) : "",
    h("ul", { class: "notes" }, (d.notes || []).map((n) => h("li", {}, n))));
  const flow = (f, label) => h("div", { class: "flow", "data-when": label }, h("h4", {}, label),
    h("p", {}, `${f.scenario || "idle"}${f.step ? "/" + f.step : ""} · ${f.flow_state}`),
    h("p", {}, "stack: " + (f.stack.map((s) => `${s.scenario_id}/${s.step_id}`).join(" ← ") || "empty")),
    h("h4", {}, "slots"), kv(f.slots), h("h4", {}, "variables"), kv(f.variables));
  panel("panel-flow", h("div", { class: "cols" }, flow(t.flow.before, "before"), flow(t.flow.after, "after")));
  panel("panel-rules", table(["rule", "scope", "score", "retrieved", "matched", "reason"], t.rules.map((r) =>
    h("tr", { "data-rule": r.rule_id, class: r.matched ? "matched" : "" }, h("td", {}, r.rule_id), h("td", {}, r.scope || ""),
      h("td", {}, r.score === null ? "" : Number(r.score).toFixed(3)), h("td", {}, r.retrieved ? r.retrieval : "no"),
      h("td", {}, r.matched ? "yes" : "no"), h("td", {}, r.reason)))));
  panel("panel-tools", ...(t.tools.length ? t.tools.map((c) => h("div", { class: "tool " + (c.status === "blocked" ? "blocked" : ""), "data-tool": c.tool_id, "data-status": c.status },
      h("p", {}, h("b", {}, c.tool_id), " ", badge(c.status === "blocked" ? "BLOCKED" : c.status, c.status), ` ${ms(c.ms)} ms · ${c.trigger}`),
      c.error ? h("p", { class: "error" }, c.error) : "",
      h("div", { class: "cols" }, h("div", {}, h("h4", {}, "arguments"), json(c.arguments)), h("div", {}, h("h4", {}, "outputs"), json(c.outputs))),
      c.guards.length ? h("ul", {}, c.guards.map((g) => h("li", { class: g.passed ? "passed" : "blocked", "data-guard": g.rule_id },
        `guard ${g.rule_id}: ${g.passed ? "passed" : "BLOCKED"} ${g.reason || ""}`))) : h("p", { class: "muted" }, "no action guard")))
    : [h("p", { class: "muted" }, "no tool calls")]));
  const e = t.enforcement;
  const lanes = Object.entries(e.lanes);
  panel("panel-enforcement", h("p", {}, `checked: ${e.checked.join(", ") || "none"} · regenerations ${e.regenerations}`,
      e.fallback_used ? " · " : "", e.fallback_used ? badge("fallback used", "warn") : ""),
    lanes.length ? h("ul", {}, lanes.map(([lane, vs]) => vs.map((v) => h("li", { class: "blocked", "data-lane": lane, "data-rule": v.rule_id },
      `${lane}: `, h("b", {}, v.rule_id), " ", badge("BLOCKED", "blocked"), ` ${v.reason}`)))) : h("p", { class: "passed" }, "no violations"),
    e.unverified.length ? h("p", { class: "warn" }, "UNVERIFIED: " + e.unverified.join(", ")) : "",
    Object.keys(e.not_judged || {}).length ? h("ul", {}, Object.entries(e.not_judged).map(([rule, why]) =>
      h("li", { class: "muted", "data-not-judged": rule }, `not judged: ${rule} (${why})`))) : "",
    e.not_regenerated ? h("p", { class: "muted" }, `not regenerated: ${e.not_regenerated}`) : "",
    h("h4", {}, "drafts"), h("ol", { start: 0 }, e.drafts.map((dr) => h("li", { class: "draft " + (dr.blocked ? "blocked" : dr.shown ? "shown" : ""), "data-draft": dr.index },
      badge(dr.blocked ? "BLOCKED" : dr.shown ? "SHOWN" : "not shown", dr.blocked ? "blocked" : ""), ` (${dr.source}) `, dr.text,
      dr.violations.length ? h("span", { class: "why" }, " — " + dr.violations.map((v) => v.rule_id).join(", ")) : ""))),
    e.checks.length ? table(["check", "draft", "passed", "score", "threshold", "reason"], e.checks.map((c) => h("tr", { class: c.passed ? "" : "blocked" },
      h("td", {}, c.name), h("td", {}, c.draft), h("td", {}, c.passed ? "yes" : "no"), h("td", {}, c.score === null ? "bypass" : Number(c.score).toFixed(3)),
      h("td", {}, c.threshold), h("td", {}, c.reason)))) : "",
    h("p", {}, "lane ms: " + (Object.entries(e.timings).map(([k, v]) => `${k} ${ms(v)}`).join(" · ") || "—")));
  panel("panel-models", t.model_calls.length ? table(["purpose", "model", "in", "out", "cost $", "ms", "ok"], t.model_calls.map((m) =>
      h("tr", { class: m.ok ? "" : "blocked" }, h("td", {}, m.purpose), h("td", {}, m.model), h("td", {}, m.input_tokens), h("td", {}, m.output_tokens),
        h("td", {}, m.cost_usd.toFixed(6)), h("td", {}, ms(m.ms)), h("td", {}, m.ok ? "yes" : `no ${m.note}`))))
    : h("p", { class: "muted" }, "no model calls (offline)"), h("p", {}, `cost $${t.cost_usd.toFixed(6)}`));
}

// --- start -----------------------------------------------------------------------------------------
document.addEventListener("DOMContentLoaded", async () => {
  $("key-form").addEventListener("submit", useKey);
  $("send-form").addEventListener("submit", onSend);
  $("agent-select").addEventListener("change", (ev) => selectAgent(ev.target.value));
  $("new-session").addEventListener("click", newSession);
  $("refresh-sessions").addEventListener("click", refreshSessions);
  $("refresh-approvals").addEventListener("click", refreshApprovals);
  $("refresh-flow").addEventListener("click", refreshFlow);
  $("save-test").addEventListener("click", saveAsTest);
  $("forget-key").addEventListener("click", () => { sessionStorage.removeItem(KEY_STORE); askKey(""); });
  if (!sessionStorage.getItem(KEY_STORE)) { askKey(""); return; }
  const r = await call("GET", `${API}/agents`);
  if (r.status === 200) loadAgents(r.doc.items);
  else askKey(errorText(r));
});
document.documentElement.dataset.app = "ready";
