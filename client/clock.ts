/**
 * The time, and a way to let it pass: the package's one clock type. The API client and its request budget, the
 * waiter, the absence check, a fleet's progress lines and the provider core take one (the core hands its own to the
 * others); tests pass a simulated one. Times the API states absolutely (an HTTP-date `Retry-After`, a Unix-time
 * reset) are read against the real time, corrected by the answer's `Date` where the API's clock is off
 * (contract/rate-limit.ts `apiTime`).
 */
import { setTimeout as sleepFor } from "node:timers/promises";

/** The time, and a way to let it pass. */
export interface Clock {
  now(): number;
  /** Waits `ms`; rejects with the signal's reason, or resolves early, when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** The real time. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal }),
};
