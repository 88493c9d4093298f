/**
 * The retry decision and the backoff, as pure functions (the request loop in request.ts applies them).
 */

/** What happened on one attempt, as far as retrying is concerned. */
export interface AttemptOutcome {
  /** HTTP status, or undefined when no response arrived (connection error or timeout). */
  status?: number;
  /** True when the request may be sent again without risk of a second effect (GET, or a POST with an idempotency key). */
  idempotent: boolean;
}

/** Statuses worth another try: timeouts, rate limits and server failures. Other 4xx are final. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** Whether the attempt should be retried, leaving aside the attempt budget and the deadline. */
export function isRetryable(outcome: AttemptOutcome): boolean {
  if (!outcome.idempotent) {
    return false;
  }
  if (outcome.status === undefined) {
    return true;
  }
  // 409 from POST /v1/orders means the same key is still being processed: asking again later is safe.
  return RETRYABLE_STATUSES.has(outcome.status) || outcome.status === 409;
}

/** Backoff settings. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. */
  initialRetryDelayMs: number;
  /** Largest delay between two attempts, before jitter. */
  maxRetryDelayMs: number;
}

/**
 * The randomness of the backoff's jitter, in one object, so that tests fix it (`vi.spyOn(jitter, "random")`). The waits
 * themselves pass on the client's clock (its option `clock`). Not part of the public API.
 */
export const jitter = {
  /** Uniform in [0, 1). */
  random: (): number => Math.random(),
};

/**
 * Exponential backoff with full jitter: a uniform delay between 0 and min(max, initial * 2^retry).
 * `retry` counts from 0 for the first retry.
 */
export function backoffDelay(retry: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.maxRetryDelayMs, options.initialRetryDelayMs * 2 ** retry);
  return Math.round(jitter.random() * ceiling);
}
