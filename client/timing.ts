/**
 * The waits and the randomness of the retry loop, in one object, so that tests replace them (`vi.spyOn`) instead of
 * waiting. Not part of the public API.
 */
import { setTimeout as sleepFor } from "node:timers/promises";

export const timing = {
  /** Waits `ms`; rejects with the signal's reason when it aborts first. */
  sleep: (ms: number, signal?: AbortSignal): Promise<void> => sleepFor(ms, undefined, { signal }),
  /** Uniform in [0, 1), for jitter. */
  random: (): number => Math.random(),
};
