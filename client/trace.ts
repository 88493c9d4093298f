/**
 * What the client tells a tracer about each call, in its own words, so that no tracing library reaches the client.
 * Nothing is told unless the client was given a tracer (its option `tracer`): the provider gives its accounts' clients
 * the process's when the engine asks for traces (tracing/).
 */

/** How an attempt, or a whole call, ended. */
export interface CallOutcome {
  /** The HTTP status, when an answer came. */
  status?: number;
  /** The server's `X-Request-Id`. */
  requestId?: string;
  /** The error code, when the attempt or call failed (`rate_limited`, `ECONNRESET`, `deadline`...). */
  code?: string;
  /** The answer's `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
}

/** One call of the client: its turn under the rate limit, its attempts, its back-offs. */
export interface CallTrace {
  /** The call's turn under the key's rate limit came after `heldMs` (told only when it waited). */
  held(heldMs: number): void;
  /** An attempt is sent; `end` is told how it ended. */
  attempt(attempt: number): { end(outcome: CallOutcome): void };
  /** The call waits `delayMs` before its next attempt, because the last one failed with `outcome`. */
  backoff(delayMs: number, outcome: CallOutcome): void;
  /** The call ended. */
  end(outcome: CallOutcome): void;
}

/** Starts the trace of each call. */
export interface CallTracer {
  /** A call of `method` on `path` (with `/v1`), for the order `orderId` when the path or the purchase names one. */
  call(method: string, path: string, orderId?: string): CallTrace;
}
