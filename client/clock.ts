/**
 * The time, and a way to let it pass: the package's one clock type. The request budget, the waiter, the absence check
 * and the provider core take one (the core hands its own to the others); tests pass a simulated one.
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
