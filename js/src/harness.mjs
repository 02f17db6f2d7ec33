// pytest-toolcall-node's harness: plain JavaScript, Node 18+, no dependencies.
//
// Speaks the kit's child-process protocol (docs/protocol.md, version 1) on stdin/stdout, one
// JSON object per line. Import it and hand it your implementations (or let the runner,
// bin/pytest-toolcall-node.mjs, do it for a module export):
//
//   import { serve } from "pytest-toolcall-node";
//   serve({ name: "my adapter", profile: { streaming: true },
//           adapter: { complete(request, endpoint) {...}, async *stream(request, endpoint) {...} },
//           loop: { run({ messages, tools, endpoint, runTool }) {...} },
//           history: { build(stored) {...} },
//           structured: { extract({ request, toolName, schema, openStream }) {...} } });
//
// stdout is the protocol channel: log with console.error, never console.log.
import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import { toEvents, toResponse } from "./mappers.mjs";
export { ProviderError, StreamError, IncompleteStreamError } from "./errors.mjs";

export const PROTOCOL_VERSION = 1;

/** Arguments as JSON text to replay to a provider: never "", no \u escapes. */
export function argumentsJson(call) {
  if (call.arguments === null || call.arguments === undefined) return call.raw_arguments || "{}";
  return JSON.stringify(call.arguments);
}

// Lines are gathered and written together: a stream's events wait for the line that ends the
// request (its result or error) or for 64 KiB of them, and any other message goes out at the
// end of the event loop's turn (setImmediate), with what is pending. The kit reads a stream's
// events only once the stream has ended, and every write to the pipe wakes it (on a loaded
// machine it then takes the CPU from this process): a stream costs one wake-up, not one per
// network read (bench_foreign's stream.any_chunking: 9 -> 1 writes a stream, 2026-11-28).
// Whatever is pending is written when the process exits (process.exit, a crash), so no line is
// lost and the order holds.
const HELD_EVENTS = 1 << 16;
let outbox = [];
let outboxSize = 0;
let scheduled = false;
function flush() {
  scheduled = false;
  if (!outbox.length) return;
  const text = outbox.join("");
  outbox = [];
  outboxSize = 0;
  process.stdout.write(text);
}
process.on("exit", flush);
function write(message) {
  const line = JSON.stringify({ v: PROTOCOL_VERSION, ...message }) + "\n";
  outbox.push(line);
  outboxSize += line.length;
  if (message.type === "event") {
    if (outboxSize >= HELD_EVENTS) flush();
    return;
  }
  if (!scheduled) { scheduled = true; setImmediate(flush); }
}

const agents = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** A small fetch on node:http with a kept-alive connection: resolves to {status, headers.get(name),
 *  text(), body (async iterable of Buffers)}. Global fetch (undici) works the same and costs
 *  about 1 ms more CPU a request; either is fine for the kit. `readTimeout` (ms): a connection
 *  silent that long fails the request or the body being read (a stalled stream must not hang
 *  the caller: errors.stream_stalled); keep it under the profile's timeout, and for a real
 *  provider above its slowest first byte. */
export function httpRequest(url, { method = "GET", headers = {}, body, readTimeout = 5000 } = {}) {
  const target = new URL(url);
  const lib = target.protocol === "https:" ? https : http;
  const head = { ...headers };
  if (body !== undefined) head["content-length"] = Buffer.byteLength(body);
  return new Promise((resolve, reject) => {
    const req = lib.request(target, { method, headers: head, agent: agents[target.protocol] }, (res) => {
      resolve({
        status: res.statusCode,
        headers: { get: (name) => { const v = res.headers[name.toLowerCase()]; return v === undefined ? null : [].concat(v).join(", "); } },
        body: res, // an early exit from `for await` destroys it (and its connection)
        async text() { const parts = []; for await (const part of res) parts.push(part); return Buffer.concat(parts).toString("utf8"); },
      });
    });
    req.on("error", reject);
    req.setTimeout(readTimeout, () => req.destroy(new Error(`no data for ${readTimeout} ms (read timeout)`)));
    req.end(body);
  });
}

/** The kind of a thrown error: this module's classes carry it; an error with an integer HTTP
 *  `status` (the openai and @anthropic-ai/sdk packages' APIError) is the provider's. */
function kindOf(err) {
  if (["provider", "stream", "incomplete"].includes(err && err.kind)) return err.kind;
  if (err && Number.isInteger(err.status)) return "provider";
  return "error";
}

function errorMessage(id, err) {
  const kind = kindOf(err);
  const error = { kind, message: String((err && err.message) || err) };
  if (kind === "provider") error.status = err.status ?? null;
  if (err && err.providerType !== undefined) error.provider_type = err.providerType;
  if (err && err.code !== undefined) error.code = err.code;
  if (err && err.retryAfter !== undefined) error.retry_after = err.retryAfter;
  if (err && err.retryable !== undefined) error.retryable = err.retryable;
  if (kind === "error") error.name = (err && err.name) || "Error";
  return { type: "error", id, error };
}

export function serve(impl) {
  const contracts = [];
  if (impl.adapter) contracts.push("chat");
  if (impl.loop) contracts.push("loop");
  if (impl.history) contracts.push("history");
  if (impl.structured) contracts.push("fallback");
  const profile = { ...(impl.profile || {}) };
  if (impl.adapter && profile.streaming === undefined) profile.streaming = typeof impl.adapter.stream === "function";

  const pending = new Map(); // seq -> resolve, for replies from the kit during a request
  const queue = [];
  let busy = false;
  let seq = 0;

  function ask(id, message) {
    const mySeq = ++seq;
    return new Promise((resolve) => { pending.set(mySeq, resolve); write({ id, seq: mySeq, ...message }); });
  }

  async function handle(msg) {
    const id = msg.id;
    const endpoint = msg.endpoint;
    switch (msg.type) {
      case "hello":
        return write({ type: "hello", id, protocol: PROTOCOL_VERSION, name: impl.name || "harness", contracts, profile });
      case "complete": {
        const response = await impl.adapter.complete(msg.request, endpoint);
        return write({ type: "result", id, response: toResponse(response) });
      }
      case "stream": {
        const events = toEvents(await impl.adapter.stream(msg.request, endpoint));
        for await (const event of events) write({ type: "event", id, event });
        return write({ type: "result", id });
      }
      case "loop": {
        const runTool = async (call) => {
          const reply = await ask(id, { type: "tool_call", name: call.name, arguments: call.arguments ?? null, call_id: call.id ?? null });
          return reply; // { ok, content } or { ok: false, error, retryable, kind }
        };
        const result = await impl.loop.run({ messages: msg.messages, tools: msg.tools, endpoint, runTool });
        return write({ type: "result", id, result });
      }
      case "history": {
        const messages = await impl.history.build(msg.stored);
        return write({ type: "result", id, messages });
      }
      case "extract": {
        const openStream = async (request) => {
          const opened = await ask(id, { type: "stream_open", request });
          return {
            async *[Symbol.asyncIterator]() {
              for (;;) {
                const reply = await ask(id, { type: "stream_next", stream: opened.stream });
                if (reply.event === null) return;
                yield reply.event;
              }
            },
          };
        };
        const result = await impl.structured.extract({ request: msg.request, toolName: msg.tool_name, schema: msg.schema, openStream });
        return write({ type: "result", id, result });
      }
      default:
        throw new Error(`unknown request type ${msg.type}`);
    }
  }

  async function drain() {
    if (busy) return;
    busy = true;
    while (queue.length) {
      const msg = queue.shift();
      try { await handle(msg); } catch (err) { write(errorMessage(msg.id, err)); }
    }
    busy = false;
  }

  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    if (["tool_result", "stream_opened", "stream_event"].includes(msg.type)) {
      const resolve = pending.get(msg.seq);
      pending.delete(msg.seq);
      if (resolve) resolve(msg);
      return;
    }
    queue.push(msg);
    drain();
  });
  lines.on("close", () => process.exit(0));
}

const JSON_TYPES = { string: (v) => typeof v === "string", integer: Number.isInteger, number: (v) => typeof v === "number", boolean: (v) => typeof v === "boolean", object: (v) => v !== null && typeof v === "object" && !Array.isArray(v), array: Array.isArray, null: (v) => v === null };

/** Whether value fits a JSON Schema: a small subset (type, required, properties,
 *  additionalProperties: false, items, minItems, maxItems, enum), enough for tool parameters
 *  like the kit's cases use. Use a real validator (ajv) in production. */
export function fitsSchema(schema, value) {
  if (!schema || typeof schema !== "object") return true;
  if (schema.type && ![].concat(schema.type).some((t) => JSON_TYPES[t] && JSON_TYPES[t](value))) return false;
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) return false;
  if (JSON_TYPES.object(value)) {
    for (const name of schema.required || []) if (!(name in value)) return false;
    for (const [name, v] of Object.entries(value)) {
      const prop = (schema.properties || {})[name];
      if (prop === undefined) { if (schema.additionalProperties === false) return false; continue; }
      if (!fitsSchema(prop, v)) return false;
    }
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return false;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return false;
    if (schema.items && !value.every((v) => fitsSchema(schema.items, v))) return false;
  }
  return true;
}
