/**
 * The sandbox's clock: real time plus an offset that tests move forward, so a test makes an order become active (or
 * expire) at once instead of waiting for it.
 */

/** A clock the tests control. */
export interface SandboxClock {
  /** Epoch milliseconds, as the sandbox sees them. */
  now(): number;
  /** Moves the sandbox's time forward by `ms` (orders progress as if that time had passed). */
  advance(ms: number): void;
}

/** A clock on `base` (the real one by default), moved by `advance`. */
export function createClock(base: () => number = Date.now): SandboxClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}
