// The errors an implementation throws for the kit to report as the provider's (docs/protocol.md).
/** The provider answered with an error: message is the provider's own words. */
export class ProviderError extends Error {
  /** extra: what a retrying caller reads: {providerType, code, retryAfter (s), retryable} */
  constructor(message, status = null, extra = {}) { super(message); this.kind = "provider"; this.status = status; Object.assign(this, extra); }
}
/** The provider sent an error in the middle of a stream. */
export class StreamError extends Error {
  constructor(message, extra = {}) { super(message); this.kind = "stream"; Object.assign(this, extra); }
}
/** The stream ended before the provider's end marker. */
export class IncompleteStreamError extends Error {
  constructor(message) { super(message); this.kind = "incomplete"; }
}

