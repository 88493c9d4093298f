/**
 * When the next request on an API key may go: the whole pacing model, pure (every method takes the time).
 *
 * The API is the coordinator of a shared key: every client of the key reads the same hints, so each spends what they
 * say is left at the same pace, and K clients that know nothing of each other converge on a K-th each (a token bucket
 * that is spent in proportion to what it holds settles where its refill meets the demand). In full:
 *
 * 1. **Before the first answer, one request goes alone**, and again whenever what is known went stale (a hinted quota's
 *    reset passed): its answer tells the truth, where a burst on trust would be refused.
 * 2. **A `429` or a `503` pauses every request** until its `Retry-After` (without one, for a second): a `503` is how
 *    a limiter sheds load as often as a `429` (nginx's `limit_req` by default, with neither hints nor `Retry-After`),
 *    and where it means the API is down, slowing down costs nothing. A `Retry-After` that names no more than the
 *    quota's own reset ends, in a fixed window, at the reset the window's answers prove, where that is sooner: both are
 *    stated in whole seconds.
 * 3. **Hints came with the last answer** (in any form, contract/rate-limit.ts): what the quota has left, less the
 *    requests in flight and less what is kept back for the others, is spent evenly until its reset; what a quarter of
 *    it holds goes at once, since no limit is near. Kept back: with a share, the others' part of the quota (`1 − share`
 *    of its limit), and the requests are spaced so that no more than `share` of it goes in one of its periods; without,
 *    once less than half is left, its last two requests (one in a fixed window, whose part is measured). A count that
 *    refills faster than it is spent (it stands above what this process's requests left, half of it or more) goes
 *    faster, 1.5 times at each such answer up to 4: a token bucket's reset, the time until it is full, is stated
 *    rounded up to a second, and spread over that second a bucket is never spent. A fixed window (express-rate-limit's
 *    count, most gateways') is read as one: its count only falls and its reset stays put, stated in whole seconds, so
 *    the reset is the latest moment the window's answers allow (not one more second at every answer), and this process
 *    takes its part of what is left (one over the whole number of its shares in what the count fell by over its last
 *    answers), spent before the reset; alone, to the last request. A reset stated as a Unix time names the same second
 *    at every answer of a window: there, the window's length, learned where the count turned over, bounds its end.
 * 4. **The last answer had none**: requests go at once, at most `window` in flight (1, one more per success up to 2,
 *    then one more per two windows' worth: TCP's slow start) until the first refusal. From then on, a rate: `0.7 W`, where W
 *    is what the API accepted over the last 3 s, growing back on a cubic curve as TCP CUBIC and the AWS SDKs' adaptive
 *    retry mode do (`W (1 + 0.3 ((t − 3) / 3)³)` t seconds after the cut: back at W after 3 s, 1.3 W after 6 s; the
 *    curve scales with W, so that stacks of a few requests a second each probe no faster than one alone). It is never
 *    above twice what was sent over the last second (nor below W there), so that a lull does not grow a burst; nor
 *    above 95% of the rate a `429`'s hints imply (limit over reset); nor, with a share, above `share` of that rate
 *    (without hints, of the largest W: the key's rate is not known, and the most it took from this process stands for
 *    it). Once a `429` has taught a rate, it holds with hints too: an API whose hints say more than it takes is paced
 *    by it.
 */
import type { Quota } from "../contract";

/**
 * The cubic's constants: the share of W kept at a cut (β of CUBIC, RFC 8312, as the AWS SDKs' adaptive retry keeps it),
 * and the seconds until the rate is back at W.
 */
const BETA = 0.7;
const BACK_AT_W_SECONDS = 3;
/**
 * The window over which what the API accepted is measured at a `429` (ms). Measured in the simulation only
 * (bench/stacks-sim.mjs, 4 stacks x 50 orders, R = 10/s, T = 2 s, seeds 1, 7 and 13, 2026-12-06), where it moves the
 * cells without hints: behind 1 s windows, 1 s ended at 1.41-1.47x of the floor with 8.3-8.5% refused, 3 s at
 * 1.45-1.53x with 6.5-7.8%, 10 s at 1.54-1.67x with 6.8-7.4%; behind HAProxy's sliding second, 1.74-1.87x (9.1-10.1%),
 * 1.83-1.93x (8.9-9.7%) and 1.96-2.15x (9.3-9.7%). Not yet measured behind the real limiters.
 */
const ACCEPTED_WINDOW_MS = 3000;
/** The learned rate is never below this (requests per second): a server that refuses some requests whatever the rate
 * would otherwise cut it towards nothing. */
const MIN_RATE = 1;
/**
 * The share of a hinted rate used. No anchor, and in the simulation (as ACCEPTED_WINDOW_MS) it moves only the cell with
 * hints on `429`s alone, within that cell's spread: 1.0 ended at 1.13-1.48x, 0.95 at 1.11-1.33x, 0.9 at 1.11-1.22x, all
 * with 5.9-8.7% refused; every other cell the same. A candidate to go (issue 73).
 */
const HINTED_SHARE = 0.95;
/**
 * The slow start's window grows by one per answer up to this, then by one per two windows' worth of answers (TCP's
 * congestion avoidance with delayed acknowledgements): what is in flight when an unknown limit is first met is
 * refused, and one per round trip met it with 10 of 200 ProxyOrders' 413 requests in flight (2.4%).
 */
const SLOW_START_THRESHOLD = 2;

/**
 * A reset is stated in whole seconds in every form, rounded up by most limiters: the moment it names lies at most this
 * much before the answer's time plus the reset.
 */
const RESET_RESOLUTION_MS = 1000;

/**
 * What is kept back of a count that refills (a token bucket's) once less than half is left: eight stacks on one key,
 * the last 10 s late, each reading the same count, were refused 2% to 3% of their requests with none kept back, 0% to
 * 2.8% with one (fourteen real runs), 0.2% to 1.2% with two (four real runs, in three forms), and ended as early.
 */
const KEPT_OF_REFILLING_COUNT = 2;
/**
 * How much faster than evenly until its reset a count that refills is spent, while it refills faster than it is spent:
 * times this at each answer whose count is above what this process's own requests left it, at least half of it left,
 * up to the most. A token bucket's reset is the time until it is full, stated rounded up to a second: spread over
 * that second, what is left of a bucket of 5 a second went at 4 a second, the bucket never below 4.
 */
const REFILL_SPEEDUP_STEP = 1.5;
const REFILL_SPEEDUP_MOST = 4;
/**
 * A fixed window's count must have fallen by this much before this process's part of it is measured. In the simulation
 * (as ACCEPTED_WINDOW_MS): at 1, a token bucket with hints refused up to 1.7% (0.2-0.5% at 3); at 6, 1 s windows
 * refused up to 1.0% and ended at up to 1.34x (0% and 1.11-1.15x at 3).
 */
const WINDOW_EVIDENCE = 3;
/**
 * The least part of a fixed window this process takes, however many others it sees. In the simulation it moves a figure
 * only where a part would be below it: 24 stacks x 10 orders behind 10 s windows, R = 10/s, refused 10-14% at 0.01
 * (1.11x), 13-15.5% at 0.05 (1.09-1.10x), 17-18% at 0.2 (1.07-1.10x); every 4-stack cell is the same at 0.01 and 0.2.
 */
const MIN_WINDOW_PART = 0.05;
/**
 * This process's part of a fixed window is measured over its last answers in the window, at least this many and this
 * long (ms), not since the window's first: a stack that joins a window the others are spending measures the small part
 * it has while they spend, and measured from the start it kept that part when they stopped, leaving the rest of the
 * window unused. Not over less: a few answers with no other client's request between them are no proof that there is
 * none, so a window shorter than that is measured whole.
 */
const PART_ANSWERS = 3;
const PART_SPAN_MS = 2000;

/** Whether an answer with `status` is a refusal: a `429`, or a `503` (see the module's comment). */
export function isRefusal(status: number): boolean {
  return status === 429 || status === 503;
}

/** One answer, as the pace takes it in. */
export interface PaceAnswer {
  status: number;
  /** The tightest quota the answer's hints state, if any. */
  quota?: Quota;
  retryAfterMs?: number;
  /** When the request it answers was sent. */
  sentAt: number;
}

/** The pacing state of one key; see the module's comment. */
export class Pace {
  private heard = false;
  private pausedUntil = 0;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** The last answer's hinted quota, less what was sent since; undefined when the last answer had no hints. */
  private quota: { limit: number; remaining: number; resetAt: number } | undefined;
  /**
   * What the answers of the current fixed window tell: the earliest and latest its reset may come, its count at the
   * first answer and now, and how many of this process's requests it counted since. A fixed window's count only falls,
   * and the moment of its reset stays put while each answer states it rounded to a second: answers whose count fell and
   * whose moments overlap narrow it down to within an answer's time of the truth.
   */
  private fixedWindow:
    | {
        limit: number;
        first: number;
        remaining: number;
        earliest: number;
        latest: number;
        own: number;
        lastSentAt: number;
        /** The earliest reset its answers state (for a Unix-time reset, not bounded by the window's length). */
        provenReset: number;
        /** The count and this process's requests counted, at the window's last answers: its part is measured over them. */
        recent: { remaining: number; own: number; at: number }[];
      }
    | undefined;
  /** This process's part of what fixed windows' counts fell by, as last measured: 1 while no other client was seen. */
  private windowPart = 1;
  /** How much faster than evenly until its reset a count that refills is spent now ({@link REFILL_SPEEDUP_STEP}). */
  private refillSpeedup = 1;
  /**
   * The most a fixed window can last (ms), learned where the count turned over: a window began after this process's
   * last request of the one before arrived (or with its own request, when that one was counted first), and ends at the
   * latest at its stated reset. A Unix-time reset names the same second at every answer of a window, so its answers
   * never narrow it (`X-RateLimit-Reset` behind express-rate-limit's 1 s windows: the last stack at 1.56x to 1.72x of
   * the floor); a window ends at most this long after the first of its requests this process saw arrived. Windows are
   * taken to last whole seconds (what every header form states) until one outlasts its bound; from then on, the bound
   * is what the answers prove.
   */
  private windowLength = { provenMs: Number.POSITIVE_INFINITY, wholeSeconds: true };
  /** The longest reset seen (ms, at least a second): the time the quota takes to come back whole. */
  private longestResetMs = 1000;
  private window = 1;
  /** The learned rate's last cut: W (the rate the API accepted when it refused), and when its growth began. */
  private cut: { accepted: number; at: number } | undefined;
  /** The largest W: without hints, what stands for the key's rate. */
  private largest = 0;
  /** The rate a `429`'s hints imply, requests per second. */
  private hintedRate: number | undefined;
  /** The learned rate's bucket. */
  private tokens = 1;
  private tokensAt = 0;
  private readonly accepted: number[] = [];
  /** When requests went over the last second: the learned rate grows to no more than twice as many. */
  private readonly recent: number[] = [];
  private firstSentAt: number | undefined;
  /** Share of the key this process may use, 0 to 1. */
  share = 1;

  constructor(private readonly pauseWithoutRetryAfterMs: number) {}

  /** The earliest time the next request may go, with `inFlight` unanswered and `waiting` held; Infinity: an answer. */
  nextAt(now: number, inFlight: number, waiting: number): number {
    const at = Math.max(now, this.pausedUntil);
    const stale = this.quota !== undefined && this.quota.resetAt <= at;
    if ((!this.heard || stale) && inFlight > 0) return Number.POSITIVE_INFINITY;
    if (stale) return at;
    const learned = this.cut ? this.learnedNextAt(at) : at;
    if (this.quota) {
      const next = Math.max(learned, this.quotaNextAt(at, this.quota, waiting));
      // Once the quota's reset has passed, one request goes alone to read the new count (above): never later than that.
      return inFlight > 0 ? next : Math.min(next, Math.max(at, this.quota.resetAt));
    }
    if (!this.cut && inFlight >= this.window) return Number.POSITIVE_INFINITY;
    return learned;
  }

  /** A request went at `now`. */
  sent(now: number): void {
    this.firstSentAt ??= now;
    this.lastSentAt = now;
    this.recent.push(now);
    while (this.recent[0]! <= now - 1000) this.recent.shift();
    if (this.quota) this.quota.remaining -= 1;
    if (this.cut) {
      this.refill(now);
      this.tokens -= 1;
    }
  }

  /** An answer came at `now`, with `inFlight` of this process's requests still unanswered. */
  answered(now: number, answer: PaceAnswer, inFlight: number): void {
    this.heard = true;
    const refused = isRefusal(answer.status);
    const q = answer.quota;
    // Requests in flight may have been counted after this answer's: they are taken as spent.
    if (q) this.longestResetMs = Math.max(this.longestResetMs, q.resetMs);
    this.refillSpeedup = this.refillSpeedupAfter(q, refused ? undefined : this.quota, inFlight);
    this.quota = q && { limit: q.limit, remaining: q.remaining - inFlight, resetAt: this.resetAtOf(now, q, answer.sentAt) };
    if (refused) this.pausedUntil = Math.max(this.pausedUntil, this.pauseEnd(now, answer));
    if (q && refused) this.hintedRate = q.limit / Math.max(1, q.resetMs / 1000);
    while (this.accepted.length > 0 && this.accepted[0]! < now - ACCEPTED_WINDOW_MS) this.accepted.shift();
    if (!refused) {
      this.accepted.push(now);
      if (!q && !this.cut) this.window += this.window < SLOW_START_THRESHOLD ? 1 : 0.5 / this.window;
      return;
    }
    // The 429s of requests sent before the last cut are that cut's episode.
    if (this.cut && answer.sentAt < this.cut.at) return;
    const since = Math.max(now - ACCEPTED_WINDOW_MS, this.cut?.at ?? Number.NEGATIVE_INFINITY, this.firstSentAt ?? now);
    const measured = this.accepted.filter((t) => t >= since).length / Math.max(1, (now - since) / 1000);
    const current = this.cut ? this.rate(now) : Number.POSITIVE_INFINITY;
    const acceptedRate = Math.max(MIN_RATE, Math.min(current, measured));
    this.cut = { accepted: acceptedRate, at: Math.max(now, this.pausedUntil) };
    this.largest = Math.max(this.largest, acceptedRate);
    // Refused requests leave no debt: the rate starts again from the cut, with at most one request in hand.
    this.tokens = Math.max(0, Math.min(this.tokens, 1));
    this.tokensAt = this.cut.at;
  }

  /**
   * When a refusal's pause ends: after its `Retry-After` (or a second), or, where that names no more than the quota's
   * own reset, at the reset its fixed window's answers prove, if that is sooner. Both are stated in whole seconds:
   * express-rate-limit's `Retry-After: 1` sent a stack refused late in a 1 s window as late into the next one, where it
   * took the last request of each window for as long as the others spent theirs first.
   */
  private pauseEnd(now: number, answer: PaceAnswer): number {
    const after = now + (answer.retryAfterMs ?? this.pauseWithoutRetryAfterMs);
    const q = answer.quota;
    const w = this.fixedWindow;
    if (!q || !w || answer.retryAfterMs === undefined || answer.retryAfterMs > q.resetMs) return after;
    return Math.min(after, w.provenReset);
  }

  /**
   * When the quota of an answer at `now` comes back: the latest moment its window's answers allow. An answer whose count
   * fell by less than this process's own requests, or whose moment does not overlap the window's, starts a new window
   * (a token bucket's, whose count refills and whose reset moves, does so at almost every answer, and is read as
   * before).
   */
  private resetAtOf(now: number, q: Quota, sentAt: number): number {
    const stated = now + q.resetMs;
    const earliest = stated - RESET_RESOLUTION_MS;
    const w = this.fixedWindow;
    // The count fell by less than this process's own requests since the window's first answer: it refilled.
    const refilled = w !== undefined && w.first - q.remaining < w.own + 1;
    // Moments a whole resolution apart are two windows' (a Unix-time reset, rounded up, names each window's second), give
    // or take the millisecond the clocks count in.
    if (w === undefined || refilled || q.limit !== w.limit || earliest > w.latest - 1 || stated < w.earliest + 1) {
      // The window began with this request if the count says it was the first, and after this process's last request
      // of the window before (if this answer names a later one, not an earlier one's come late): it lasts no longer than
      // from then to the reset stated.
      const first = q.remaining === q.limit - 1 ? sentAt : Number.NEGATIVE_INFINITY;
      const after = w !== undefined && stated >= w.latest ? w.lastSentAt : Number.NEGATIVE_INFINITY;
      this.windowLength.provenMs = Math.min(this.windowLength.provenMs, stated - Math.max(first, after));
      const latest = q.resetIsMoment ? Math.min(stated, now + this.windowLengthMs()) : stated;
      const recent = [{ remaining: q.remaining, own: 0, at: now }];
      this.fixedWindow = { limit: q.limit, first: q.remaining, remaining: q.remaining, earliest, latest, own: 0, lastSentAt: sentAt, provenReset: stated, recent };
      return latest;
    }
    // A request that left after the window's latest moment was counted in it: the window is not whole seconds long.
    if (sentAt >= w.latest + 1) this.windowLength.wholeSeconds = false;
    w.lastSentAt = Math.max(w.lastSentAt, sentAt);
    w.remaining = q.remaining;
    w.earliest = Math.max(w.earliest, earliest);
    w.latest = Math.min(w.latest, stated);
    w.provenReset = Math.min(w.provenReset, stated);
    w.own += 1;
    w.recent.push({ remaining: w.remaining, own: w.own, at: now });
    // Measured from the newest answer at least PART_ANSWERS answers and PART_SPAN_MS back (or the window's first).
    while (w.recent.length > 1 && w.own - w.recent[1]!.own >= PART_ANSWERS && w.recent[1]!.at <= now - PART_SPAN_MS) w.recent.shift();
    const since = w.recent[0]!;
    const fell = since.remaining - w.remaining;
    // One over the whole number of shares the fall holds, not the bare ratio: a stack that joined late measures a small
    // ratio, and the bare ratio keeps it small (behind express-rate-limit, draft-7, 1 s windows: the late stack of four
    // ended at 1.53x of the floor with it, 1.17x with this).
    if (fell >= WINDOW_EVIDENCE) this.windowPart = Math.max(MIN_WINDOW_PART, 1 / Math.ceil(fell / (w.own - since.own) - 0.1));
    return w.latest;
  }

  /**
   * The speedup after an answer stating `q`: up a step where the count is above what this process's view of it (`view`,
   * the last answer's count less what was sent since) left, at least half left; back to none below half, at a refusal
   * (no view) or without hints.
   */
  private refillSpeedupAfter(q: Quota | undefined, view: { remaining: number } | undefined, inFlight: number): number {
    if (!q || !view || q.remaining < q.limit / 2) return 1;
    return q.remaining - inFlight > view.remaining ? Math.min(REFILL_SPEEDUP_MOST, this.refillSpeedup * REFILL_SPEEDUP_STEP) : this.refillSpeedup;
  }

  /**
   * The most a window lasts, or Infinity while unknown. Held only while no reset stated more than a resolution beyond
   * it: a fixed window never does, and a token bucket's count, full at the request that taught it, soon does (its reset
   * is the time until it is full again, short only while it is nearly full).
   */
  private windowLengthMs(): number {
    const { provenMs, wholeSeconds } = this.windowLength;
    // No window is told apart from a shorter one than the resolution its resets are stated in.
    const length = Math.max(RESET_RESOLUTION_MS, wholeSeconds ? Math.floor(provenMs / 1000) * 1000 : provenMs);
    return length >= this.longestResetMs - RESET_RESOLUTION_MS ? length : Number.POSITIVE_INFINITY;
  }

  /** Whether the API took one of this process's requests within the last 3 s: a `503` then is load shed, not an outage. */
  serving(now: number): boolean {
    return this.accepted.some((at) => at >= now - ACCEPTED_WINDOW_MS);
  }

  /** The learned rate at `now`, requests per second. */
  rate(now: number): number {
    if (!this.cut) return Number.POSITIVE_INFINITY;
    const w = this.cut.accepted;
    const x = (Math.max(0, now - this.cut.at) / 1000 - BACK_AT_W_SECONDS) / BACK_AT_W_SECONDS;
    const sent = this.recent.filter((at) => at > now - 1000).length;
    let rate = Math.min(Math.max(w, 2 * sent), w * (1 + (1 - BETA) * x ** 3));
    if (this.hintedRate !== undefined) rate = Math.min(rate, this.hintedRate * Math.min(HINTED_SHARE, this.share));
    else if (this.share < 1) rate = Math.min(rate, this.largest * this.share);
    return Math.max(MIN_RATE, rate);
  }

  /** Spends what the quota has left (above the others' part of it) evenly until its reset. */
  private quotaNextAt(at: number, quota: { limit: number; remaining: number; resetAt: number }, waiting: number): number {
    // What is kept back for the others: with a share, their part of the quota; without, once less than half is left,
    // its last requests, since clients that read the same count would each spend them. In a fixed window seen twice,
    // where this process takes its part of what is left and spends it before the reset, the last one (alone, none);
    // of a count that refills (a token bucket's), the last two, which come back with its refill.
    const fixed = (this.fixedWindow?.own ?? 0) > 0;
    const alone = fixed && this.windowPart >= 1;
    const lastOnes = fixed ? 1 : KEPT_OF_REFILLING_COUNT;
    const kept = this.share < 1 ? (1 - this.share) * quota.limit : !alone && quota.remaining < quota.limit / 2 ? lastOnes : 0;
    const left = (quota.remaining - kept) * (fixed && this.share >= 1 ? this.windowPart : 1);
    const spaced = this.share < 1 ? this.lastSentAt + this.longestResetMs / (this.share * quota.limit) : at;
    if (left < 1) return Math.max(at, quota.resetAt);
    if (waiting <= left / 4) return Math.max(at, spaced);
    const from = Math.min(at, Math.max(this.lastSentAt, at - this.longestResetMs));
    return Math.max(at, spaced, from + (quota.resetAt - from) / (fixed ? left + 1 : left * this.refillSpeedup));
  }

  private learnedNextAt(at: number): number {
    this.refill(at);
    return this.tokens >= 1 ? at : at + ((1 - this.tokens) / this.rate(at)) * 1000;
  }

  private refill(now: number): void {
    if (now <= this.tokensAt) return;
    const rate = this.rate(now);
    this.tokens = Math.min(Math.max(1, rate / 4), this.tokens + ((now - this.tokensAt) / 1000) * rate);
    this.tokensAt = now;
  }
}
