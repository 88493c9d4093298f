/**
 * What a fleet prints while it works: one line for the whole fleet at most every few seconds (how many members are in
 * each state, and the slowest), then one summary, instead of a line per member and state. A fleet of 1,000 would
 * otherwise print thousands of lines; a single ProxyOrder keeps its own lines.
 */
import type { Clock } from "../../client";
import { formatDuration } from "../shared/duration";
import type { ProviderLog } from "../api/rate-limit-report";

/** Least time between two progress lines; it grows to a tenth of the time waited, so a long wait stays short. */
export const FLEET_PROGRESS_EVERY_MS = 10_000;

/** The states of a fleet's members in the order a progress line names them. */
const SHOWN_STATES = ["pending", "provisioning", "active", "failed"] as const;

/** Counts a fleet's members by state and speaks for them on `log`. */
export class FleetProgress {
  private readonly members = new Map<number, { orderId: string; status: string; since: number }>();
  private readonly started: number;
  private lastLineAt: number;
  private replayed = 0;

  constructor(
    private readonly log: ProviderLog,
    private readonly what: string,
    private readonly size: number,
    private readonly clock: Clock,
  ) {
    this.started = clock.now();
    this.lastLineAt = this.started;
  }

  /** A member's order was seen in `status`; prints a line for the fleet when one is due. */
  update(slot: number, orderId: string, status: string): void {
    const known = this.members.get(slot);
    this.members.set(slot, { orderId, status, since: known?.orderId === orderId ? known.since : this.clock.now() });
    const at = this.clock.now();
    if (at - this.lastLineAt >= Math.max(FLEET_PROGRESS_EVERY_MS, (at - this.started) / 10)) {
      this.lastLineAt = at;
      this.log.info(`proxy: ${this.what}: ${this.counts()}${this.slowest(at)} (waited ${formatDuration(at - this.started)})`);
    }
  }

  /** A member's key met an order an earlier run bought: counted for the summary instead of a line each. */
  carriedOn(): void {
    this.replayed += 1;
  }

  /** The closing line: the counts, and how many members were carried on from an earlier run. */
  finish(): void {
    if (this.members.size === 0) return;
    const carried = this.replayed > 0 ? `; ${this.replayed} bought by an earlier run and carried on (not bought again)` : "";
    this.log.info(`proxy: ${this.what}: ${this.counts()} after ${formatDuration(this.clock.now() - this.started)}${carried}`);
  }

  private counts(): string {
    const byState = new Map<string, number>();
    for (const { status } of this.members.values()) byState.set(status, (byState.get(status) ?? 0) + 1);
    const other = [...byState.keys()].filter((s) => !(SHOWN_STATES as readonly string[]).includes(s));
    const states = [...SHOWN_STATES, ...other].map((s) => `${byState.get(s) ?? 0} ${s}`).join(", ");
    return `${this.members.size} of ${this.size} order(s) placed: ${states}`;
  }

  /** The member that has waited longest and is not active yet, if any. */
  private slowest(at: number): string {
    let oldest: { orderId: string; status: string; since: number } | undefined;
    for (const m of this.members.values()) {
      if ((m.status === "pending" || m.status === "provisioning") && (!oldest || m.since < oldest.since)) oldest = m;
    }
    return oldest ? `; slowest ${oldest.orderId} (${oldest.status} for ${formatDuration(at - oldest.since)})` : "";
  }
}
