/**
 * What orders of one plan took to provision, as this process saw them: a stand-in for `estimated_ready_at`, which the
 * contract lets an API leave out. Orders of one plan provision alike, so once a few of a fleet's members are seen
 * ready, the others are polled when they should be ready rather than on the growing schedule (wait.ts), which saves
 * about half the reads of a fleet against such an API.
 *
 * What is kept is the shortest of the last few waits: each is an upper bound (the order was ready by then, seen a
 * little late), so the shortest is the tightest. When a wait finds its order not ready at that time, the waiter stops
 * trusting it for that order, as it does with a wrong `estimated_ready_at`, so a plan that got slower costs one read
 * more per order, no more.
 *
 * Before anything is learned, a fleet's members are all bought within seconds and would each poll on the growing
 * schedule. Instead the order bought first leads: the others follow, reading nothing until it is seen ready (then
 * they have a time to expect) or its wait ends otherwise (then the next oldest leads), and at least every `maxPollMs`.
 */
/** Waits remembered per plan. */
const KEPT = 8;

/** The time from purchase to ready of the orders of one plan, as seen by this process on one key. */
export interface PlanProvisioningTimes {
  /** The time from purchase to ready to expect of a new order, or undefined before any order of the plan was seen. */
  expectedMs(): number | undefined;
  /** Records that an order bought `readyWithinMs` ago was seen ready. */
  observe(readyWithinMs: number): void;
  /** The wait of an order bought at `startedAt` begins; call what is returned when it ends, however it ends. */
  begin(startedAt: number): () => void;
  /**
   * While nothing is learned and an order of the plan bought before `startedAt` is still waited for: a promise that
   * resolves when that changes (a time learned, or a wait ended). Undefined when this order leads.
   */
  leader(startedAt: number): Promise<void> | undefined;
}

/** One plan's times on one account (account.ts holds them). */
export class ProvisioningTimes implements PlanProvisioningTimes {
  private readonly seen: number[] = [];
  /** When each order now waited for was bought. */
  private readonly waiting: number[] = [];
  private changed: { promise: Promise<void>; resolve: () => void } | undefined;

  expectedMs(): number | undefined {
    return this.seen.length > 0 ? Math.min(...this.seen) : undefined;
  }

  observe(readyWithinMs: number): void {
    this.seen.push(readyWithinMs);
    if (this.seen.length > KEPT) this.seen.shift();
    this.notify();
  }

  begin(startedAt: number): () => void {
    this.waiting.push(startedAt);
    return () => {
      this.waiting.splice(this.waiting.indexOf(startedAt), 1);
      this.notify();
    };
  }

  leader(startedAt: number): Promise<void> | undefined {
    if (this.seen.length > 0 || !this.waiting.some((at) => at < startedAt)) return undefined;
    if (!this.changed) {
      let resolve = () => {};
      const promise = new Promise<void>((done) => (resolve = done));
      this.changed = { promise, resolve };
    }
    return this.changed.promise;
  }

  private notify(): void {
    this.changed?.resolve();
    this.changed = undefined;
  }
}
