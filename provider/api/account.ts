/**
 * What a provider process keeps per API account, that is per base URL and API key: the one place that says which
 * calls share what.
 *
 * Every provider core of the process on the same base URL and key (the plugin makes one per operation, the dynamic
 * provider one per resource type) and the program's functions share one {@link Account}: one client and request
 * budget (so the key's rate limit is learned once and spent once), the listings a refresh reads and those that find
 * active orders' proxies, the tally of
 * purchases its rate-limit summary reports, what each plan took to provision, which other keys were seen reading
 * the account's orders, and the successor keys a `diff` planned for the `create` that follows. Nothing of it is written to disk: a new process starts from nothing, as each `pulumi` command
 * runs a provider process of its own. A test that needs a clean start makes its own {@link Accounts}.
 */
import { createHash } from "node:crypto";
import { AuthenticationError, type ClientOptions, ProxyApiClient, ProxyError } from "../../client";
import { RefreshLister } from "./listing";
import { ActiveOrderProxies } from "./order-proxies";
import { ProvisioningTimes, type PlanProvisioningTimes } from "./provisioning";
import { PurchaseTally, type ProviderLog } from "./rate-limit-report";
import { successorKey, type Predecessor } from "../state/renewal";

/**
 * How long the check of the key waits for the API: past it, a warning, and the preview (or up) goes on. Long enough
 * for an API under load (its retries of a `503` included), short against the minutes a CI preview may take.
 */
const KEY_CHECK_MS = 15_000;

/** One API account's client and what the process learned and shares about it; see the module's comment. */
export class Account {
  /** The client of the account's calls; its budget (its own unless the options name one) is the account's. */
  readonly api: ProxyApiClient;
  /** Reads of one refresh share the listings of the account's proxies (listing.ts). */
  readonly refreshes: RefreshLister;
  /** The proxies of active orders whose records name none, from the list (order-proxies.ts). */
  readonly activeProxies: ActiveOrderProxies;
  /** The fingerprints of other keys whose orders this key was seen reading: they share its account (origin.ts). */
  readonly witnessedKeys = new Set<string>();
  /** Whether this key has read any order here: a `404` for an order that records no origin counts only then. */
  readAnOrder = false;
  private readonly provisioning = new Map<string, ProvisioningTimes>();
  private tally: PurchaseTally | undefined;
  /**
   * Successor keys planned by `diff` for the `create` of the same replacement, by the resource's idempotency key. The
   * engine calls `diff` and then `create` in the same provider process, and `create` is not told which order it
   * replaces (`CreateRequest` carries no old state): so `diff` leaves the key here.
   */
  private readonly plannedSuccessors = new Map<string, string>();
  /** The one check of the key in this process (keyRefusal). */
  private keyChecked: Promise<string | undefined> | undefined;

  constructor(
    options: ClientOptions,
    private readonly summaryLog: ProviderLog,
  ) {
    this.api = new ProxyApiClient(options);
    this.refreshes = new RefreshLister(this.api);
    this.activeProxies = new ActiveOrderProxies(this.api);
  }

  /**
   * Purchases waiting and bought, for the summary line of the rate limit (rate-limit-report.ts): made at the first
   * purchase, so an account that only reads (a program's functions) prints no summary of purchases.
   */
  get purchases(): PurchaseTally {
    return (this.tally ??= new PurchaseTally(this.api.budget, this.summaryLog));
  }

  /**
   * Why the API refuses this account's key, or undefined: one `GET /v1/usage` per process and account (a read every
   * key may make, through the same pacing as every call), so that `pulumi preview` fails on a key `up` would fail on,
   * with the same message, and nothing is sent but that read. An API that does not answer it within
   * {@link KEY_CHECK_MS} (CI previews may run where the API cannot be reached), or answers anything but `401`, is one
   * warning, not a failure: the preview goes on, and `up` meets whatever it is.
   */
  keyRefusal(): Promise<string | undefined> {
    this.keyChecked ??= this.api.getUsage({ signal: AbortSignal.timeout(KEY_CHECK_MS) }).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof AuthenticationError) return error.message;
        if (!(error instanceof ProxyError)) throw error;
        this.summaryLog.warn(`proxy: the API key could not be checked, and this run goes on without it: ${error.message}`);
        return undefined;
      },
    );
    return this.keyChecked;
  }

  /** Records that the replacement of the resource with `idempotencyKey` follows `previous`. */
  planSuccessor(idempotencyKey: string, previous: Predecessor): void {
    this.plannedSuccessors.set(idempotencyKey, successorKey(previous));
  }

  /** The successor key `diff` planned for this resource's create, if any; it is used once. */
  takePlannedSuccessor(idempotencyKey: string): string | undefined {
    const key = this.plannedSuccessors.get(idempotencyKey);
    this.plannedSuccessors.delete(idempotencyKey);
    return key;
  }

  /** What orders of `planId` took to provision on this key (provisioning.ts). */
  provisioningOf(planId: string): PlanProvisioningTimes {
    let times = this.provisioning.get(planId);
    if (!times) this.provisioning.set(planId, (times = new ProvisioningTimes()));
    return times;
  }
}

/** The accounts a process has used, by base URL and key: one {@link Account} each. */
export class Accounts {
  private readonly known = new Map<string, Account>();

  /**
   * The account of `options.baseUrl` and `options.apiKey`, made on first use with these options; later calls share
   * it, and a `maxRateShare` they ask for applies to it too (the smallest wins). `summaryLog` is where the first
   * caller wants the rate limit's summary to go.
   */
  of(options: ClientOptions, summaryLog: ProviderLog): Account {
    // The key itself is only hashed, never kept as a map key.
    const id = `${options.baseUrl.replace(/\/+$/, "")} ${createHash("sha256").update(options.apiKey).digest("hex")}`;
    let account = this.known.get(id);
    if (!account) this.known.set(id, (account = new Account(options, summaryLog)));
    else if (options.maxRateShare !== undefined) account.api.budget.limitShare(options.maxRateShare / 100);
    return account;
  }
}

/** The process's accounts: what every provider core and program function shares unless told otherwise. */
export const processAccounts = new Accounts();
