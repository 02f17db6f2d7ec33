// The API of pytest-toolcall-node (src/index.mjs). The protocol's shapes are generated from the
// kit's JSON Schema into protocol.d.ts (js/scripts/gen_types.py); this file names the functions.
import type {
  CanonicalMessage, CanonicalRequest, CanonicalStreamEvent, CanonicalToolCall, ChatResponse,
  Endpoint, FallbackResult, LoopResult, ToolSpec, Usage,
} from "./protocol.js";

export type * from "./protocol.js";

export declare const PROTOCOL_VERSION: 1;

/** The endpoint of the fake provider a request is sent to (never null in a chat or loop call). */
export type FakeEndpoint = NonNullable<Endpoint>;

/** A tool call in the shapes JavaScript code holds: OpenAI's `{id, function: {name,
 *  arguments}}`, the AI SDK's `{toolCallId, toolName, input | args}`, Anthropic's tool_use
 *  block, or `{id, name, arguments}`. */
export type AnyToolCall =
  | { id?: string | null; function: { name: string; arguments?: unknown } }
  | { toolCallId?: string | null; toolName: string; input?: unknown; args?: unknown }
  | { id?: string | null; name: string; arguments?: unknown; [key: string]: unknown };

/** A Node chat adapter's return: `{content, toolCalls}` (finishReason as the provider says it). */
export interface ContentToolCalls {
  content?: string | null;
  toolCalls?: AnyToolCall[];
  finishReason?: string | null;
  usage?: Record<string, number | null | undefined> | null;
}

/** What a chat function may return: mapped by toResponse(). */
export type AnyResponse = ChatResponse | ContentToolCalls | { choices: unknown[]; usage?: unknown }
  | { type: "message"; content: unknown[]; stop_reason?: string | null; usage?: unknown };

export type MaybePromise<T> = T | Promise<T>;
export type AnyIterable<T> = AsyncIterable<T> | Iterable<T>;

/** chat: one call. */
export type ChatFunction = (request: CanonicalRequest, endpoint: FakeEndpoint) => MaybePromise<AnyResponse>;
/** stream: canonical events, OpenAI chunks, Anthropic events or AI SDK parts (toEvents()). */
export type StreamFunction = (request: CanonicalRequest, endpoint: FakeEndpoint) =>
  MaybePromise<AnyIterable<CanonicalStreamEvent | Record<string, unknown>>>;

/** The kit's answer to a tool call the loop asked it to run. */
export type ToolReply =
  | { ok: true; content: string }
  | { ok: false; error: string; retryable?: boolean;
      kind?: "execution" | "validation" | "unknown_tool" | "timeout" | "crash" };

export interface LoopInput {
  messages: CanonicalMessage[];
  tools: ToolSpec[];
  endpoint: FakeEndpoint;
  /** Ask the kit to run one tool call; several may be in flight together. */
  runTool(call: { id?: string | null; name: string; arguments?: unknown }): Promise<ToolReply>;
}
export type LoopFunction = (input: LoopInput) => MaybePromise<LoopResult>;

export type HistoryFunction = (stored: CanonicalMessage[]) => MaybePromise<CanonicalMessage[]>;

export interface ExtractInput {
  request: CanonicalRequest;
  toolName: string;
  schema: Record<string, unknown>;
  /** Open one model stream (the kit counts the streams opened and how far each was read). */
  openStream(request: CanonicalRequest): Promise<AsyncIterable<CanonicalStreamEvent>>;
}
export type ExtractFunction = (input: ExtractInput) => MaybePromise<FallbackResult>;

/** Fields of pytest_toolcall.Profile (docs/protocol.md): what the implementation claims. */
export type Profile = { [field: string]: unknown };

export interface Implementation {
  name?: string;
  profile?: Profile;
  adapter?: { complete: ChatFunction; stream?: StreamFunction };
  loop?: { run: LoopFunction };
  history?: { build: HistoryFunction };
  structured?: { extract: ExtractFunction };
}

/** Serve an implementation over the protocol on stdin/stdout (stdout is the protocol's). */
export declare function serve(impl: Implementation): void;

/** Thrown for an error the provider answered with: message is the provider's own words. */
export declare class ProviderError extends Error {
  constructor(message: string, status?: number | null, extra?: ErrorExtra);
  kind: "provider";
  status: number | null;
}
/** Thrown for an error the provider sent in the middle of a stream. */
export declare class StreamError extends Error {
  constructor(message: string, extra?: ErrorExtra);
  kind: "stream";
}
/** Thrown when a stream ended before the provider's end marker. */
export declare class IncompleteStreamError extends Error {
  constructor(message: string);
  kind: "incomplete";
}
export interface ErrorExtra {
  providerType?: string | null;
  code?: string | number | null;
  /** seconds */
  retryAfter?: number | null;
  retryable?: boolean | null;
}

export interface HttpResponse {
  status: number;
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array>;
  text(): Promise<string>;
}
/** A small fetch on node:http with kept-alive connections and a read timeout (ms). */
export declare function httpRequest(url: string, init?: {
  method?: string; headers?: Record<string, string>; body?: string; readTimeout?: number;
}): Promise<HttpResponse>;

/** A call's arguments as JSON text to replay to a provider. */
export declare function argumentsJson(call: CanonicalToolCall): string;
/** Whether a value fits a JSON Schema (a small subset: use ajv in production). */
export declare function fitsSchema(schema: unknown, value: unknown): boolean;

export declare function toResponse(response: AnyResponse): ChatResponse;
export declare function toEvents(
  stream: AnyIterable<CanonicalStreamEvent | Record<string, unknown>>): AsyncGenerator<CanonicalStreamEvent>;
export declare function fromOpenAIChunks(chunks: AnyIterable<unknown>): AsyncGenerator<CanonicalStreamEvent>;
export declare function fromAnthropicEvents(events: AnyIterable<unknown>): AsyncGenerator<CanonicalStreamEvent>;
export declare function fromAISDKParts(parts: AnyIterable<unknown>): AsyncGenerator<CanonicalStreamEvent>;
export declare function finishReason(reason: string | null | undefined): ChatResponse["finish_reason"];
export declare function usageOf(usage: unknown): Usage | null;
export declare function toolCallOf(call: AnyToolCall): { id: string | null; name: string; arguments: unknown };
export declare function streamShape(first: unknown): "canonical" | "openai" | "anthropic" | "ai-sdk" | null;
