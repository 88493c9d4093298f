import type { LimiterFront } from "./limiter-front.mjs";

/**
 * Starts nginx on loopback in front of `upstream`: `rate` requests a second per key after a `burst`, the rest answered
 * `status` (429, or nginx's default 503), with no rate-limit hints. `refused()` and `passed()` count from its access log.
 */
export declare function startNginxFront(
  upstream: string,
  options: { rate: number; burst: number; status?: 429 | 503; nginx?: string },
): Promise<LimiterFront>;
