// pytest-toolcall-node: the kit's child-process protocol for JavaScript and TypeScript.
export { PROTOCOL_VERSION, serve, httpRequest, argumentsJson, fitsSchema } from "./harness.mjs";
export { ProviderError, StreamError, IncompleteStreamError } from "./errors.mjs";
export {
  toResponse, toEvents, fromOpenAIChunks, fromAnthropicEvents, fromAISDKParts, finishReason,
  usageOf, toolCallOf, streamShape,
} from "./mappers.mjs";
