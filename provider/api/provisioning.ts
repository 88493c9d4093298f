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
 *
 * What the leader saw can be loose: its polls are a tenth of its wait apart, and on a key that is short of requests
 * they wait their turn behind the purchases (where two stacks of 100 share a key, bench/stacks-sim.mjs's leaders
 * learned 23 to 30 s for a plan of 20 s), and every other order then reads that much late. So while the learned time
 * is more than `CLOSE_ENOUGH` above the longest wait seen not ready (beyond the leader's own tenth), one order at a
 * time that can still read at the time halfway between tries it (`tryShorter`): seen ready, the learned time is that
 * much shorter and every waiting order looks again (`nextChange`); not ready, the lower bound rises and the order reads at
 * the learned time, one read more. Each try halves the gap. An order seen ready at or after the learned time teaches
 * nothing (its read may have waited its turn), unless it was not ready by then: that is what a plan that got slower
 * looks like. In the simulation, two and four stacks without estimates finished up to 0.4x of the floor sooner, single
 * fleets within 0.02x of before (docs/contributing/benchmarks.md).
 */
/** Waits remembered per plan. */
const KEPT = 8;

/**
 * When a learned time is close enough to the longest wait seen not ready that no order tries shorter: within this
 * share of it (the leader's polls alone are a tenth of its wait apart, so a tighter share would spend reads on every
 * plan), or this many ms.
 */
const CLOSE_ENOUGH = { share: 0.15, ms: 250 } as const;

/** A shorter time to expect, tried by one order: `end` it once its read said ready or not, or its wait ended. */
export interface ProvisioningTry {
  /** The time from purchase at which this order reads. */
  readonly ms: number;
  end(): void;
}

/** The time from purchase to ready of the orders of one plan, as seen by this process on one key. */
export interface PlanProvisioningTimes {
  /** The time from purchase to ready to expect of a new order, or undefined before any order of the plan was seen. */
  expectedMs(): number | undefined;
  /**
   * Records that an order bought `readyWithinMs` ago was seen ready; `late` when it was not ready by the time it
   * expected from this plan.
   */
  observe(readyWithinMs: number, late?: boolean): void;
  /** Records that an order bought `elapsedMs` ago was seen not ready yet. */
  notReadyAfter(elapsedMs: number): void;
  /**
   * A shorter time for an order bought `elapsedMs` ago to try while the learned one may be loose (see the module's
   * comment), or undefined: none is needed, another order is trying, or this one is too old to read at it.
   */
  tryShorter(elapsedMs: number): ProvisioningTry | undefined;
  /**
   * Resolves at the next change a waiting order cares about: a time first learned or shortened, a try ended, or while
   * nothing is learned a wait ended.
   */
  nextChange(): Promise<void>;
  /** The wait of an order bought at `startedAt` begins; call what is returned when it ends, however it ends. */
  begin(startedAt: number): () => void;
  /**
   * While nothing is learned and an order of the plan bought before `startedAt` is still waited for: a promise that
   * resolves when that changes (a time learned, or a wait ended). Undefined when this order leads.
   */
  earlierOrderChange(startedAt: number): Promise<void> | undefined;
}

/** One plan's times on one account (account.ts holds them). */
export class ProvisioningTimes implements PlanProvisioningTimes {
  private readonly seen: number[] = [];
  /** The longest waits seen not ready, longest first. */
  private readonly notReady: number[] = [];
  private trying = false;
  /** When each order now waited for was bought. */
  private readonly waiting: number[] = [];
  private changed: { promise: Promise<void>; resolve: () => void } | undefined;

  expectedMs(): number | undefined {
    return this.seen.length > 0 ? Math.min(...this.seen) : undefined;
  }

  observe(readyWithinMs: number, late = false): void {
    const before = this.expectedMs();
    if (before !== undefined && readyWithinMs >= before && !late) return;
    this.seen.push(readyWithinMs);
    if (this.seen.length > KEPT) this.seen.shift();
    const after = this.expectedMs() as number;
    if (before === undefined || after < before) this.notify();
  }

  notReadyAfter(elapsedMs: number): void {
    // The longest are kept: an order's early reads, each not ready, say least.
    this.notReady.push(elapsedMs);
    this.notReady.sort((a, b) => b - a);
    if (this.notReady.length > KEPT) this.notReady.pop();
  }

  tryShorter(elapsedMs: number): ProvisioningTry | undefined {
    const learned = this.expectedMs();
    if (learned === undefined || this.trying) return undefined;
    const below = Math.max(0, ...this.notReady.filter((ms) => ms < learned));
    const ms = (below + learned) / 2;
    if (learned - below <= Math.max(CLOSE_ENOUGH.ms, CLOSE_ENOUGH.share * learned) || elapsedMs > ms) return undefined;
    this.trying = true;
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      this.trying = false;
      this.notify();
    };
    return { ms, end };
  }

  begin(startedAt: number): () => void {
    this.waiting.push(startedAt);
    return () => {
      this.waiting.splice(this.waiting.indexOf(startedAt), 1);
      // Followers wait on this to lead next, while nothing is learned.
      if (this.seen.length === 0) this.notify();
    };
  }

  earlierOrderChange(startedAt: number): Promise<void> | undefined {
    if (this.seen.length > 0 || !this.waiting.some((at) => at < startedAt)) return undefined;
    return this.nextChange();
  }

  nextChange(): Promise<void> {
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
