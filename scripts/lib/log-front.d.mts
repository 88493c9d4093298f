import type { LimiterFront } from "./limiter-front.mjs";

/**
 * Starts a sliding log on loopback in front of `upstream` (the `limits` library's moving window, installed from PyPI
 * into the cache on first use): at most `rate` requests per key in any second, with GitHub's hints on every answer,
 * their reset when the oldest request leaves the log. `refused()` and `passed()` count its decisions.
 */
export declare function startLogFront(upstream: string, options: { rate: number }): Promise<LimiterFront>;
