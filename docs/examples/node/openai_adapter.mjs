// An OpenAI / DeepSeek Chat Completions adapter in the style of a Node backend's chat adapters
// (sendMessages -> {content, toolCalls}), with streaming, plus its tool runner as a loop.
// Plain JavaScript, Node 18+, no dependencies.
//
//   node docs/examples/node/openai_adapter.mjs        (started by the kit: --toolcall-command)
//
// TOOLCALL_EXAMPLE_BUG selects a deliberate bug, for the kit's negative controls:
//   merge_calls   complete() keys tool calls by name: two calls to one tool collapse
//   drop_text     stream() drops the text deltas
//   loop_forever  the tool runner ignores max_iterations
//   keep_orphans  the history builder returns the stored history as it is
import { serve, ProviderError, StreamError, IncompleteStreamError, argumentsJson, httpRequest } from "../../../js/src/index.mjs";

const BUG = process.env.TOOLCALL_EXAMPLE_BUG || "";
// the harness's httpRequest (node:http, kept-alive connections) by default; the global fetch
// (undici) with TOOLCALL_EXAMPLE_HTTP=fetch: the same answers, ~1 ms more CPU a request
const httpFetch = process.env.TOOLCALL_EXAMPLE_HTTP === "fetch" ? fetch : httpRequest;
const FINISH = { stop: "stop", tool_calls: "tool_calls", function_call: "tool_calls", length: "length", content_filter: "content_filter" };

function encodeMessage(m) {
  if (m.role === "system" || m.role === "developer" || m.role === "user") return { role: m.role, content: m.content };
  if (m.role === "tool") return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
  const out = { role: "assistant", content: m.content ?? null };
  if (m.tool_calls && m.tool_calls.length) {
    out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: argumentsJson(c) } }));
  } else if (out.content === null) out.content = "";
  return out;
}

function buildBody(request, stream) {
  const body = { model: request.model || "gpt-4o-mini", messages: request.messages.map(encodeMessage) };
  if (request.tools && request.tools.length) {
    body.tools = request.tools.map((t) => {
      const fn = { name: t.name, description: t.description, parameters: t.parameters };
      if (t.strict !== null && t.strict !== undefined) fn.strict = t.strict;
      return { type: "function", function: fn };
    });
    const choice = request.tool_choice;
    if (choice !== null && choice !== undefined) body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
    if (request.parallel_tool_calls !== null && request.parallel_tool_calls !== undefined) body.parallel_tool_calls = request.parallel_tool_calls;
  }
  if (stream) { body.stream = true; body.stream_options = { include_usage: true }; }
  return body;
}

const usageOf = (u) => (u ? { input_tokens: u.prompt_tokens ?? null, output_tokens: u.completion_tokens ?? null, total_tokens: u.total_tokens ?? null } : null);
const finishOf = (r) => (r === null || r === undefined ? null : FINISH[r] || "other");

async function post(endpoint, body) {
  const reply = await httpFetch(endpoint.base_url.replace(/\/$/, "") + "/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${endpoint.api_key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (reply.status >= 400) {
    const text = await reply.text();
    let words = text.slice(0, 500);
    const extra = {};
    try {
      const data = JSON.parse(text);
      if (data && data.error && data.error.message) words = String(data.error.message);
      if (data && data.error && typeof data.error === "object") {
        extra.providerType = data.error.type ?? null;
        extra.code = data.error.code ?? null;
      }
    } catch { /* an HTML page: keep its text */ }
    // what a retrying caller reads: the delay the provider asked for, and whether to retry
    const after = reply.headers.get("retry-after");
    if (after !== null && !Number.isNaN(Number(after))) extra.retryAfter = Number(after);
    extra.retryable = extra.code === "insufficient_quota" ? false
      : [408, 409, 429].includes(reply.status) || reply.status >= 500;
    throw new ProviderError(words, reply.status, extra);
  }
  return reply;
}

/** sendMessages: one call, {content, toolCalls} back (the shape the tool runner reads). */
export async function sendMessages(request, endpoint) {
  const reply = await post(endpoint, buildBody(request, false));
  const text = await reply.text();
  let data, choice;
  try { data = JSON.parse(text); choice = data.choices[0]; if (!choice.message) throw new Error(); } catch { throw new ProviderError(`malformed response, no choices[0].message: ${text.slice(0, 200)}`); }
  let toolCalls = choice.message.tool_calls || [];
  if (BUG === "merge_calls") toolCalls = Object.values(Object.fromEntries(toolCalls.map((c) => [c.function.name, c])));
  return { content: choice.message.content || null, toolCalls, finishReason: finishOf(choice.finish_reason), usage: usageOf(data.usage) };
}

/** sendMessagesStreaming: canonical stream events; calls keyed on index, then on id. */
export async function* sendMessagesStreaming(request, endpoint) {
  const reply = await post(endpoint, buildBody(request, true));
  const slots = [], byIndex = new Map();
  let finish = null, usage = null, done = false, buffer = "";
  const decoder = new TextDecoder();
  function* feedLine(line) {
    if (!line.startsWith("data:") || done) return;
    const payload = line.slice(5).trim();
    if (payload === "[DONE]") {
      done = true;
      for (const s of slots) yield { type: "tool_call_complete", call: { id: s.id, name: s.name || "", arguments: s.args === null ? null : s.args.join("") } };
      yield { type: "done", finish_reason: finishOf(finish), usage };
      return;
    }
    const data = JSON.parse(payload);
    if (data.error) throw new StreamError(String(data.error.message ?? JSON.stringify(data.error)),
      { providerType: data.error.type ?? null, retryable: data.error.type === "server_error" });
    if (data.usage) usage = usageOf(data.usage);
    for (const choice of data.choices || []) {
      const delta = choice.delta || {};
      if (delta.content && BUG !== "drop_text") yield { type: "text_delta", text: delta.content };
      for (const frag of delta.tool_calls || []) {
        const fn = frag.function || {};
        let slot = byIndex.get(frag.index);
        if (!slot || (frag.id && slot.id && frag.id !== slot.id)) {
          slot = { index: slots.length, id: frag.id ?? null, name: fn.name ?? null, args: null };
          slots.push(slot); byIndex.set(frag.index, slot);
        }
        slot.id = slot.id || frag.id || null; slot.name = slot.name || fn.name || null;
        if (fn.arguments !== undefined && fn.arguments !== null) slot.args = (slot.args || []).concat([fn.arguments]);
        yield { type: "tool_call_delta", index: slot.index, id: frag.id ?? null, name: fn.name ?? null, arguments_delta: fn.arguments || "" };
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  // the unfinished line is kept in pieces and each read is searched once: searching the whole
  // buffer on every read is quadratic in a long line cut into many reads
  let pieces = [];
  for await (const chunk of reply.body) {
    const text = decoder.decode(chunk, { stream: true });
    let from = 0, cut;
    while ((cut = text.indexOf("\n", from)) >= 0) {
      pieces.push(text.slice(from, cut));
      const line = pieces.join("").replace(/\r$/, ""); pieces = []; from = cut + 1;
      yield* feedLine(line);
    }
    if (from < text.length) pieces.push(text.slice(from));
  }
  buffer = pieces.join("");
  if (buffer) yield* feedLine(buffer);
  if (!done) throw new IncompleteStreamError("the stream ended without 'data: [DONE]'" + (finish === null ? " and without a finish_reason" : ""));
}

// -- the tool runner as a loop ----------------------------------------------------------------
const POLICY = { max_iterations: 5, max_failure_rounds: 3, permanent_failure_stops: true, argument_validation: "feed_back", parallel_dispatch: true, tool_timeout: 0.5 };

function parseArgs(raw) {
  if (raw === null || raw === undefined) return [{}, null];
  if (typeof raw === "object") return [raw, null];
  if (raw.trim() === "") return [{}, null];
  try { const v = JSON.parse(raw); return v && typeof v === "object" && !Array.isArray(v) ? [v, null] : [null, "not a JSON object"]; } catch (e) { return [null, e.message]; }
}

const TYPES = { string: (v) => typeof v === "string", integer: Number.isInteger, number: (v) => typeof v === "number", boolean: (v) => typeof v === "boolean", object: (v) => v && typeof v === "object" && !Array.isArray(v), array: Array.isArray, null: (v) => v === null };
/** A small JSON Schema check (required, type, enum, additionalProperties: false): [missing, other]. */
function schemaProblems(schema, args) {
  const missing = [], other = [];
  for (const name of schema.required || []) if (!(name in args)) missing.push(`'${name}' is a required property`);
  for (const [name, value] of Object.entries(args)) {
    const prop = (schema.properties || {})[name];
    if (!prop) { if (schema.additionalProperties === false) other.push(`additional property '${name}'`); continue; }
    const types = prop.type ? [].concat(prop.type) : null;
    if (types && !types.some((t) => TYPES[t] && TYPES[t](value))) other.push(`${JSON.stringify(value)} is not of type '${types.join("', '")}'`);
    if (prop.enum && !prop.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) other.push(`${JSON.stringify(value)} is not one of ${JSON.stringify(prop.enum)}`);
  }
  return [missing, other];
}

export async function runTools({ messages, tools, endpoint, runTool }) {
  const msgs = [...messages], specs = new Map(tools.map((t) => [t.name, t])), events = [];
  const usage = [0, 0, 0];
  let iterations = 0, failureRounds = 0;
  const stop = (reason, text) => {
    if (text) events.push({ type: reason === "needs_clarification" ? "clarification" : reason === "error" ? "error" : "text", content: text });
    events.push({ type: "done", content: reason });
    return { stop_reason: reason, text: text || null, events, usage: { input_tokens: usage[0], output_tokens: usage[1], total_tokens: usage[2] }, messages: msgs };
  };
  for (;;) {
    let response;
    try { response = await sendMessages({ messages: msgs, tools }, endpoint); } catch (e) { return stop("error", `the model call failed (${e.constructor.name})`); }
    if (response.usage) [response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens].forEach((v, i) => { usage[i] += v || 0; });
    // an answer cut at the token limit, or withheld by the provider, is no completion
    if (!response.toolCalls.length) return stop(["length", "content_filter"].includes(response.finishReason) ? response.finishReason : "completed", response.content);
    if (iterations >= POLICY.max_iterations && BUG !== "loop_forever") return stop("max_iterations", response.content);
    const seen = new Set(), calls = [];
    for (const c of response.toolCalls) {
      if (c.id && seen.has(c.id)) continue;
      if (c.id) seen.add(c.id);
      const [args, error] = parseArgs(c.function.arguments);
      calls.push({ id: c.id ?? null, name: c.function.name, arguments: args, raw_arguments: typeof c.function.arguments === "string" ? c.function.arguments : null, parse_error: error });
    }
    msgs.push({ role: "assistant", content: response.content, tool_calls: calls });
    for (const c of calls) events.push({ type: "tool_call", call_id: c.id, name: c.name });
    const one = async (call) => {
      const spec = specs.get(call.name);
      if (!spec) return { call, ok: false, text: `Error: there is no tool named '${call.name}'. Available tools: ${[...specs.keys()].sort().join(", ")}.` };
      if (call.arguments === null) return { call, ok: false, text: `Error: the arguments for ${call.name} are not valid JSON (${call.parse_error}). Call the tool again with a valid JSON object.` };
      const [missing, other] = schemaProblems(spec.parameters || {}, call.arguments);
      if (missing.length || other.length) return { call, ok: false, text: `Error: invalid arguments for ${call.name}: ${[...missing, ...other].slice(0, 3).join("; ")}. Fix them and call the tool again.` };
      let timer;
      const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve({ timedOut: true }), POLICY.tool_timeout * 1000); });
      const reply = await Promise.race([runTool(call), timeout]);
      clearTimeout(timer);
      if (reply.timedOut) return { call, ok: false, text: `Error: ${call.name} did not answer in time.` };
      if (reply.ok) return { call, ok: true, text: reply.content };
      if (reply.kind === "crash") return { call, ok: false, text: `Error: ${call.name} failed unexpectedly. Try something else.` };
      if (reply.kind === "timeout") return { call, ok: false, text: `Error: ${call.name} did not answer in time.` };
      return { call, ok: false, text: `Error: ${call.name} failed: ${reply.error}`, permanent: reply.retryable === false };
    };
    const outcomes = await Promise.all(calls.map(one));
    for (const o of outcomes) {
      msgs.push({ role: "tool", tool_call_id: o.call.id, name: o.call.name, content: o.text, is_error: !o.ok });
      events.push({ type: o.ok ? "tool_result" : "tool_error", call_id: o.call.id, name: o.call.name, content: o.text });
    }
    if (POLICY.permanent_failure_stops && outcomes.some((o) => o.permanent)) return stop("permanent_failure", "A tool failed permanently; stopping.");
    if (outcomes.some((o) => o.ok)) { failureRounds = 0; iterations += 1; continue; }
    failureRounds += 1;
    if (failureRounds >= POLICY.max_failure_rounds) return stop("failure_rounds", "The tools kept failing; stopping.");
  }
}

// -- the history builder: stored messages in, messages a provider accepts out ----------------
// Results without an id are dropped, duplicates keep the first, failed calls are dropped with
// their results, calls left without a result are removed, orphans dropped, and each result
// follows its call's assistant message at once.
//   TOOLCALL_EXAMPLE_BUG=keep_orphans: results are replayed where they were stored
export function buildHistory(stored) {
  const results = new Map();
  for (const m of stored) if (m.role === "tool" && m.tool_call_id && !results.has(m.tool_call_id)) results.set(m.tool_call_id, m);
  for (const [id, m] of results) if (m.is_error) results.delete(id);
  if (BUG === "keep_orphans") return stored;
  const built = [], used = new Set();
  for (const m of stored) {
    if (m.role === "tool") continue;
    if (m.role === "assistant" && !(m.tool_calls || []).length && !m.content) continue; // stored empty
    if (m.role !== "assistant" || !(m.tool_calls || []).length) { built.push(m); continue; }
    const calls = [], seen = new Set();
    for (const c of m.tool_calls) if (c.id && results.has(c.id) && !used.has(c.id) && !seen.has(c.id)) { calls.push(c); seen.add(c.id); }
    if (!calls.length && !m.content) continue;
    built.push({ ...m, tool_calls: calls });
    for (const c of calls) { used.add(c.id); built.push(results.get(c.id)); }
  }
  return built;
}

// The profile the hello declares: it talks to OpenAI and DeepSeek, so under openai DeepSeek's
// stream quirks (SSE keep-alive comments) run against it too. The runner takes it as
// profile=docs/examples/node/openai_adapter.mjs#profile
export const profile = { name: "node openai adapter", streaming: true, async: false, compatible_with: ["deepseek"], ...POLICY };

// Started as a script (not imported): serve the adapter and the loop over the protocol (the
// package's runner does the same with no code: see docs/protocol.md, "JavaScript and TypeScript").
if (import.meta.url === `file://${process.argv[1]}`) {
  serve({
    name: "openai_adapter.mjs" + (BUG ? ` (bug: ${BUG})` : ""),
    profile,
    adapter: { complete: sendMessages, stream: sendMessagesStreaming },
    loop: { run: runTools },
    history: { build: buildHistory },
  });
}
