/**
 * What other processes on the key spent of the quota, as far as this process's own answers show: the signal that a
 * quota found spent was shared, so that stacks with hints on every answer yield to each other before a `429` does it
 * for them (ECN in TCP's terms: a mark instead of a drop).
 *
 * Between two answers of one window, `RateLimit-Remaining` falls by every request the API counted in between: this
 * process's and the others'. What this process may have had counted since the window's first answer is every request
 * it sent after that one, and every one in flight when that one went (any of them may arrive later); less than that
 * can never be counted as the others'. So a lone process, however its answers are reordered, never sees anybody, and
 * what is seen is a lower bound.
 */

/** One answered request, as the budget sent it. */
export interface SentRequest {
  /** Its place among this process's requests on the key (0, 1, 2, ...). */
  seq: number;
  /** This process's requests unanswered when it went. */
  inFlight: number;
}

/** What the others spent of the window this process's answers are in; see the module's comment. */
export class Crowding {
  /**
   * The window's first answer (what it found left, and what this process may have had counted since), and what the
   * last answer found left.
   */
  private window: { remaining: number; seq: number; inFlight: number; last: number } | undefined;

  /**
   * One more answer with hints: what it found `remaining`, the request it answers, how many requests this process has
   * sent in all, and how many are still unanswered. Returns the least the others spent since the window's first answer.
   */
  observe(remaining: number, request: SentRequest, sent: number, inFlight: number): number {
    // A quota grown by more than this process's requests in flight could have brought back is a new window (or a
    // bucket's refill): counting starts again from this answer.
    if (!this.window || remaining > this.window.last + inFlight + 1) {
      this.window = { remaining, seq: request.seq, inFlight: request.inFlight, last: remaining };
    }
    this.window.last = remaining;
    const mine = sent - 1 - this.window.seq + this.window.inFlight;
    return Math.max(0, this.window.remaining - remaining - mine);
  }
}
