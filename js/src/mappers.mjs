// Mappers from the shapes JavaScript code returns to the kit's canonical shapes
// (pytest_toolcall/core/model.py, docs/protocol.md). They map, they never repair: a call without
// a name stays without one, arguments go back exactly as the provider sent them (text, object or
// null), and a stream that ends without its end marker raises IncompleteStreamError.
//
// The third-party shapes, as their SDKs document them (read 2026-11-28):
//  - OpenAI Chat Completions: a ChatCompletion {choices: [{message, finish_reason}], usage} and
//    its stream of ChatCompletionChunk {choices: [{index, delta: {content, tool_calls: [{index,
//    id, function: {name, arguments}}]}, finish_reason}], usage} (the `openai` npm package,
//    https://platform.openai.com/docs/api-reference/chat-streaming)
//  - Anthropic Messages: a Message {type: "message", content: [blocks], stop_reason, usage} and
//    its stream events message_start, content_block_start / _delta / _stop, message_delta,
//    message_stop, error (https://docs.anthropic.com/en/api/messages-streaming)
//  - AI SDK stream parts (`streamText(...).fullStream`): text-delta (`text` in v5, `textDelta`
//    in v4), tool-input-start / tool-input-delta (v5) or tool-call-streaming-start /
//    tool-call-delta (v4), tool-call (`input` in v5, `args` in v4), finish, error
//    (https://ai-sdk.dev/docs/ai-sdk-core/generating-text#fullstream)
import { IncompleteStreamError, StreamError } from "./errors.mjs";

const FINISH = {
  // OpenAI
  stop: "stop", tool_calls: "tool_calls", function_call: "tool_calls", length: "length",
  content_filter: "content_filter",
  // Anthropic
  end_turn: "stop", stop_sequence: "stop", tool_use: "tool_calls", max_tokens: "length",
  refusal: "content_filter", pause_turn: "other",
  // AI SDK
  "tool-calls": "tool_calls", "content-filter": "content_filter", error: "error", other: "other",
};

/** A provider's finish or stop reason -> the canonical one (unknown -> "other"; none -> null). */
export function finishReason(reason) {
  if (reason === null || reason === undefined) return null;
  return FINISH[reason] || "other";
}

/** Usage in any of the shapes above -> {input_tokens, output_tokens, total_tokens}. */
export function usageOf(u) {
  if (!u) return null;
  const input = u.input_tokens ?? u.prompt_tokens ?? u.inputTokens ?? u.promptTokens ?? null;
  const output = u.output_tokens ?? u.completion_tokens ?? u.outputTokens ?? u.completionTokens
    ?? null;
  const total = u.total_tokens ?? u.totalTokens
    ?? (input !== null && output !== null ? input + output : null);
  return { input_tokens: input, output_tokens: output, total_tokens: total };
}

/** One tool call in any of the shapes above -> {id, name, arguments} (arguments as sent). */
export function toolCallOf(c) {
  if (c.function) return { id: c.id ?? null, name: c.function.name, arguments: c.function.arguments ?? null };
  if (c.toolName !== undefined) {
    return { id: c.toolCallId ?? c.id ?? null, name: c.toolName, arguments: c.input ?? c.args ?? null };
  }
  if (c.type === "tool_use") return { id: c.id ?? null, name: c.name, arguments: c.input ?? null };
  return { id: c.id ?? null, name: c.name, arguments: c.arguments ?? null };
}

/** What an adapter returned -> a canonical response. Reads `{content, toolCalls, finishReason,
 *  usage}` (a Node chat adapter's shape), an OpenAI ChatCompletion, an Anthropic Message, or a
 *  canonical response (returned as it is). */
export function toResponse(r) {
  if (r && Array.isArray(r.choices)) {
    const choice = r.choices[0] || {};
    const m = choice.message || {};
    return {
      text: m.content ?? null, tool_calls: (m.tool_calls || []).map(toolCallOf),
      finish_reason: finishReason(choice.finish_reason), usage: usageOf(r.usage),
    };
  }
  if (r && r.type === "message" && Array.isArray(r.content)) {
    const texts = r.content.filter((b) => b.type === "text").map((b) => b.text);
    return {
      text: texts.length ? texts.join("") : null,
      tool_calls: r.content.filter((b) => b.type === "tool_use").map(toolCallOf),
      finish_reason: finishReason(r.stop_reason), usage: usageOf(r.usage),
    };
  }
  if (r && ("content" in r || "toolCalls" in r)) {
    return {
      text: r.content ?? null,
      tool_calls: (r.toolCalls || []).map(toolCallOf),
      finish_reason: r.finishReason === undefined ? null : finishReason(r.finishReason),
      usage: usageOf(r.usage),
    };
  }
  return r;
}

/** An async iterable of OpenAI ChatCompletionChunk -> canonical stream events. */
export async function* fromOpenAIChunks(chunks) {
  const slots = [], byIndex = new Map();
  let finish = null, usage = null;
  for await (const data of chunks) {
    if (data.error) throw new StreamError(String(data.error.message ?? JSON.stringify(data.error)), { providerType: data.error.type ?? null });
    if (data.usage) usage = usageOf(data.usage);
    for (const choice of data.choices || []) {
      const delta = choice.delta || {};
      if (delta.content) yield { type: "text_delta", text: delta.content };
      for (const frag of delta.tool_calls || []) {
        const fn = frag.function || {};
        let slot = byIndex.get(frag.index);
        if (!slot || (frag.id && slot.id && frag.id !== slot.id)) {
          slot = { index: slots.length, id: frag.id ?? null, name: fn.name ?? null, args: null };
          slots.push(slot); byIndex.set(frag.index, slot);
        }
        slot.id = slot.id || frag.id || null; slot.name = slot.name || fn.name || null;
        if (fn.arguments !== undefined && fn.arguments !== null) (slot.args ||= []).push(fn.arguments);
        yield { type: "tool_call_delta", index: slot.index, id: frag.id ?? null, name: fn.name ?? null, arguments_delta: fn.arguments || "" };
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  if (finish === null) throw new IncompleteStreamError("the stream of chunks ended without a finish_reason");
  for (const s of slots) yield { type: "tool_call_complete", call: { id: s.id, name: s.name || "", arguments: s.args === null ? null : s.args.join("") } };
  yield { type: "done", finish_reason: finishReason(finish), usage };
}

/** An async iterable of Anthropic Messages stream events -> canonical stream events. */
export async function* fromAnthropicEvents(events) {
  const blocks = new Map(); // index -> {slot, id, name, parts}
  let calls = 0, stop = null, input = null, output = null, ended = false;
  for await (const ev of events) {
    switch (ev.type) {
      case "message_start":
        input = ev.message?.usage?.input_tokens ?? input;
        output = ev.message?.usage?.output_tokens ?? output;
        break;
      case "content_block_start": {
        const b = ev.content_block || {};
        if (b.type === "tool_use") {
          const block = { slot: calls++, id: b.id ?? null, name: b.name ?? null, parts: [] };
          blocks.set(ev.index, block);
          yield { type: "tool_call_delta", index: block.slot, id: block.id, name: block.name, arguments_delta: "" };
        } else if (b.type === "text" && b.text) yield { type: "text_delta", text: b.text };
        break;
      }
      case "content_block_delta": {
        const d = ev.delta || {};
        if (d.type === "text_delta") yield { type: "text_delta", text: d.text };
        else if (d.type === "input_json_delta") {
          const block = blocks.get(ev.index);
          if (block) {
            block.parts.push(d.partial_json);
            yield { type: "tool_call_delta", index: block.slot, id: null, name: null, arguments_delta: d.partial_json };
          }
        }
        break;
      }
      case "content_block_stop": {
        const block = blocks.get(ev.index);
        // a tool_use block with no input deltas has empty input: the provider sent "{}"
        if (block) yield { type: "tool_call_complete", call: { id: block.id, name: block.name || "", arguments: block.parts.join("") || "{}" } };
        break;
      }
      case "message_delta":
        stop = ev.delta?.stop_reason ?? stop;
        output = ev.usage?.output_tokens ?? output;
        break;
      case "message_stop":
        ended = true;
        break;
      case "error":
        throw new StreamError(String(ev.error?.message ?? JSON.stringify(ev.error)), { providerType: ev.error?.type ?? null });
      default:
        break; // ping, and event types added later
    }
  }
  if (!ended) throw new IncompleteStreamError("the stream of events ended without message_stop");
  const usage = input === null && output === null ? null : usageOf({ input_tokens: input, output_tokens: output });
  yield { type: "done", finish_reason: finishReason(stop), usage };
}

/** An async iterable of AI SDK stream parts (v4 or v5 `fullStream`) -> canonical events. */
export async function* fromAISDKParts(parts) {
  const slots = new Map(); // tool call id -> slot index
  let finished = null;
  const slotOf = (id) => { if (!slots.has(id)) slots.set(id, slots.size); return slots.get(id); };
  for await (const p of parts) {
    switch (p.type) {
      case "text-delta": {
        const text = p.text ?? p.textDelta ?? p.delta;
        if (text) yield { type: "text_delta", text };
        break;
      }
      case "tool-input-start":
      case "tool-call-streaming-start": {
        const id = p.id ?? p.toolCallId;
        yield { type: "tool_call_delta", index: slotOf(id), id, name: p.toolName ?? null, arguments_delta: "" };
        break;
      }
      case "tool-input-delta":
      case "tool-call-delta": {
        const id = p.id ?? p.toolCallId;
        yield { type: "tool_call_delta", index: slotOf(id), id: null, name: null, arguments_delta: p.delta ?? p.argsTextDelta ?? "" };
        break;
      }
      case "tool-call": {
        const call = toolCallOf(p);
        slotOf(call.id);
        yield { type: "tool_call_complete", call };
        break;
      }
      case "finish":
        finished = p;
        break;
      case "error": {
        const e = p.error;
        throw new StreamError(String(e?.message ?? e));
      }
      default:
        break; // start, finish-step, reasoning and source parts, parts added later
    }
  }
  if (!finished) throw new IncompleteStreamError("the stream of parts ended without a finish part");
  yield { type: "done", finish_reason: finishReason(finished.finishReason), usage: usageOf(finished.totalUsage ?? finished.usage) };
}

const CANONICAL = new Set(["text_delta", "tool_call_delta", "tool_call_complete", "reasoning_complete", "done"]);
const ANTHROPIC = new Set(["message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop", "ping"]);

/** Which mapper reads a stream whose first item is `first`: "canonical", "openai",
 *  "anthropic", "ai-sdk", or null (not a shape this module knows). */
export function streamShape(first) {
  if (!first || typeof first !== "object") return null;
  if (CANONICAL.has(first.type)) return "canonical";
  if (Array.isArray(first.choices) || first.object === "chat.completion.chunk") return "openai";
  if (ANTHROPIC.has(first.type)) return "anthropic";
  if (typeof first.type === "string" && /^[a-z]+(-[a-z]+)+$|^(start|finish|error)$/.test(first.type)) return "ai-sdk";
  return null;
}

const MAPPERS = { openai: fromOpenAIChunks, anthropic: fromAnthropicEvents, "ai-sdk": fromAISDKParts };

/** Any of the streams above (told apart by its first item) -> canonical stream events. */
export async function* toEvents(stream) {
  const it = stream[Symbol.asyncIterator] ? stream[Symbol.asyncIterator]() : stream[Symbol.iterator]();
  const first = await it.next();
  if (first.done) return;
  const shape = streamShape(first.value);
  if (shape === null) {
    throw new TypeError(`a stream item of an unknown shape: ${JSON.stringify(first.value).slice(0, 200)} (expected canonical events, OpenAI chunks, Anthropic events or AI SDK parts)`);
  }
  const rest = { [Symbol.asyncIterator]: () => ({ next: () => it.next(), return: (v) => (it.return ? it.return(v) : Promise.resolve({ done: true, value: v })) }) };
  async function* replay() { yield first.value; yield* rest; }
  if (shape === "canonical") { yield* replay(); return; }
  yield* MAPPERS[shape](replay());
}
