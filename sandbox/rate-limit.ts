/**
 * A fixed-window rate limit per API key.
 */

/** Rate limit settings. */
export interface RateLimitOptions {
  /** Requests allowed per window and key. */
  requests: number;
  /** Window length in milliseconds. */
  windowMs: number;
}

/** Outcome of counting one request. */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

/** Counts requests per key in fixed windows. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a request for `key` and says whether it is allowed. */
  take(key: string): RateLimitDecision {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.options.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((window.start + this.options.windowMs - now) / 1000));
    return {
      allowed: window.count <= this.options.requests,
      limit: this.options.requests,
      remaining: Math.max(0, this.options.requests - window.count),
      resetSeconds,
    };
  }
}
