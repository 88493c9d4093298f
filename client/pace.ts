/**
 * When the next request on an API key may go: the pacing model, pure (every method takes the time). Its rules; each
 * constant below names the anchor or the measurement that set it (bench/stacks-sim.mjs, ten seeds, unless it says
 * otherwise; docs/contributing/benchmarks.md has the tables):
 *
 * 1. **Alone while nothing is known.** Before the first answer, and once a hinted quota's reset has passed, one request
 *    goes and the rest wait for its answer: it tells the truth where a burst on trust would be refused.
 * 2. **A refusal pauses the key** until its `Retry-After`, half a second without one. A `503` while the API is taking
 *    this process's requests is a refusal too: limiters shed load with it (nginx's `limit_req` by default).
 * 3. **With hints, what is left goes evenly until the reset** (the IETF RateLimit draft's advice), less the requests in
 *    flight and less one for each other client this process sees: the others' requests counted between its own answers
 *    in a window, over its last eight answers. Clients that each spend in proportion to what the same count says is left
 *    spend alike, so they converge on equal parts without knowing of each other, and each leaves the last requests of
 *    a window to the others instead of racing them for it.
 * 4. **A reset is stated in whole seconds, rounded up**: a window's reset lies between the latest moment its answers
 *    state, less a second, and the earliest, and no window lasts longer than the longest reset stated. What is left is
 *    spent by the middle of those bounds; rule 1's lone request waits for the latest. A reset stated as passed is a
 *    second away: go-chi/httprate cuts its window's end down to the second, and each such answer let rule 1's request
 *    go at once, one a round trip where none was left (two stacks behind it had 15.5% refused, 0.2-0.5% now). An API
 *    that names a Unix-time moment before the request went cuts them down, and where it has also shown a count come
 *    back at least half at a new moment and never one fall under the same moment (a fixed window, not a sliding one),
 *    each of its resets lies within a second either side of the second named: four stacks behind ulule/limiter's
 *    windows ended at 1.51x of the floor, 15.8% refused, now 1.34x and 1.41x, 5.4% and 4.6% (real runs); httprate's
 *    sliding count, read so, ended 1.41x where 1.15x.
 * 5. **While there is room, no wait**: a burst (the requests in flight and held) that a quarter of what is left holds
 *    goes at once.
 * 6. **Without hints, a window of requests in flight**: one, then one more per two windows' worth of answers (TCP's
 *    congestion avoidance with delayed acknowledgements), until the first refusal.
 * 7. **A refusal the hints did not foresee teaches a rate**: CUBIC (RFC 8312), as the AWS SDKs' adaptive retry mode runs
 *    it, from what the API accepted over the last seconds; never above twice what was sent over the last second, nor
 *    below one a second, nor above nine tenths of what a `429`'s hints say the key takes. It holds with hints too: an
 *    API whose hints say more than it takes is paced by it. A refusal whose hints say nothing is left, where the
 *    answers before it had hints or none came before it, was foreseen: rule 2's pause is all it costs.
 * 8. **A share** (`maxRateShare`) spaces requests so that no more than the share goes in any of the quota's periods, and
 *    holds the learned rate to its part of the rate a `429`'s hints state (without any hints, of the most the key took);
 *    what the count shows left is spent as rule 3 spends it. Keeping the others' part of each quota back instead, four
 *    stacks at a quarter each spent only its top between them: 2.1x of the floor (1.61-2.42x), 1.35x now.
 * 9. **A quota that frees one request at its reset is spent as the API counts it.** A sliding log (the `limits`
 *    library's moving window) states as its reset when the oldest request leaves it. Where rule 1's request after a
 *    reset finds less than half the quota left, though this process alone sent the window's quota before it, and no
 *    other client is seen, each request goes once the one a quota before it is a window and a round trip old. Each
 *    refusal while it holds keeps the log a request shorter: a counter that weighs the last window (httprate's) counts
 *    a steady quota as the quota, and refused one a second or two (a lone stack: 1.34-1.41x, 1.2-2.4%; 1.27-1.30x, 0.2%).
 */
import type { Quota } from "../contract";

/**
 * Rule 7's curve, `W (1 + (1 − β) ((t − K) / K)³)`: β = 0.7 as CUBIC (RFC 8312) and the AWS SDKs keep it, and CUBIC's
 * constant C scaled so that the rate is back at W after K = 3 s whatever W, so that stacks of a few requests a second
 * each probe no faster than one alone. Four stacks x 50 without hints behind HAProxy's sliding second were refused 9.6%
 * (8.5-10.4%) of their requests with this, 17.7% with the AWS SDKs' fixed C = 0.4 (over the 10% bound, though the same
 * stacks behind the sandbox's bucket ended at 1.18x of the floor where this ends at 1.30x), 13.2% with K = 2 s; K = 5 s
 * refused 7.7%, but two stacks x 100 ended at 1.39x where 3 s ends at 1.26x.
 */
const BETA = 0.7;
const BACK_AT_W_MS = 3000;
/**
 * What the API accepted is measured over this window at a refusal (and a `503` within it is load shed, rule 2). Over
 * 10 s, a lone stack without hints behind HAProxy's sliding second ended at 2.10x of the floor, 1.78x over 3 s. In the
 * simulation (five seeds), the same stack over 1 s: 1.75-1.78x where 3 s ends at 1.56-1.59x; four stacks over 5 s:
 * 1.78-2.01x where 3 s ends at 1.68-1.85x.
 */
const ACCEPTED_WINDOW_MS = 3000;
/**
 * The least learned rate (requests per second): with the AWS SDKs' 0.5, four stacks x 50 without hints behind HAProxy's
 * sliding second ended at 2.22x (1.96-2.27x) of the floor, 1.86x (1.75-1.93x) with 1.
 */
const MIN_RATE = 1;
/**
 * Rule 3's others are counted over this many answers: over 4 and over 16, one run in ten of four stacks behind
 * express-rate-limit's 1 s windows (draft-7) ended at 3.00x and 2.97x of the floor; over 8, at most 1.68x.
 */
const PART_ANSWERS = 8;
/**
 * Rule 5: a burst that this part of what is left holds goes at once. Without it, 24 requests under a quota of 100 a
 * minute were spread until the middle of its reset, the last held 14.4 s (the budget test "lets no request wait while
 * the hints show room"); with it, none is held.
 */
const AT_ONCE_PART = 1 / 4;
/**
 * Rule 7: the part of the rate a `429`'s hints state that the learned rate may reach. Two stacks x 100 behind the
 * sandbox's bucket, hints only on `429`s, ended at 1.19x, 1.20x and 1.30x of the floor (3.0-4.2% refused) with all of
 * it, at 1.09x, 1.10x and 1.18x (2.1-2.6%) with nine tenths, as the code before this model did (1.09-1.11x, 1.9%);
 * four and eight stacks ended the same (1.09-1.11x and 1.15x). In the simulation, two stacks 40 ms away: 1.27-1.42x
 * with all of it, 1.18-1.33x with nine tenths.
 */
const HINTED_PART = 0.9;
/** Rule 4: every header form states a reset in whole seconds. */
const RESET_RESOLUTION_MS = 1000;
/**
 * Rule 9: rule 1's request after a reset that finds less than this part of the quota left shows a quota that did not
 * come back whole. In the simulation a lone stack's such request found 9 of 10 behind fixed windows and a bucket, 0 to
 * 2 behind a sliding log of a second. With rule 9, a fleet of 200 behind a real log (`limits` 5.8.0) ended at 1.08x and
 * 1.13x of the floor where 1.73x and 1.74x, none refused; in the simulation no case of the default set moved.
 */
const REFILLED_PART = 1 / 2;

/** Whether an answer with `status` is a refusal: a `429`, or a `503` (rule 2). */
export const isRefusal = (status: number): boolean => status === 429 || status === 503;

/** One answer, as the pace takes it in. */
export interface PaceAnswer {
  status: number;
  /** The tightest quota the answer's hints state, if any. */
  quota?: Quota;
  retryAfterMs?: number;
  /** When the request it answers was sent. */
  sentAt: number;
}

/** The last answer's quota, less what was sent since, and the bounds its window's answers set on its reset (rule 4). */
interface QuotaView {
  limit: number;
  remaining: number;
  earliest: number;
  latest: number;
}

/** The pacing state of one key; see the module's comment. */
export class Pace {
  private heard = false;
  private pausedUntil = 0;
  private firstSentAt = 0;
  private lastSentAt = Number.NEGATIVE_INFINITY;
  /** Undefined when the last answer had no hints. */
  private quota: QuotaView | undefined;
  /** Rule 3: the others' requests counted between this process's last answers in a window. */
  private readonly others: number[] = [];
  /** Rule 4: the longest reset stated, in whole seconds. */
  private longestResetMs = RESET_RESOLUTION_MS;
  /**
   * Rule 4: the moment the last answer named; whether this API cuts its moments down, has shown a count come back at
   * least half at a new moment, and has shown one fall under the same moment (a window that slides).
   */
  private readonly moments = { last: Number.NaN, cutDown: false, whole: false, slides: false };
  /** Rule 6's window of requests in flight. */
  private window = 1;
  /** Rule 7: the rate at the last cut (W), when it was cut, its bucket, and the most the key took at a cut. */
  private cubic: { max: number; at: number; tokens: number; tokensAt: number } | undefined;
  private largest = 0;
  private hintedRate = Number.POSITIVE_INFINITY;
  private readonly accepted: number[] = [];
  /** Share of the key this process may use, 0 to 1 (rule 8). */
  share = 1;
  /** When this process's last 1,000 requests went (rules 7 and 9). */
  private readonly sends: number[] = [];
  /** Rule 9: when rule 1's request after a reset went, and the last round trip. */
  private probeSentAt = Number.NaN;
  private roundTripMs = 0;
  private freesOneAtReset = false;
  /** Rule 9: how many requests short of the quota this process keeps the API's log. */
  private logShort = 0;

  constructor(private readonly pauseWithoutRetryAfterMs: number) {}

  /** The earliest time the next request may go, with `inFlight` unanswered and `waiting` held; Infinity: an answer. */
  nextAt(now: number, inFlight: number, waiting: number): number {
    const at = Math.max(now, this.pausedUntil);
    const stale = this.quota !== undefined && this.quota.latest <= at;
    if (!this.heard || stale) return inFlight > 0 ? Number.POSITIVE_INFINITY : at;
    if (!this.quota && !this.cubic && inFlight >= this.window) return Number.POSITIVE_INFINITY;
    const learned = this.cubic ? this.learnedNextAt(at) : at;
    return this.quota ? Math.max(learned, this.quotaNextAt(at, this.quota, inFlight, waiting)) : learned;
  }

  /** A request went at `now`. */
  sent(now: number): void {
    if (this.lastSentAt < 0) this.firstSentAt = now;
    this.lastSentAt = now;
    if (this.quota && this.quota.latest <= now) this.probeSentAt = now;
    if (this.sends.push(now) > 1000) this.sends.shift();
    if (this.quota) this.quota.remaining -= 1;
    if (this.cubic) this.refill(now, 1);
  }

  /** An answer came at `now`, with `inFlight` of this process's requests still unanswered. */
  answered(now: number, answer: PaceAnswer, inFlight: number): void {
    // The first answer, or one after an answer with hints: a refusal whose own hints say nothing is left was foreseen.
    const foreseeable = !this.heard || this.quota !== undefined;
    this.heard = true;
    const q = answer.quota;
    this.roundTripMs = now - answer.sentAt;
    // A refusal keeps rule 9's log a request shorter, and may show others on the key: rule 9 waits for the next reset's
    // request to tell again.
    if (isRefusal(answer.status) && this.freesOneAtReset) this.logShort += 1;
    if (isRefusal(answer.status)) this.freesOneAtReset = false;
    else if (q && answer.sentAt === this.probeSentAt) this.freesOneAtReset = this.refillsInPart(q);
    this.quota = q && this.read(now, q, inFlight, answer.sentAt);
    while (this.accepted.length > 0 && this.accepted[0]! < now - ACCEPTED_WINDOW_MS) this.accepted.shift();
    if (!isRefusal(answer.status)) {
      this.accepted.push(now);
      if (!this.cubic) this.window += 0.5 / this.window;
      return;
    }
    this.pausedUntil = Math.max(this.pausedUntil, now + (answer.retryAfterMs ?? this.pauseWithoutRetryAfterMs));
    if (q) this.hintedRate = Math.min(this.hintedRate, q.limit / Math.max(1, q.resetMs / 1000));
    const foreseen = foreseeable && q !== undefined && q.remaining <= 0;
    // The refusals of requests sent before the last cut are that cut's.
    if (!foreseen && (!this.cubic || answer.sentAt >= this.cubic.at)) this.cut(now);
  }

  /** Whether the API took one of this process's requests within the last 3 s: a `503` then is load shed (rule 2). */
  serving(now: number): boolean {
    return this.accepted.some((at) => at >= now - ACCEPTED_WINDOW_MS);
  }

  /** The learned rate at `now`, requests per second (rule 7). */
  rate(now: number): number {
    if (!this.cubic) return Number.POSITIVE_INFINITY;
    const { max, at } = this.cubic;
    const x = (Math.max(0, now - at) - BACK_AT_W_MS) / BACK_AT_W_MS;
    const cubic = max * (1 + (1 - BETA) * x ** 3);
    const sent = this.sends.filter((t) => t > now - 1000).length;
    // Where a `429`'s hints told the key's rate, the share is of that; only without any hints is it of what the key took.
    const shared = this.share < 1 && this.hintedRate === Number.POSITIVE_INFINITY ? this.share * this.largest : Infinity;
    const ceiling = Math.min(this.hintedRate * Math.min(HINTED_PART, this.share), shared);
    return Math.max(MIN_RATE, Math.min(cubic, Math.max(2 * sent, max), ceiling));
  }

  /**
   * The view of an answer's quota (rules 3 and 4). A count that did not rise, whose stated moment fits the window's
   * bounds, is the same window's: its answers narrow the bounds, and what it fell by beyond this process's own requests
   * is the others'.
   */
  private read(now: number, q: Quota, inFlight: number, sentAt: number): QuotaView {
    const view = this.quota;
    const remaining = q.remaining - inFlight;
    // Rule 4: a moment named before the request went was cut down; a count back at a new moment is a window's, one that
    // fell under the same moment slides.
    const [m, moment] = [this.moments, now + q.resetMs];
    m.cutDown ||= q.resetIsMoment && moment < sentAt;
    m.whole ||= q.resetIsMoment && moment > m.last + RESET_RESOLUTION_MS / 2 && q.remaining + 1 >= q.limit * REFILLED_PART;
    m.slides ||= q.resetIsMoment && view !== undefined && Math.abs(moment - m.last) < RESET_RESOLUTION_MS / 2 && remaining > Math.max(0, view.remaining);
    m.last = moment;
    const cut = q.resetIsMoment && m.cutDown && m.whole && !m.slides ? RESET_RESOLUTION_MS : 0;
    // One still passed is a second away.
    const stated = now + (q.resetMs + cut > 0 ? q.resetMs + cut : RESET_RESOLUTION_MS);
    const earliest = stated - RESET_RESOLUTION_MS - cut;
    this.longestResetMs = Math.max(this.longestResetMs, Math.floor((q.resetMs + cut) / RESET_RESOLUTION_MS) * RESET_RESOLUTION_MS);
    const same = view && q.limit === view.limit && remaining <= view.remaining && now < view.latest && earliest < view.latest && stated > view.earliest;
    if (!same) return { limit: q.limit, remaining, earliest, latest: Math.min(stated, now + this.longestResetMs) };
    // A refused request is not counted, and a count read late can stand below the next: never fewer than none.
    this.others.push(Math.max(0, view.remaining - remaining));
    if (this.others.length > PART_ANSWERS) this.others.shift();
    return { limit: q.limit, remaining, earliest: Math.max(view.earliest, earliest), latest: Math.min(view.latest, stated) };
  }

  /**
   * Rule 7's cut: the rate falls to β of what the API accepted over the last 3 s, and grows back from there. Not since
   * the last cut: behind HAProxy, whose count holds the requests it refused, the first request after a pause can be
   * refused too, and what was accepted in the instant since that pause ended is nothing: one request a second. Four
   * stacks x 50 there ended at 1.62x and 1.72x of the floor, at 1.44x to 1.60x (median 1.51x of six) with this.
   */
  private cut(now: number): void {
    const since = Math.max(now - ACCEPTED_WINDOW_MS, this.firstSentAt);
    const measured = this.accepted.filter((t) => t >= since).length / Math.max(1, (now - since) / 1000);
    const max = Math.max(MIN_RATE, Math.min(this.cubic ? this.rate(now) : Number.POSITIVE_INFINITY, measured));
    this.largest = Math.max(this.largest, max);
    const at = Math.max(now, this.pausedUntil);
    // The rate starts again from the cut with at most one request in hand (its bucket is never below none: a request
    // goes only with one in it).
    this.cubic = { max, at, tokens: Math.min(this.cubic?.tokens ?? 1, 1), tokensAt: at };
  }

  /**
   * Rule 9's test, on the answer to rule 1's request after a reset: less than half the quota left, though this process
   * sent all but one of it in the window (and a round trip) before that request.
   */
  private refillsInPart(q: Quota): boolean {
    const own = this.sends.filter((t) => t >= this.probeSentAt - this.longestResetMs - this.roundTripMs).length;
    return q.remaining + 1 < q.limit * REFILLED_PART && own >= q.limit - 1 - this.logShort;
  }

  /** Spends what the quota has left, less the others' part of it, evenly until its reset (rules 3, 4, 5, 8 and 9). */
  private quotaNextAt(at: number, quota: QuotaView, inFlight: number, waiting: number): number {
    if (this.freesOneAtReset && this.share === 1 && this.othersSeen() === 0) {
      // The API's log holds this process's last `part` requests: the oldest leaves it a window after it arrived.
      const part = Math.max(1, quota.limit - this.logShort);
      const frees = (this.sends[this.sends.length - part] ?? Number.NEGATIVE_INFINITY) + this.longestResetMs + this.roundTripMs;
      return Math.max(at, frees, this.lastSentAt + this.longestResetMs / part);
    }
    const left = quota.remaining - this.othersSeen();
    const spaced = this.share < 1 ? this.lastSentAt + this.longestResetMs / (this.share * quota.limit) : at;
    if (left < 1) return Math.max(at, quota.latest);
    // The burst is what is in flight and held together, against what was left before it went: requests that come one
    // at a time (a fleet's purchases, the engine's creates) find none held, and would each go at once otherwise.
    if (inFlight + waiting <= (left + inFlight) * AT_ONCE_PART) return Math.max(at, spaced);
    const end = (Math.max(at, quota.earliest) + quota.latest) / 2;
    return Math.max(at, spaced, this.lastSentAt + (end - this.lastSentAt) / left);
  }

  /**
   * The other clients seen: the others' requests per answer, rounded up to a whole number of clients (rounded to the
   * nearest, four stacks behind the sandbox's 1 s windows were refused 2.1% (0.7-3.7%) of their requests, 1.0%
   * (0.2-1.6%) with this).
   */
  private othersSeen(): number {
    return this.others.length === 0 ? 0 : Math.ceil(this.others.reduce((a, b) => a + b, 0) / this.others.length);
  }

  private learnedNextAt(at: number): number {
    this.refill(at);
    const { tokens } = this.cubic!;
    return tokens >= 1 ? at : at + ((1 - tokens) / this.rate(at)) * 1000;
  }

  /** Refills rule 7's bucket, which holds a second's worth, at least one request (the AWS SDKs' capacity); takes `spent`. */
  private refill(now: number, spent = 0): void {
    const c = this.cubic!;
    const rate = this.rate(now);
    if (now > c.tokensAt) c.tokens = Math.min(Math.max(1, rate), c.tokens + ((now - c.tokensAt) / 1000) * rate);
    c.tokens -= spent;
    c.tokensAt = Math.max(c.tokensAt, now);
  }
}
