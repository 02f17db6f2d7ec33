// The mappers, on the shapes their SDKs document (src/mappers.mjs names the sources). Run with
// `node --test js/test/` (tests/test_js_package.py does).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  toResponse, toEvents, fromOpenAIChunks, fromAnthropicEvents, fromAISDKParts, IncompleteStreamError, StreamError,
} from "../src/index.mjs";

const collect = async (it) => { const out = []; for await (const e of it) out.push(e); return out; };
async function* iter(items) { for (const i of items) yield i; }

test("{content, toolCalls} keeps the arguments as sent and maps the finish reason", () => {
  const r = toResponse({ content: "hi", toolCalls: [{ id: "c1", function: { name: "f", arguments: '{"a":' } }], finishReason: "tool_calls" });
  assert.deepEqual(r, { text: "hi", tool_calls: [{ id: "c1", name: "f", arguments: '{"a":' }], finish_reason: "tool_calls", usage: null });
});

test("an OpenAI ChatCompletion and an Anthropic Message map to a canonical response", () => {
  const openai = toResponse({ choices: [{ message: { content: null, tool_calls: [{ id: "c", function: { name: "f", arguments: "" } }] }, finish_reason: "tool_calls" }], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } });
  assert.deepEqual(openai.tool_calls, [{ id: "c", name: "f", arguments: "" }]);
  assert.deepEqual(openai.usage, { input_tokens: 3, output_tokens: 4, total_tokens: 7 });
  const anthropic = toResponse({ type: "message", content: [{ type: "text", text: "a" }, { type: "tool_use", id: "t", name: "g", input: { x: 1 } }], stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 2 } });
  assert.equal(anthropic.finish_reason, "tool_calls");
  assert.deepEqual(anthropic.tool_calls, [{ id: "t", name: "g", arguments: { x: 1 } }]);
});

test("a canonical response passes through unchanged", () => {
  const r = { text: "x", tool_calls: [], finish_reason: "stop", usage: null };
  assert.equal(toResponse(r), r);
});

test("OpenAI chunks: two calls in pieces, then completes and done", async () => {
  const events = await collect(fromOpenAIChunks(iter([
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: "a", function: { name: "f", arguments: '{"x"' } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 1, id: "b", function: { name: "g", arguments: "{}" } }] } }] },
    { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: ":1}" } }] }, finish_reason: "tool_calls" }] },
  ])));
  const completes = events.filter((e) => e.type === "tool_call_complete").map((e) => e.call);
  assert.deepEqual(completes, [{ id: "a", name: "f", arguments: '{"x":1}' }, { id: "b", name: "g", arguments: "{}" }]);
  assert.deepEqual(events.at(-1), { type: "done", finish_reason: "tool_calls", usage: null });
});

test("OpenAI chunks without a finish_reason are an incomplete stream", async () => {
  await assert.rejects(collect(fromOpenAIChunks(iter([{ choices: [{ index: 0, delta: { content: "a" } }] }]))), IncompleteStreamError);
});

test("Anthropic events: text, a tool_use block in pieces, stop reason and usage", async () => {
  const events = await collect(fromAnthropicEvents(iter([
    { type: "message_start", message: { usage: { input_tokens: 5, output_tokens: 1 } } },
    { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "hi" } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "t", name: "f", input: {} } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: '{"a":' } },
    { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "2}" } },
    { type: "content_block_stop", index: 1 },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
    { type: "message_stop" },
  ])));
  assert.deepEqual(events.filter((e) => e.type === "text_delta"), [{ type: "text_delta", text: "hi" }]);
  assert.deepEqual(events.find((e) => e.type === "tool_call_complete").call, { id: "t", name: "f", arguments: '{"a":2}' });
  assert.deepEqual(events.at(-1), { type: "done", finish_reason: "tool_calls", usage: { input_tokens: 5, output_tokens: 9, total_tokens: 14 } });
});

test("Anthropic: an error event is a StreamError, no message_stop is incomplete", async () => {
  await assert.rejects(collect(fromAnthropicEvents(iter([{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }]))), StreamError);
  await assert.rejects(collect(fromAnthropicEvents(iter([{ type: "message_start", message: {} }]))), IncompleteStreamError);
});

test("AI SDK parts (v5 and v4 spellings)", async () => {
  const v5 = await collect(fromAISDKParts(iter([
    { type: "start" }, { type: "text-delta", id: "0", text: "a" },
    { type: "tool-input-start", id: "c", toolName: "f" }, { type: "tool-input-delta", id: "c", delta: "{}" },
    { type: "tool-call", toolCallId: "c", toolName: "f", input: {} },
    { type: "finish", finishReason: "tool-calls", totalUsage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  ])));
  assert.deepEqual(v5.at(-1), { type: "done", finish_reason: "tool_calls", usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 } });
  assert.deepEqual(v5.find((e) => e.type === "tool_call_complete").call, { id: "c", name: "f", arguments: {} });
  const v4 = await collect(fromAISDKParts(iter([{ type: "text-delta", textDelta: "b" }, { type: "finish", finishReason: "stop", usage: { promptTokens: 1, completionTokens: 1 } }])));
  assert.deepEqual(v4[0], { type: "text_delta", text: "b" });
  await assert.rejects(collect(fromAISDKParts(iter([{ type: "text-delta", text: "a" }]))), IncompleteStreamError);
});

test("toEvents tells the shapes apart by the first item and refuses an unknown one", async () => {
  const canonical = [{ type: "text_delta", text: "a" }, { type: "done", finish_reason: "stop", usage: null }];
  assert.deepEqual(await collect(toEvents(iter(canonical))), canonical);
  const mapped = await collect(toEvents(iter([{ choices: [{ index: 0, delta: { content: "x" }, finish_reason: "stop" }] }])));
  assert.deepEqual(mapped[0], { type: "text_delta", text: "x" });
  await assert.rejects(collect(toEvents(iter([{ kind: "what" }]))), /unknown shape/);
});
