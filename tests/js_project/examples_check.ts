// The package's declarations against the Node examples (docs/examples/node): each export is
// assignable to the function type the runner serves it as. Checked with tsc --strict.
import type { ChatFunction, ExtractFunction, HistoryFunction, LoopFunction, Profile, StreamFunction } from "pytest-toolcall-node";
import { buildHistory, profile, runTools, sendMessages, sendMessagesStreaming } from "./examples/openai_adapter.mjs";
import { extract } from "./examples/collector.mjs";

export const chat: ChatFunction = sendMessages;
export const stream: StreamFunction = sendMessagesStreaming;
export const loop: LoopFunction = runTools;
export const history: HistoryFunction = buildHistory;
export const structured: ExtractFunction = extract;
export const claims: Profile = profile;
