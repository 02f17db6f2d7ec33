// A structured-output collector in TypeScript: ONE pass over the stream, then the value from
// (1) a call of the tool whose arguments fit the schema, (2) a JSON object in the text (the
// whole text, a json or untagged fence, then {...} in prose), (3) the text.
// COLLECTOR_BUG=whole_text_only reads only the whole text as JSON: the kit's negative control.
import { fitsSchema } from "pytest-toolcall-node";
import type { CanonicalToolCall, ExtractFunction } from "pytest-toolcall-node";

type Value = Record<string, unknown>;
declare const process: { env: Record<string, string | undefined> }; // no @types/node needed

function parseObject(text: string): Value | null {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Value) : null;
  } catch { return null; }
}

function* candidates(text: string): Generator<Value> {
  const whole = parseObject(text);
  if (whole) yield whole;
  if (process.env.COLLECTOR_BUG === "whole_text_only") return;
  for (const m of text.matchAll(/```([\w+-]*)[ \t]*\n([\s\S]*?)```/g)) {
    const v = m[1] === "" || m[1].toLowerCase() === "json" ? parseObject(m[2]) : null;
    if (v) yield v;
  }
  for (let start = text.indexOf("{"); start !== -1; start = text.indexOf("{", start + 1)) {
    let depth = 0, inString = false, escaped = false;
    for (let i = start; i < text.length; i++) {
      const ch = text[i];
      if (inString) { if (escaped) escaped = false; else if (ch === "\\") escaped = true; else if (ch === '"') inString = false; continue; }
      if (ch === '"') inString = true;
      else if (ch === "{") depth++;
      else if (ch === "}" && --depth === 0) { const v = parseObject(text.slice(start, i + 1)); if (v) yield v; break; }
    }
  }
}

export const extract: ExtractFunction = async ({ request, toolName, schema, openStream }) => {
  const calls: CanonicalToolCall[] = [];
  let text = "";
  for await (const event of await openStream(request)) {
    if (event.type === "text_delta") text += event.text;
    else if (event.type === "tool_call_complete") calls.push(event.call);
  }
  for (const call of calls) {
    const args = call.arguments;
    if (call.name === toolName && !call.parse_error && args && typeof args === "object" && fitsSchema(schema, args)) {
      return { channel: "tool", value: args, text: text || null };
    }
  }
  for (const value of candidates(text)) if (fitsSchema(schema, value)) return { channel: "json", value, text: text || null };
  return { channel: "text", value: null, text: text || null };
};
