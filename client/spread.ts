/**
 * With `RateLimit-*` hints on every answer, what the quota has left is spent evenly until its reset: the next request
 * goes at `last + (reset − last) / (left + 1)`, in place of the learned rate (client/pacer.ts). Every process on the
 * key reads the same quota, so each spends it at the same pace: two stacks get half of it each, a stack that starts
 * late gets its part from its first answers, and a stack whose neighbour finished gets all of it at once, with no cut
 * to recover from and no probe for room. Alone, it spends the quota at the key's rate. (Two untold stacks of 100
 * orders on the sandbox's token bucket of 10 a second, real runs: 1.7% of requests answered `429` and 1.09x of the
 * floor with the learned rate, none and 1.08x with this; four with one 10 s late, 7.4% and 1.20x against 1.2% and
 * 1.10x; docs/contributing/benchmarks.md, "Spending the quota evenly".)
 *
 * Only while the hints have shown that they follow what is sent: once an answer other than a `429` found the quota
 * spent, and until a `429` comes (an API whose hints on its successes never change, or say more than the key takes,
 * is paced by the learned rate instead). When this process's answers show others spending the same window
 * (client/crowding.ts), the quota's last request is left to them: two processes that both see one left would both send
 * it, and one would be refused. Requests that a quarter of what is left holds are not paced: no limit is near.
 *
 * Not for a quota that comes back whole at once, as a fixed window's does (the budget asks client/quota-reset.ts):
 * `RateLimit-Reset` in whole seconds says nothing of where in its second a one-second window ends, and a neighbour
 * spending a window's start hides that from this process, so a reset placed wrong either spent into a window already
 * spent or left part of one unused (two untold stacks took 1.33x to 1.97x of their floor in bench/stacks-sim.mjs, where
 * the learned rate and its marks take 1.33x to 1.47x).
 *
 * Before any rate is learned (the pacer's slow start), the budget also paces by it when more waits than the quota
 * holds, on any quota (but not with a share, which holds back the others' part of it instead): the other choice then
 * is to send as fast as the quota allows, which is what a stack that starts late must not do to the window its
 * neighbours counted on (client/budget.ts).
 */

/**
 * Past a quota's reset, how long the next request waits for an answer to one in flight before it goes anyway (ms): long
 * enough for an API that answers within a round trip or two, short enough that a request the API is slow to answer
 * (a purchase can take seconds) does not hold the others back.
 */
const ANSWER_WAIT_MS = 250;

/** What the budget knows of the quota: what is left less this process's requests in flight, and its reset. */
export interface QuotaView {
  remaining: number;
  resetAt: number;
}

/** The pace at which a hinted quota is spent; see the module's comment. */
export class QuotaSpread {
  /**
   * Whether an answer other than a `429` has found the quota spent: only then are its hints known to follow what is
   * sent (an API whose hints on its successes never change, or say more than the key takes, shows room that is not
   * there). The budget also asks this before the learned rate looks for room (client/pacer.ts).
   */
  private spentSeen = false;
  /** Whether a `429` came since the quota was last found spent: the hints did not hold, and the learned rate paces. */
  private refusedSince = false;
  /** Whether the last answer showed others spending the window. */
  private shared = false;
  private lastSentAt: number | undefined;

  /**
   * One answer: its status, its hints (undefined without), and how many requests of others its window showed
   * (client/crowding.ts).
   */
  answered(status: number, hints: { remaining: number } | undefined, others: number): void {
    if (status === 429) {
      this.refusedSince = true;
      return;
    }
    if (!hints) return;
    if (hints.remaining <= 1) {
      this.spentSeen = true;
      this.refusedSince = false;
    }
    this.shared = others > 0;
  }

  /** Whether the hints were seen to follow what is sent: an answer other than a `429` found the quota spent. */
  get hintsFollowSent(): boolean {
    return this.spentSeen;
  }

  /** A request went at `now`. */
  sent(now: number): void {
    this.lastSentAt = now;
  }

  /**
   * Whether the quota's pace applies (otherwise the learned rate does): once the hints were seen to follow what is sent,
   * and not after a `429` until they are again, with a quota whose hints are fresh.
   */
  paces(quota: QuotaView | undefined, hintsFresh: boolean): quota is QuotaView {
    return this.spentSeen && !this.refusedSince && quota !== undefined && hintsFresh;
  }

  /**
   * When the next request may go at the quota's pace, with `inFlight` of this process's requests unanswered and
   * `waiting` held (the next among them).
   */
  nextAt(now: number, quota: QuotaView, inFlight: number, waiting: number): number {
    // Past its reset the quota was whole at that instant, and what others have spent of it since is not known until an
    // answer says: the next answer, with requests in flight, or else the one request that goes. Taken as whole, each
    // process on the key sent a quarter of it at once into a window others had begun (see docs/contributing/benchmarks.md,
    // "After the reset"). An answer that is slow to come holds nothing back for long: one request goes every
    // ANSWER_WAIT_MS meanwhile.
    if (quota.resetAt <= now) {
      const until = Math.max(quota.resetAt, this.lastSentAt ?? quota.resetAt) + ANSWER_WAIT_MS;
      return inFlight > 0 && now < until ? until : now;
    }
    const left = quota.remaining - (this.shared ? 1 : 0);
    // What a quarter of what is left holds is not paced: no limit is near, and four processes that see so still fit.
    if (waiting <= left / 4) return now;
    if (left < 0) return quota.resetAt;
    const from = this.lastSentAt ?? now;
    return from + (quota.resetAt - from) / (left + 1);
  }
}
