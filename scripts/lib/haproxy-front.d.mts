import type { LimiterFront } from "./limiter-front.mjs";

/**
 * Starts HAProxy on loopback in front of `upstream`: at most `rate` requests per key in any sliding second, the rest
 * answered `status` (by default 429), with no rate-limit hints. `refused()` and `passed()` count from its log.
 */
export declare function startHaproxyFront(upstream: string, options: { rate: number; status?: number; haproxy?: string }): Promise<LimiterFront>;
