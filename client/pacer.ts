/**
 * The send rate a request budget keeps to: a token bucket whose rate is learned, never a window released as a burst.
 * Pure: every method takes the time, so tests drive it with numbers.
 *
 * - **Slow start: a window, not a rate.** Before the key has said anything about its limit, what is bounded is the
 *   number of requests in flight: `initialRatePerSecond` at first, one more for every answer up to
 *   `slowStartThreshold` (doubling every round trip, as TCP's slow start does), then one more per two windows' worth
 *   of answers (one per two round trips: TCP's congestion avoidance as a receiver that acknowledges every other segment
 *   makes it). Requests that follow each other, or a handful at once, never wait for an API that never refuses; a
 *   fleet of a thousand does not fire a thousand requests into an unknown limit: at the first `429` about the window
 *   was in flight, and each of those is answered `429` too, so the window stays near the threshold unless the API
 *   goes on accepting more for many round trips. The rate it leaves for is what the API accepted meanwhile.
 * - **A shared key starts by rate.** When a share below all of the key was asked for (limitShare), others are known to
 *   send on the key, and a window alone would let a few round trips on a fast link spend a whole second's quota of
 *   theirs before the first `429` says what the key's rate is. Then the slow start is also a rate:
 *   `initialRatePerSecond`, doubling every half second from the first request, until the first `429` or hint.
 * - **A 429 cuts the rate** to `throttleFactor` of the rate the API accepted from this process over the last seconds
 *   (W), once per episode. The rate then grows back on a cubic curve, as TCP CUBIC and the AWS SDKs' adaptive retry
 *   mode do: fast at first and flat as it nears W; above W it probes, slowly at first and faster the longer no 429
 *   comes, by a share of the key's rate. Several processes on one key, knowing nothing of each other, converge on
 *   shares of it through the same rule.
 * - **Without hints, a rate that holds reclaims the key.** The probe's scale is then only the largest rate this
 *   process got accepted, and a stack that first met the key while another stack had all of it learned almost
 *   nothing (as little as `minRatePerSecond`): probing by that, it took tens of seconds to take back the key once the
 *   other was done. So once the rate has held `reclaimAfterSeconds` above the refused rate W with no 429, it also
 *   doubles every `reclaimDoublingSeconds` (W × 2^(s / reclaimDoublingSeconds), s seconds later): within seconds of
 *   a neighbour finishing, whatever the scale learned. A stack alone at the key's rate meets its 429 from the probe
 *   before then. With hints, the probe's scale is the key's rate, and the rate is never above the hints' share of it.
 *   (Two untold stacks of 100 orders on an API without hints: the second finished at 2.45x of the floor without this,
 *   at 1.55x to 1.84x in three runs with it; docs/contributing/benchmarks.md.)
 * - **With hints on every answer, unspent quota reclaims the key.** Even scaled by the key's rate, the probe takes
 *   about 20 s from a rate cut to the least (a stack that met the key while a neighbour spent every window) to all of
 *   the key. Hints on every answer show the room itself: when every answer over two of the quota's periods found more
 *   than half of it left, nobody is spending it, and the rate doubles, once a period, up to half of the hinted rate
 *   (room); the probe goes on from there. A neighbour that spends the key leaves some answer of those periods finding
 *   it nearly spent. Doubling up to all of the key measured faster but gave more `429`s: two stacks that found room
 *   together doubled past the key's rate. (Two untold stacks of 100 orders against the unkind sandbox's one-second
 *   windows, three real runs each: 1.65x to 1.56x of the floor in the mean, 3.0% to 2.5% of requests answered `429`;
 *   four with one 10 s late, 1.71x to 1.46x, 7.3% to 7.9%, within the spread of 5.7% to 8.7%.)
 * - **Without hints, a rate refused twice is held before it is probed.** A `429` at the rate the last one came at
 *   (within 15%) says the key's rate again, and probing above it again costs another `429`, whose `Retry-After` (whole
 *   seconds) can stop every request for most of a second. So each such refusal, up to two in a row, holds the rate at
 *   the refused one for `steadyHoldSeconds` before it probes. (A stack of 200 orders and a fleet of 1,000 against an
 *   API without hints: 1.25x to 1.23x and 1.21x to 1.17x of the floor in the simulation, 2.2% to 2.0% and 0.9% to
 *   0.7% of requests answered `429`; several stacks within their spread.)
 * - **With hints on every answer, a window spent together is a mark.** An answer that finds the quota spent, when it
 *   fell by more than this process's own requests explain (client/crowding.ts), says others spend the key too, and
 *   that the next request of one of them will be refused: the rate is cut then, to `crowdedFactor` (0.85) of what was
 *   accepted, without a pause, at most once a period, as TCP takes an ECN mark instead of waiting for a loss. (Two
 *   untold stacks of 100 orders against the unkind sandbox's one-second windows, four real runs each: 2.2% to 4.9% of
 *   requests answered `429` before, 1.2% to 2.9% after, the last done at 1.35x to 1.52x of the floor before, 1.29x to
 *   1.43x after; four with one 10 s late, 8.0% and 8.2% before, 5.5% and 5.8% after, in the same time;
 *   docs/contributing/benchmarks.md, "A window spent together".)
 * - **Hints imply a rate.** A `RateLimit-Limit` of L with `RateLimit-Reset` R seconds when the quota is spent (or on a
 *   429) means about L / R requests per second (exact for a token bucket); the rate never goes above
 *   `hintShare` of that, so a limit learned from one 429 holds even when the API sends no hints on its successes.
 */

/** Defaults of {@link PacerOptions}. */
export const DEFAULT_PACER_OPTIONS = {
  initialRatePerSecond: 2,
  slowStartThreshold: 4,
  minBurst: 4,
  maxSlowStartRatePerSecond: 1000,
  throttleFactor: 0.7,
  crowdedFactor: 0.85,
  cubicGrowth: 0.0005,
  probePerSecond: 0.005,
  probeGrowth: 0.0002,
  minRatePerSecond: 1,
  hintShare: 0.95,
  reclaimAfterSeconds: 4,
  reclaimDoublingSeconds: 2,
  steadyHoldSeconds: 3,
} as const;

/** Above the slow start's threshold, the window grows by this many requests per window's worth of answers. */
const AVOIDANCE_STEP = 0.5;

/** How many refusals in a row at one rate lengthen the hold before the probe (see the module's comment). */
const MAX_STEADY_HOLDS = 2;

/** A refusal within this share of the last one's rate is at the same rate. */
const SAME_RATE = 0.15;

/** Over how many of a quota's periods room is looked for, and the part of what the hints allow it doubles up to. */
const ROOM_PERIODS = 2;
const ROOM_CAP = 0.5;

/** How often a shared key's slow start doubles its rate (see the module's comment). */
const SHARED_START_DOUBLING_MS = 500;

/** Options of a {@link Pacer}. */
export interface PacerOptions {
  /**
   * The slow start's first window: requests in flight before any answer but the first; on a shared key also its first
   * rate, per second. @default 2
   */
  initialRatePerSecond?: number;
  /** The smallest burst the learned rate allows (its bucket holds at least this many requests). @default 4 */
  minBurst?: number;
  /**
   * Up to this window, each answer adds one request to it; above, two windows' worth of answers add one: the most
   * requests likely to be in flight, and answered `429`, when an unknown limit is first met. @default 4
   */
  slowStartThreshold?: number;
  /** The slow start's window grows no larger than this. @default 1000 */
  maxSlowStartRatePerSecond?: number;
  /** The share of the refused rate kept after a 429. @default 0.7 */
  throttleFactor?: number;
  /**
   * The share of the accepted rate kept when an answer shows the quota spent with others spending it too (see
   * `crowded`): a mark, not a refusal, so a gentler cut, as RFC 8511 has TCP CUBIC take on an ECN mark (0.85 against
   * 0.7 on a loss). @default 0.85
   */
  crowdedFactor?: number;
  /**
   * How fast the rate grows back after a cut, as the cubic's constant relative to the refused rate W:
   * `rate(t) = W × (1 + cubicGrowth × (t − K)³)` until K, the time (seconds) when the rate is back at W.
   * @default 0.0005 (back at W after about 8.4 s)
   */
  cubicGrowth?: number;
  /**
   * Once back at the refused rate W, how fast the rate probes above it, per second: a share of the key's rate (the
   * hints', or the largest W seen). @default 0.005
   */
  probePerSecond?: number;
  /**
   * How the probe speeds up: its cubic term, also a share of the key's rate, so that the probe above W is
   * `keyRate × (probePerSecond × x + probeGrowth × x³)` after x seconds. @default 0.0002 (a quarter of the key's rate
   * above W after 10 s)
   */
  probeGrowth?: number;
  /**
   * The rate is never cut below this, in requests per second: a server that refuses a share of requests whatever the
   * rate (within the contract) would otherwise cut it towards nothing, and every wait past its deadline. @default 1
   */
  minRatePerSecond?: number;
  /** The share of the rate the API's hints imply that is used. @default 0.95 */
  hintShare?: number;
  /**
   * Without hints, how long the rate holds above the refused rate W with no 429 before it also doubles, to reclaim a
   * key a neighbour left (see the module's comment), in seconds. @default 4
   */
  reclaimAfterSeconds?: number;
  /** How often the reclaiming rate doubles, in seconds. @default 2 */
  reclaimDoublingSeconds?: number;
  /**
   * Without hints, how long the rate holds at a refused rate W before it probes, for each refusal in a row at the same
   * rate (at most two), in seconds. @default 3
   */
  steadyHoldSeconds?: number;
}

/** The learned send rate of one API key; see the module's comment. */
export class Pacer {
  private readonly options: Required<PacerOptions>;
  /** Tokens in the bucket, as of `at`. */
  private tokens: number;
  private at: number;
  /** The slow start's window of requests in flight, until the first cut or hint. */
  private window: number;
  /**
   * The last cut: the refused rate W, the largest W seen (the key's rate, as far as this process knows), when growth
   * back began, and how many refusals in a row came at about W before it.
   */
  private cut: { refused: number; largest: number; since: number; steady: number } | undefined;
  /** The rate the API's hints imply, when they said one. */
  private hinted: number | undefined;
  /** The most of the key's rate used (limitShare): of the hinted rate, or of the largest rate a 429 taught. */
  private share = 1;
  /** When the first request went: a shared key's slow start doubles its rate every half second from then. */
  private startedAt: number | undefined;
  /** When a quota's room last raised the rate, and what the answers since the last 429 found left (see room). */
  private roomAt = Number.NEGATIVE_INFINITY;
  /** When a quota found spent with others last cut the rate (see crowded). */
  private crowdedAt = Number.NEGATIVE_INFINITY;
  private quotaSeen: { at: number; low: boolean }[] = [];

  constructor(now: number, options: PacerOptions = {}) {
    const d = DEFAULT_PACER_OPTIONS;
    this.options = {
      initialRatePerSecond: options.initialRatePerSecond ?? d.initialRatePerSecond,
      slowStartThreshold: options.slowStartThreshold ?? d.slowStartThreshold,
      minBurst: options.minBurst ?? d.minBurst,
      maxSlowStartRatePerSecond: options.maxSlowStartRatePerSecond ?? d.maxSlowStartRatePerSecond,
      throttleFactor: options.throttleFactor ?? d.throttleFactor,
      crowdedFactor: options.crowdedFactor ?? d.crowdedFactor,
      cubicGrowth: options.cubicGrowth ?? d.cubicGrowth,
      probePerSecond: options.probePerSecond ?? d.probePerSecond,
      probeGrowth: options.probeGrowth ?? d.probeGrowth,
      minRatePerSecond: options.minRatePerSecond ?? d.minRatePerSecond,
      hintShare: options.hintShare ?? d.hintShare,
      reclaimAfterSeconds: options.reclaimAfterSeconds ?? d.reclaimAfterSeconds,
      reclaimDoublingSeconds: options.reclaimDoublingSeconds ?? d.reclaimDoublingSeconds,
      steadyHoldSeconds: options.steadyHoldSeconds ?? d.steadyHoldSeconds,
    };
    this.window = this.options.initialRatePerSecond;
    this.tokens = this.options.minBurst;
    this.at = now;
  }

  /** Whether the slow start is on: nothing learned yet, so the window bounds the requests in flight, not a rate. */
  get slowStart(): boolean {
    return this.cut === undefined && this.hinted === undefined;
  }

  /**
   * The rate in force at `now`, in requests per second (during the slow start, which a window bounds, unbounded but
   * for a shared key's).
   */
  rate(now: number): number {
    if (this.slowStart) return this.share < 1 ? this.sharedStartRate(now) : Number.POSITIVE_INFINITY;
    let rate = Number.POSITIVE_INFINITY;
    if (this.cut) {
      const { cubicGrowth, probePerSecond, probeGrowth, reclaimAfterSeconds, reclaimDoublingSeconds } = this.options;
      const k = this.backAtRefusedSeconds;
      const t = Math.max(0, now - this.cut.since) / 1000;
      // Back to the refused rate on the cubic's concave side; above it, a probe that starts slowly and speeds up (the
      // cubic's convex side), so that the rate a finished neighbour left free is taken within seconds. Once a hint said
      // the key's rate, the probe is the same for every process on the key (a share of that rate, not of this
      // process's): additive increase and multiplicative decrease are what make several processes converge on fair
      // shares instead of one starving. Without hints its scale is this process's own, hence the reclaim.
      const { refused, largest, steady } = this.cut;
      const hold = this.hinted === undefined ? this.options.steadyHoldSeconds * Math.min(steady, MAX_STEADY_HOLDS) : 0;
      const x = t - k < 0 ? t - k : Math.max(0, t - k - hold);
      if (x < 0) rate = refused * (1 + cubicGrowth * x ** 3);
      else {
        const probe = (this.hinted ?? largest) * (probePerSecond * x + probeGrowth * x ** 3);
        const held = x - reclaimAfterSeconds;
        const reclaim = this.hinted === undefined && held > 0 ? refused * (2 ** (held / reclaimDoublingSeconds) - 1) : 0;
        rate = refused + Math.max(probe, reclaim);
      }
    }
    if (this.hinted !== undefined) rate = Math.min(rate, this.hintedCap(this.hinted));
    else if (this.cut && this.share < 1) rate = Math.min(rate, this.cut.largest * this.share);
    return Math.max(this.options.minRatePerSecond, rate);
  }

  /**
   * When the next request may go, with `inFlight` requests unanswered: `now`, a later time by the rate, or Infinity
   * while the slow start's window is full (an answer opens it).
   */
  nextAt(now: number, inFlight = 0): number {
    if (this.slowStart) {
      if (inFlight >= this.window) return Number.POSITIVE_INFINITY;
      if (this.share === 1) return now;
    }
    this.refill(now);
    if (this.tokens >= 1) return now;
    return now + ((1 - this.tokens) / this.rate(now)) * 1000;
  }

  /** Uses at most `fraction` of the key's rate, once it is known (from hints, or the largest rate a 429 taught). */
  limitShare(fraction: number): void {
    this.share = fraction;
  }

  /**
   * An answer other than a 429 came: the slow start's window grows, by one below the threshold, by half of 1/window
   * above. Every request in flight when an unknown limit is met is answered `429`: growing by one per round trip, 200
   * ProxyOrders at `--parallel 64` against 20 a second had 9, 8 and 11 of about 420 answered `429` in three real runs
   * (the goal allows 8); by one per two round trips, 7, 2 and 7, in the same time (docs/contributing/benchmarks.md).
   */
  answered(): void {
    if (!this.slowStart) return;
    const step = this.window < this.options.slowStartThreshold ? 1 : AVOIDANCE_STEP / this.window;
    this.window = Math.min(this.options.maxSlowStartRatePerSecond, this.window + step);
  }

  /** One request went at `now` (the slow start counts requests in flight instead: its caller's `inFlight`). */
  take(now: number): void {
    this.startedAt ??= now;
    if (this.slowStart && this.share === 1) return;
    this.refill(now);
    this.tokens -= 1;
  }

  /**
   * A request went at `now` at another pace than this one's (the quota's, client/spread.ts): nothing is charged for it.
   * When this rate paces again, it is as after a lull: charged for what the quota's pace sent faster, it owed seconds
   * (budget.test.ts, "owing it nothing").
   */
  sentElsewhere(now: number): void {
    this.startedAt ??= now;
    this.refill(now);
  }

  /**
   * A 429 at `now`. `acceptedPerSecond` is what the API accepted from this process just before (undefined when too
   * little time passed to tell: the rate in force is cut then); `resumeAt` is when sending may start again (its
   * Retry-After). The 429s of requests already in flight when the pause began are one
   * episode, cut once.
   */
  throttled(now: number, acceptedPerSecond: number | undefined, resumeAt: number): void {
    if (this.cut && now < this.cut.since) {
      this.cut.since = Math.max(this.cut.since, resumeAt);
      this.restart(resumeAt);
      return;
    }
    this.cutTo(now, acceptedPerSecond, resumeAt, this.options.throttleFactor);
  }

  /**
   * An answer at `now` found the quota spent, and others spending it too (client/crowding.ts): the rate is cut as on a
   * 429, with no pause, to `crowdedFactor` of what the key accepted, at most once a period of the quota (its `limit`
   * at the hinted rate). Every process on the key that sees so yields, so that they converge on shares of it as on
   * 429s, before one of them is refused. Not with a share: that already holds this process to its part of the key.
   */
  crowded(now: number, limit: number, acceptedPerSecond: number | undefined): void {
    if (this.hinted === undefined || this.share < 1) return;
    // During a 429's pause the cut it made stands.
    if (this.cut && now < this.cut.since) return;
    if (now - this.crowdedAt < (limit / this.hinted) * 1000) return;
    this.crowdedAt = now;
    this.cutTo(now, acceptedPerSecond, now, this.options.crowdedFactor);
  }

  /**
   * A cut at `now` from what was accepted (or the rate in force), growing back from `resumeAt` at `keep` of it: the
   * cubic's epoch is set as if cut that much earlier, so that a gentler cut is also back at the refused rate sooner.
   */
  private cutTo(now: number, acceptedPerSecond: number | undefined, resumeAt: number, keep: number): void {
    // Leaving the slow start, the rate the API accepted meanwhile is all that is known (the budget measures it over a
    // second at least, so that a burst the API's bucket let through does not read as its rate).
    const current = this.rate(now);
    const measured = acceptedPerSecond ?? (Number.isFinite(current) ? current : this.options.initialRatePerSecond);
    const refused = Math.max(this.options.minRatePerSecond, Math.min(current, measured));
    const last = this.cut;
    const steady = last && Math.abs(refused - last.refused) <= SAME_RATE * last.refused ? last.steady + 1 : 0;
    const ago = Math.max(0, this.backAtRefusedSeconds - Math.cbrt((1 - keep) / this.options.cubicGrowth)) * 1000;
    this.cut = { refused, largest: Math.max(refused, last?.largest ?? 0), since: Math.max(now, resumeAt) - ago, steady };
    this.quotaSeen = [];
    this.restart(resumeAt);
  }

  /** The API's hints at `now`: a limit, what is left of it, and the seconds until it is whole again. */
  hint(limit: number, remaining: number, resetMs: number, refused: boolean): void {
    // Only a spent quota (or a refusal) says how fast it refills; a full one says nothing about the rate.
    if (!refused && remaining > 1) return;
    this.hinted = limit / Math.max(1, resetMs / 1000);
  }

  /**
   * What a quota the hints report had left at `now`, less this process's requests in flight. When every answer of the
   * last two of its periods (the limit at the hinted rate), a period's worth at least, found more than half of it left,
   * the key has room that nobody uses, as when a neighbour finished: a rate cut earlier doubles, once a period, up to
   * half of what the hints allow, instead of probing for that room over tens of seconds; the probe takes it on from
   * there. Beside a neighbour that spends the key, some answer of those periods finds it nearly spent; and two
   * processes that find room at once cannot double past the key's rate together. For hints that follow what is sent
   * only: the budget asks client/spread.ts (hints on successes that never change show room that is not there).
   */
  room(now: number, limit: number, remaining: number): void {
    // Without a cut there is nothing to raise, and the next cut forgets what was seen before it: nothing is kept.
    if (this.hinted === undefined || !this.cut) return;
    const period = (limit / this.hinted) * 1000;
    this.quotaSeen.push({ at: now, low: remaining < limit / 2 });
    while (this.quotaSeen[0]!.at < now - ROOM_PERIODS * period) this.quotaSeen.shift();
    if (now < this.cut.since || now - this.roomAt < period) return;
    if (now - this.quotaSeen[0]!.at < (ROOM_PERIODS - 1) * period || this.quotaSeen.some((seen) => seen.low)) return;
    const rate = this.rate(now);
    const raised = Math.min(this.hintedCap(this.hinted) * ROOM_CAP, 2 * rate);
    if (raised <= rate) return;
    this.roomAt = now;
    // As if cut long enough ago to be back at the raised rate: the probe goes on from there.
    const since = now - this.backAtRefusedSeconds * 1000;
    this.cut = { ...this.cut, refused: raised, largest: Math.max(this.cut.largest, raised), since };
  }

  /** The most of a hinted rate used: its `hintShare`, or the share asked for when that is less. */
  private hintedCap(hinted: number): number {
    return hinted * Math.min(this.options.hintShare, this.share);
  }

  /** K: how long after a cut the rate is back at the refused one. */
  private get backAtRefusedSeconds(): number {
    return Math.cbrt((1 - this.options.throttleFactor) / this.options.cubicGrowth);
  }

  /**
   * A shared key's slow start: `initialRatePerSecond`, doubling every half second since the first request. In
   * bench/stacks-sim.mjs's cases with `:share`, doubling every second left the share unused for seconds (1.32x of the
   * floor against 1.25x); every 250 to 500 ms measured alike, and 500 ms is the gentlest of those.
   */
  private sharedStartRate(now: number): number {
    const { initialRatePerSecond, maxSlowStartRatePerSecond } = this.options;
    const doublings = Math.max(0, now - (this.startedAt ?? now)) / SHARED_START_DOUBLING_MS;
    return Math.min(maxSlowStartRatePerSecond, initialRatePerSecond * 2 ** doublings);
  }

  /** Nothing saved up during a pause: when it ends one request goes, and the rest follow at the rate. */
  private restart(at: number): void {
    this.tokens = Math.min(this.tokens, 1);
    this.at = Math.max(this.at, at);
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    const rate = this.rate(now);
    if (!Number.isFinite(rate)) return;
    const capacity = Math.max(this.options.minBurst, rate / 4);
    this.tokens = Math.min(capacity, this.tokens + ((now - this.at) / 1000) * rate);
    this.at = now;
  }
}
