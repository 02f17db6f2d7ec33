// A streamed tool-args collector with the tool -> JSON -> text fallback, in the style of a
// TypeScript UI client's collectWithFallback(): ONE pass over the stream gathers the tool calls
// and the text together, then the value comes from (1) a call of the requested tool whose
// arguments parse and fit the schema, (2) a JSON object in the text that fits, (3) the text.
// Plain JavaScript, Node 18+, no dependencies.
//
// TOOLCALL_EXAMPLE_BUG selects a deliberate bug, for the kit's negative controls:
//   two_pass      collect the tool call from one stream, then open a second stream for the text
//   no_schema     take the first call of the tool without checking its arguments against the schema
import { serve, fitsSchema } from "../../../js/src/index.mjs";

const BUG = process.env.TOOLCALL_EXAMPLE_BUG || "";

function parseObject(text) {
  try { const v = JSON.parse(text); return v && typeof v === "object" && !Array.isArray(v) ? v : null; } catch { return null; }
}

/** The end of the balanced {...} that starts at text[start], strings respected; -1 if none. */
function objectEnd(text, start) {
  let depth = 0, inString = false, escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) { if (escaped) escaped = false; else if (ch === "\\") escaped = true; else if (ch === '"') inString = false; continue; }
    if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

/** JSON objects in the text: the whole text, fenced blocks (json or untagged: a fence's
 * language tag is consumed with it, so a ```python block is never read as JSON), then {...}
 * found in prose. */
function* candidates(text) {
  const fenced = [...text.matchAll(/```([\w+-]*)[ \t]*\n([\s\S]*?)```/g)]
    .filter((m) => m[1] === "" || m[1].toLowerCase() === "json").map((m) => m[2]);
  const pieces = [text, ...fenced];
  for (const piece of pieces) { const v = parseObject(piece); if (v) yield v; }
  let start = text.indexOf("{");
  while (start !== -1) {
    const end = objectEnd(text, start);
    const v = end === -1 ? null : parseObject(text.slice(start, end));
    if (v) { yield v; start = text.indexOf("{", end); } else start = text.indexOf("{", start + 1);
  }
}

/** One pass: text deltas and completed tool calls, together (no stream exhaustion). */
export async function collectWithFallback(stream) {
  const parts = [], calls = [];
  for await (const event of stream) {
    if (event.type === "text_delta") parts.push(event.text);
    else if (event.type === "tool_call_complete") calls.push(event.call);
    else if (event.type === "done") break;
  }
  return { calls, text: parts.join("") };
}

function argsOf(call) {
  if (call.parse_error) return null;
  if (call.arguments && typeof call.arguments === "object") return call.arguments;
  return null;
}

/** @returns {Promise<{channel: "tool" | "json" | "text", value: Record<string, unknown> | null, text: string | null}>} */
export async function extract({ request, toolName, schema, openStream }) {
  let calls, text;
  if (BUG === "two_pass") {
    ({ calls } = await collectWithFallback(await openStream(request)));
    ({ text } = await collectWithFallback(await openStream(request)));
  } else {
    ({ calls, text } = await collectWithFallback(await openStream(request)));
  }
  const shown = text || null;
  for (const call of calls) {
    const args = argsOf(call);
    if (call.name === toolName && args && (BUG === "no_schema" || fitsSchema(schema, args))) return { channel: "tool", value: args, text: shown };
  }
  for (const value of candidates(text)) if (fitsSchema(schema, value)) return { channel: "json", value, text: shown };
  return { channel: "text", value: null, text: shown };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  serve({ name: "collector.mjs" + (BUG ? ` (bug: ${BUG})` : ""), profile: { name: "node collector" }, structured: { extract } });
}
