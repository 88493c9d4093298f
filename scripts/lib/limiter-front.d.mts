/** express-rate-limit's header modes: `legacy` is `X-RateLimit-*` alone, the others its `standardHeaders` drafts. */
export type LimiterMode = "legacy" | "draft-6" | "draft-7" | "draft-8";

/** Every mode, in the library's order. */
export declare const LIMITER_MODES: readonly LimiterMode[];

/** The front: its URL, how many requests it refused and let through, and how to stop it. */
export interface LimiterFront {
  url: string;
  /** Requests refused (`429`, or the status the front refuses with). */
  refused(): number;
  /** Requests let through. */
  passed(): number;
  stop(): Promise<void>;
}

/** Starts the front on loopback: `limit` requests per key in each window of `windowMs`, forwarded to `upstream`. */
export declare function startLimiterFront(upstream: string, options: { mode: LimiterMode; limit: number; windowMs: number }): Promise<LimiterFront>;
