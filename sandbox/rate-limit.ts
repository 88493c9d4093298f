/**
 * A token-bucket rate limit per API key, as real APIs enforce it: `burst` requests at once, refilled at
 * `requestsPerSecond`. Answers carry the bucket as `RateLimit-*` hints (always, only on a refusal, or never); a refusal
 * always carries `Retry-After`.
 */

/** When the answers carry the `RateLimit-*` hints. */
export type RateLimitHints = "always" | "on-429" | "never";

/** Whether an answer (allowed or refused) carries the hints under `mode` (`true`/`false`: always/never). */
export function sendsHints(mode: RateLimitHints | boolean | undefined, allowed: boolean): boolean {
  const resolved = mode === undefined || mode === true ? "always" : mode === false ? "never" : mode;
  return resolved === "always" || (resolved === "on-429" && !allowed);
}

/** Rate limit settings. */
export interface RateLimitOptions {
  /** Requests per second and key, the bucket's refill rate. */
  requestsPerSecond: number;
  /** The bucket's size: requests allowed at once after a quiet spell. @default requestsPerSecond (one second's worth) */
  burst?: number;
}

/** Outcome of counting one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** `RateLimit-Limit`: the bucket's size. */
  limit: number;
  /** `RateLimit-Remaining`: whole requests left in the bucket. */
  remaining: number;
  /** `RateLimit-Reset`: seconds until the bucket is full again (0 when it is). */
  resetSeconds: number;
  /** `Retry-After` of a refusal: seconds until one request is allowed (at least 1). */
  retryAfterSeconds: number;
}

/** Counts requests per key in token buckets. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly burst: number;

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.burst = options.burst ?? options.requestsPerSecond;
    if (!(options.requestsPerSecond > 0) || !(this.burst >= 1)) {
      throw new Error(`rateLimit needs requestsPerSecond > 0 and burst >= 1 (got ${options.requestsPerSecond} and ${this.burst})`);
    }
  }

  /** Counts a request for `key` and says whether it is allowed. */
  take(key: string): RateLimitDecision {
    const now = this.now();
    const rate = this.options.requestsPerSecond;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      limit: this.burst,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.burst - bucket.tokens) / rate),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
    };
  }
}
