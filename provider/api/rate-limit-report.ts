/**
 * What a user sees of the API's rate limit: one summary per request budget (one per API key and process) at most every
 * 30 s instead of a line per 429, and a line for a resource whose requests have waited 30 s or more in all.
 */
import type { BudgetSummary, RequestBudget } from "../../client";
import { formatDuration } from "../shared/duration";

/** Where provider messages go. In the provider process: Pulumi's log, which the CLI shows. */
export interface ProviderLog {
  info(message: string): void;
  warn(message: string): void;
}

/** Least time between two of a resource's lines about the rate limit. */
const HELD_REPORT_EVERY_MS = 30_000;

/**
 * Purchases through one account's request budget, for its summary line: the summary goes to the log of the first
 * core that used the account (account.ts), once per summary of the budget.
 */
export class PurchaseTally {
  private waiting = 0;
  /** Orders bought so far; an order an earlier run bought counts too. */
  private bought = 0;

  constructor(budget: RequestBudget, summaryLog: ProviderLog) {
    budget.onSummary((s: BudgetSummary) => {
      const throttled = s.throttled > 0 ? `, ${s.throttled} refused (429 or 503) since the last summary` : "";
      summaryLog.info(
        `proxy: the API's rate limit is holding ${s.held} request(s) back (sending about ${s.sentPerSecond.toFixed(1)}/s${throttled}); ` +
          `${this.bought} order(s) bought so far, ${this.waiting} waiting to be bought`,
      );
    });
  }

  /** Runs a purchase, counted as waiting until it answers and as bought once it did. */
  async count<T>(buy: () => Promise<T>): Promise<T> {
    this.waiting += 1;
    try {
      const bought = await buy();
      this.bought += 1;
      return bought;
    } finally {
      this.waiting -= 1;
    }
  }
}

/** Adds up the time one resource's requests were held back, and says so on `log` at most every 30 s once long. */
export function heldReporter(log: ProviderLog, what: () => string): (heldMs: number) => void {
  let total = 0;
  let reported = 0;
  return (heldMs) => {
    total += heldMs;
    if (total - reported >= HELD_REPORT_EVERY_MS) {
      reported = total;
      log.info(`proxy: ${what()} has waited ${formatDuration(total)} so far for the API's rate limit`);
    }
  };
}
