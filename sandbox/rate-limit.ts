/**
 * A rate limit per API key, in either of the two shapes real APIs use: a token bucket (`burst` requests at once,
 * refilled at `requestsPerSecond`), or fixed windows (`requestsPerSecond × windowSeconds` requests in each window of
 * `windowSeconds`, counted afresh at each window's start, so a client may meet twice the rate across a window's edge
 * and a refusal may ask it to wait out the rest of the window). Answers carry the limit as hints in any form the
 * contract names (contract/rate-limit.ts; always, only on a refusal, or never); a refusal always carries `Retry-After`.
 */
import type { StatedQuota } from "../contract";

/** When the answers carry the rate-limit hints. */
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
  /** Count in fixed windows of this many seconds instead of a token bucket (`burst` is then unused). @default none */
  windowSeconds?: number;
}

/** Outcome of counting one request. */
export interface RateLimitDecision {
  allowed: boolean;
  /** `RateLimit-Limit`: the bucket's size. */
  limit: number;
  /** `RateLimit-Remaining`: whole requests left in the bucket. */
  remaining: number;
  /** Seconds until the bucket is full again (0 when it is), rounded up. */
  resetSeconds: number;
  /** The quota as the hints state it: what is left, when it is whole again (exactly), its window. */
  quota: StatedQuota;
  /** `Retry-After` of a refusal: seconds until one request is allowed (at least 1). */
  retryAfterSeconds: number;
}

/** Counts requests per key in token buckets. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly windows = new Map<string, { start: number; used: number }>();
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

  /** Forgets every key's count: each starts again with a full bucket or a new window. */
  reset(): void {
    this.buckets.clear();
    this.windows.clear();
  }

  /** Counts a request for `key` and says whether it is allowed. */
  take(key: string): RateLimitDecision {
    return this.options.windowSeconds ? this.takeFromWindow(key, this.options.windowSeconds) : this.takeFromBucket(key);
  }

  private takeFromWindow(key: string, windowSeconds: number): RateLimitDecision {
    const now = this.now();
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const limit = Math.max(1, Math.floor(this.options.requestsPerSecond * windowSeconds));
    const count = this.windows.get(key);
    const used = count && count.start === start ? count.used : 0;
    const allowed = used < limit;
    this.windows.set(key, { start, used: allowed ? used + 1 : used });
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    const remaining = limit - (allowed ? used + 1 : used);
    const quota = { limit, remaining, resetAt: start + windowMs, windowSeconds };
    return { allowed, limit, remaining, resetSeconds, retryAfterSeconds: resetSeconds, quota };
  }

  private takeFromBucket(key: string): RateLimitDecision {
    const now = this.now();
    const rate = this.options.requestsPerSecond;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (Math.max(0, now - bucket.at) / 1000) * rate);
    bucket.at = now;
    this.buckets.set(key, bucket);
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    const remaining = Math.floor(bucket.tokens);
    const fullInMs = ((this.burst - bucket.tokens) / rate) * 1000;
    return {
      allowed,
      limit: this.burst,
      remaining,
      resetSeconds: Math.ceil(fullInMs / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)),
      quota: { limit: this.burst, remaining, resetAt: now + fullInMs, windowSeconds: this.burst / rate },
    };
  }
}
