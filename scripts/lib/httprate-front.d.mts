import type { LimiterFront } from "./limiter-front.mjs";

/**
 * Starts go-chi/httprate on loopback in front of `upstream` (built from Go modules into the cache on first use): a
 * sliding window counter of at most `rate` requests per key a second, with GitHub's hints on every answer, their reset
 * the current window's end cut down to the second. `refused()` and `passed()` count its decisions.
 */
export declare function startHttprateFront(upstream: string, options: { rate: number }): Promise<LimiterFront>;
