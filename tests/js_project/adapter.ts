// A chat adapter on the OpenAI Chat Completions wire, in TypeScript, as a project would write
// it: an exported function, no harness. tests/test_js_package.py compiles it with tsc --strict
// and runs the suite on it with `npx pytest-toolcall-node chat=./dist/adapter.js#complete`.
import { ProviderError, toResponse } from "pytest-toolcall-node";
import type { CanonicalMessage, ChatFunction, Profile } from "pytest-toolcall-node";

function encode(m: CanonicalMessage): Record<string, unknown> {
  if (m.role === "tool") return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
  if (m.role !== "assistant") return { role: m.role, content: m.content };
  const calls = (m.tool_calls ?? []).map((c) => ({
    id: c.id, type: "function",
    function: { name: c.name, arguments: c.arguments == null ? c.raw_arguments || "{}" : JSON.stringify(c.arguments) },
  }));
  return calls.length ? { role: "assistant", content: m.content ?? null, tool_calls: calls }
    : { role: "assistant", content: m.content ?? "" };
}

export const complete: ChatFunction = async (request, endpoint) => {
  const body: Record<string, unknown> = { model: request.model ?? "gpt-4o-mini", messages: request.messages.map(encode) };
  if (request.tools?.length) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters, ...(t.strict == null ? {} : { strict: t.strict }) },
    }));
    const choice = request.tool_choice;
    if (choice != null) body.tool_choice = typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } };
    if (request.parallel_tool_calls != null) body.parallel_tool_calls = request.parallel_tool_calls;
  }
  const reply = await fetch(endpoint.base_url.replace(/\/$/, "") + "/chat/completions", {
    method: "POST", body: JSON.stringify(body),
    headers: { authorization: `Bearer ${endpoint.api_key}`, "content-type": "application/json" },
  });
  const text = await reply.text();
  let data: any = null;
  try { data = JSON.parse(text); } catch { /* an HTML error page */ }
  if (reply.status >= 400) {
    throw new ProviderError(data?.error?.message ?? text.slice(0, 300), reply.status, {
      providerType: data?.error?.type ?? null, code: data?.error?.code ?? null,
      retryable: [408, 409, 429].includes(reply.status) || reply.status >= 500,
    });
  }
  if (!data?.choices?.[0]?.message) throw new ProviderError(`malformed response: ${text.slice(0, 200)}`);
  return toResponse(data); // an OpenAI ChatCompletion, mapped by the package
};

export const profile: Profile = { name: "fresh TypeScript adapter", streaming: false };
