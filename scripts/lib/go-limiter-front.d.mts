import type { LimiterFront } from "./limiter-front.mjs";

/**
 * Starts go-chi/httprate on loopback in front of `upstream` (built from Go modules into the cache on first use): a
 * sliding window counter of at most `rate` requests per key a second, with GitHub's hints on every answer, their reset
 * the current window's end cut down to the second. `refused()` and `passed()` count its decisions.
 */
export declare function startHttprateFront(upstream: string, options: { rate: number }): Promise<LimiterFront>;

/**
 * Starts ulule/limiter's memory store on loopback in front of `upstream` (built as above): windows of a second, each from
 * the first request after the last ended, of at most `rate` requests per key, every request counted; GitHub's hints on
 * every answer, their reset the window's end cut down to the second, and no `Retry-After` on a refusal.
 */
export declare function startUluleFront(upstream: string, options: { rate: number }): Promise<LimiterFront>;
