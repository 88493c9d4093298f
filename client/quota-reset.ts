/**
 * When a quota that `RateLimit-*` hints report is whole again. `RateLimit-Reset` is whole seconds, so one answer puts
 * the reset anywhere in a second: (now + reset − 1 s, now + reset]. Waiting for the end of that second lost up to a
 * second of every window (the hints of a fixed one-second window always say 1): a ProxyFleet of 200 took 1.34x of its
 * floor against such an API (docs/contributing/benchmarks.md, "Hints to the second"). Every answer within one window
 * bounds the same instant, so their seconds are intersected, and the reset is known to within the gaps between
 * answers.
 *
 * Only once the quota was seen to come back whole at once (by more than half its limit between two answers), as a
 * fixed window's does, and never once it looks like a token bucket's: a bucket's `RateLimit-Reset` is when it will be
 * full, which moves later with every request, so an instant intersected from its answers comes too early, and a burst
 * after it is answered `429`. A bucket shows itself when a quota nearly spent grows back by a little, or when its
 * answers' seconds stop meeting while it stays nearly spent; from then on, the reset is the end of the last answer's
 * second, as if nothing were intersected.
 */

interface Bounds {
  /** The reset is after this (epoch milliseconds)... */
  after: number;
  /** ...and by this. */
  by: number;
  /** What the hints said was left. */
  remaining: number;
  /** This process's requests unanswered when they came (the answered one not counted). */
  inFlight: number;
}

/** The reset of a quota the hints report, learned answer by answer; see the module's comment. */
export class QuotaReset {
  private bounds: Bounds | undefined;
  /** Whether the quota was seen to come back whole at once, as a fixed window's does. */
  private windowed = false;
  /** Whether it was seen to come back a little at a time, or its answers' seconds stopped meeting: a token bucket's. */
  private bucket = false;

  /** Whether the quota comes back whole at once, as a fixed window's does, and never looked like a token bucket's. */
  get fixedWindow(): boolean {
    return this.windowed && !this.bucket;
  }

  /**
   * One more answer's hints, at `now`, with `inFlight` of this process's requests still unanswered: returns when the
   * quota is whole again (epoch milliseconds).
   */
  observe(now: number, hints: { limit: number; remaining: number; resetMs: number }, inFlight: number): number {
    const fresh: Bounds = { after: now + hints.resetMs - 1000, by: now + hints.resetMs, remaining: hints.remaining, inFlight };
    const last = this.bounds;
    this.bounds = fresh;
    if (!last) return fresh.by;
    // Answers out of order show the quota grown by at most the requests then in flight. More is a new window; but a
    // quota nearly spent that grows back by a little is a bucket's refill.
    const grown = hints.remaining - (last.remaining + last.inFlight);
    const nearlySpent = last.remaining <= hints.limit / 4;
    if (grown > hints.limit / 2) this.windowed = true;
    else if (grown > 0 && nearlySpent) this.bucket = true;
    if (grown <= 0) {
      const after = Math.max(last.after, fresh.after);
      const by = Math.min(last.by, fresh.by);
      if (after < by) this.bounds = { ...fresh, after, by };
      // Past the reset, a quota that was mostly left looks the same after a window's start as after a bucket's refill:
      // only one that stayed nearly spent shows a bucket (a lone stack polling once a second, one request a window, was
      // read as a bucket and then used its windows in alternate seconds: a ProxyFleet of 200 took 1.30x of its floor
      // instead of 1.12x in real runs, docs/contributing/benchmarks.md).
      else if (nearlySpent) this.bucket = true;
    }
    return this.windowed && !this.bucket ? this.bounds.by : fresh.by;
  }
}
