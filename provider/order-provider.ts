/**
 * The ProxyOrder provider methods, as the Pulumi engine calls them inside the provider process.
 *
 * The API has no cancel endpoint, so a purchase is never undone: create buys (once, by idempotency key) or adopts,
 * update only resumes waiting, delete only stops tracking. Every order that was made ends up in the state, in the
 * outputs or in an error message, and leaves the state only when its absence is certain (absence.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { BudgetSummary, RequestBudget } from "../client/budget";
import { ProxyApiClient } from "../client/client";
import { AuthenticationError, NotFoundError, PermissionError, ProxyError } from "../client/errors";
import type { ClientOptions } from "../client/request";
import { isPendingState, isSpentState, isTargetState } from "../contract/states";
import type { Order } from "../contract/types";
import { confirmOrderGone, type AbsenceCheckOptions } from "./absence";
import { ConfigurationError, resolveSettings, type ConfigLookup } from "./config";
import { formatDuration, parseDuration } from "./duration";
import { nextPurchaseKey, purchaseKey, type PurchaseIdentity } from "./idempotency";
import { checkInputs, INPUT_DEFAULTS } from "./inputs";
import { inputsOf, toOutputs, type OrderInputs, type OrderOutputs } from "./order-state";
import { PartialOrderError, partialProperties, UNKNOWN, type WithProvider } from "./pulumi-host";
import { assessExpiry, expiryMessage, planSuccessor, replacesOrder, takePlannedSuccessor } from "./renewal";
import { OrderFailedError, OrderWaitCancelledError, OrderWaitTimeoutError, waitForOrder, type WaitOptions } from "./wait";

/** Re-purchases after spent orders, per create, before giving up (each one was reported). */
const MAX_REPURCHASES = 3;

/** Least time between two of a resource's lines about the rate limit. */
const HELD_REPORT_EVERY_MS = 30_000;

/** How long an order may take to become ready: the engine's `customTimeouts` when given, else its `readyTimeout`. */
function readyWithinMs(inputs: OrderInputs, operation: OperationOptions): number {
  return operation.timeoutMs ?? parseDuration(inputs.readyTimeout) ?? 0;
}

/** Purchases through one request budget (one per API key and process), for the rate limit's summary line. */
interface Fleet {
  waiting: number;
  /** Orders bought so far; an order an earlier run bought counts too. */
  bought: number;
}

/**
 * Every core of a process shares these (the plugin makes one core per operation): one fleet per budget, summarised
 * once, on the log of the first core that used it.
 */
const fleets = new WeakMap<RequestBudget, Fleet>();

function fleetOf(budget: RequestBudget, log: ProviderLog): Fleet {
  const known = fleets.get(budget);
  if (known) return known;
  const fleet: Fleet = { waiting: 0, bought: 0 };
  fleets.set(budget, fleet);
  budget.onSummary((s: BudgetSummary) => {
    const throttled = s.throttled > 0 ? `, ${s.throttled} answered 429 since the last summary` : "";
    log.info(
      `proxy: the API's rate limit is holding ${s.held} request(s) back (sending about ${s.sentPerSecond.toFixed(1)}/s${throttled}); ` +
        `${fleet.bought} order(s) bought so far, ${fleet.waiting} waiting to be bought`,
    );
  });
  return fleet;
}

/** What a 401 or 403 during refresh means: the key used is the one stored with the stack's last `pulumi up`. */
const STORED_CONFIG_ADVICE =
  "During `pulumi refresh` and `pulumi destroy`, Pulumi runs the provider with the stack configuration stored in the " +
  "state by the last `pulumi up`, not the one you have now. If you rotated the key, run `pulumi up` or " +
  "`pulumi refresh --run-program` to apply the new one.";

/** Where provider messages go. In the provider process: Pulumi's log, which the CLI shows. */
export interface ProviderLog {
  info(message: string): void;
  warn(message: string): void;
}

/** The resource an import is for: what the derived idempotency key is made of, but the plan. */
export type ResourceIdentity = Omit<PurchaseIdentity, "planId">;

/** What the provider methods depend on; tests replace parts of it. */
export interface OrderProviderOptions {
  /** Environment for the `PROXY_API_*` fallbacks. @default process.env */
  env?: NodeJS.ProcessEnv;
  log?: ProviderLog;
  /** Where the rate limit's summary of the whole process goes. @default `log` */
  summaryLog?: ProviderLog;
  /** Extra client options (tests shorten the retries or inject a dispatcher). */
  client?: Partial<ClientOptions>;
  /** Extra waiter options (tests use a simulated clock or shorter polls). */
  wait?: Partial<Omit<WaitOptions, "client" | "orderId" | "deadline">>;
  /** How long a 404 must hold before an order counts as gone (tests shorten it). */
  absence?: AbsenceCheckOptions;
  /** The time an order's expiry is judged by (tests use the sandbox's clock). @default Date.now */
  now?: () => number;
}

/** Inputs as `check` receives them: anything, until it has validated them. */
type UncheckedInputs = Partial<Record<keyof OrderInputs, unknown>>;

/** Where `configure` reads the `proxy:*` settings: the stack's config, or a provider plugin's own settings. */
export interface ConfigureArgs {
  config: { get(key: string): string | undefined };
}

/** Options of one create or update, from the engine rather than the inputs. */
export interface OperationOptions {
  /** The deadline of the wait in milliseconds, instead of `readyTimeout` (a plugin's `customTimeouts`). */
  timeoutMs?: number;
  /** Ends the wait at once, recording the order as a timeout would (a plugin's `Cancel`, on Ctrl-C). */
  signal?: AbortSignal;
}

/** Creates the provider object whose methods the serialized ProxyOrder provider calls. */
export function createOrderProvider(options: OrderProviderOptions = {}) {
  let lookup: ConfigLookup = () => undefined;
  const log: ProviderLog = options.log ?? pulumiLog();
  const now = options.now ?? Date.now;

  /** The process's client for the current settings (one connection pool and one request budget, reused across calls). */
  const client = (): ProxyApiClient => {
    const { baseUrl, apiKey } = resolveSettings(lookup, options.env ?? process.env);
    return ProxyApiClient.shared({
      baseUrl,
      apiKey,
      onRetry: (e) =>
        log.info(`proxy: ${e.method} ${e.path} failed (${e.status ?? e.code}); retry ${e.attempt} in ${formatDuration(e.delayMs)}`),
      ...options.client,
    });
  };

  /** Adds up the time one resource's requests were held back, and says so at most every 30 s once it is long. */
  const heldReporter = (what: () => string) => {
    let total = 0;
    let reported = 0;
    return (heldMs: number) => {
      total += heldMs;
      if (total - reported >= HELD_REPORT_EVERY_MS) {
        reported = total;
        log.info(`proxy: ${what()} has waited ${formatDuration(total)} so far for the API's rate limit`);
      }
    };
  };

  /** The order, or "gone" when its absence is certain; rejects when a 404 cannot be confirmed. */
  const readOrder = async (api: ProxyApiClient, id: string): Promise<Order | "gone"> => {
    try {
      return (await api.getOrder(id)).order;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return confirmOrderGone(api, id, error, options.absence);
    }
  };

  /** Waits for the order; a timeout or lost contact becomes a partial result carrying the order's id. */
  const waitOrRecord = async (
    api: ProxyApiClient,
    inputs: WithProvider<OrderInputs>,
    order: Order,
    purchaseKey: string | null,
    operation: OperationOptions,
    onHeld: (heldMs: number) => void,
  ): Promise<OrderOutputs> => {
    try {
      const ready = await waitForOrder({
        client: api,
        orderId: order.id,
        signal: operation.signal,
        deadline: (options.wait?.clock?.now() ?? Date.now()) + readyWithinMs(inputs, operation),
        lastSeen: order,
        onProgress: (p) => log.info(`proxy: order ${p.orderId} is ${p.status} (waited ${formatDuration(p.waitedMs)})`),
        onHeld,
        ...options.wait,
      });
      return toOutputs(inputs, ready, purchaseKey);
    } catch (error) {
      if (error instanceof OrderFailedError) {
        throw new ProxyError(
          `${error.message} Nothing usable was provisioned and it is not kept in the state. ` +
            (inputs.adoptOrderId
              ? "Remove adoptOrderId to buy a new order with the next `pulumi up`."
              : "Run `pulumi up` again to buy again: the retry uses an idempotency key derived from this failed order, " +
                "so it cannot buy twice."),
          "order_failed",
          { cause: error },
        );
      }
      const last = (error instanceof OrderWaitTimeoutError || error instanceof OrderWaitCancelledError) && error.lastSeen ? error.lastSeen : order;
      const why = (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, "");
      const message =
        `${why}. Order ${order.id} is recorded in the state with status "${last.status}"; ` +
        "run `pulumi up` again to resume waiting (nothing is bought again), or `pulumi refresh` to see its state.";
      throw new PartialOrderError(message, order.id, partialProperties(toOutputs(inputs, last, purchaseKey), inputs));
    }
  };

  /** Buys the plan, or carries on with the order an earlier run bought with the same key. */
  const buy = async (api: ProxyApiClient, inputs: WithProvider<OrderInputs>, operation: OperationOptions) => {
    // A renewal or a replacement of a spent order buys with the key diff derived from the order it follows.
    let key = takePlannedSuccessor(inputs.idempotencyKey) ?? inputs.idempotencyKey;
    let orderId: string | undefined;
    const onHeld = heldReporter(() => (orderId ? `order ${orderId}` : `the purchase of plan ${inputs.planId}`));
    // A purchase the rate limit holds back may wait for its turn as long as the order may wait to be ready.
    const deadline = Date.now() + readyWithinMs(inputs, operation);
    const fleet = fleetOf(api.budget, options.summaryLog ?? log);
    for (let repurchase = 0; ; repurchase++) {
      fleet.waiting += 1;
      const { order, replayed, boughtBeforeThisCall } = await api
        .createOrder({ planId: inputs.planId, idempotencyKey: key }, { onHeld, deadline })
        .finally(() => (fleet.waiting -= 1));
      fleet.bought += 1;
      orderId = order.id;
      // Only an order bought before this create began may be bought again: one that is spent, or due for renewal
      // (diff planned no successor key, so the key met it again). A spent order this very call may have bought (its
      // answer lost, then replayed) goes on to the waiter, which reports it as failed, by id.
      const spent = isSpentState(order.status);
      const due = replacesOrder(assessExpiry(toOutputs(inputs, order, key), now()));
      if (!(boughtBeforeThisCall && (spent || due))) {
        if (replayed) {
          log.info(`proxy: order ${order.id} was bought earlier with this key; carrying on with it (not bought again)`);
        }
        const outs = inputs.waitForReady ? await waitOrRecord(api, inputs, order, key, operation, onHeld) : toOutputs(inputs, order, key);
        return { id: order.id, outs };
      }
      if (repurchase >= MAX_REPURCHASES) {
        throw new ProxyError(
          `Order ${order.id} for plan ${inputs.planId} ended "${order.status}", as did the ${repurchase} purchases before it. ` +
            "Not buying again automatically; check the plan with the provider's support.",
          "repeated_failures",
        );
      }
      log.warn(
        `proxy: order ${order.id} (bought by an earlier run with this key) ` +
          (spent ? `ended "${order.status}"` : "is due for renewal") +
          "; buying again with a key derived from it",
      );
      key = nextPurchaseKey(key, order.id);
    }
  };

  /** Tracks an order that exists instead of buying one: the stand-in for `pulumi import`. */
  const adopt = async (api: ProxyApiClient, inputs: WithProvider<OrderInputs>, id: string, operation: OperationOptions) => {
    const order = await readOrder(api, id);
    if (order === "gone") {
      throw new ProxyError(
        `adoptOrderId: order ${id} does not exist for this API key. Check the id (the orderId output of the old stack, ` +
          "or the provider's dashboard); nothing was bought.",
        "adopt_not_found",
      );
    }
    if (order.planId !== inputs.planId) {
      throw new ProxyError(
        `adoptOrderId: order ${id} is for plan "${order.planId}", but planId is "${inputs.planId}". ` +
          `Set planId to "${order.planId}" to adopt it; nothing was bought.`,
        "adopt_plan_mismatch",
      );
    }
    if (isSpentState(order.status)) {
      throw new ProxyError(
        `adoptOrderId: order ${id} ended "${order.status}" and has no usable proxies. Remove adoptOrderId to buy a new order; nothing was bought.`,
        "adopt_spent",
      );
    }
    log.info(`proxy: adopting order ${id} (${order.status}); nothing is bought`);
    const wait = inputs.waitForReady && !isTargetState(order.status);
    const onHeld = heldReporter(() => `order ${id}`);
    return { id: order.id, outs: wait ? await waitOrRecord(api, inputs, order, null, operation, onHeld) : toOutputs(inputs, order, null) };
  };

  /** A 401 or 403 during refresh says which configuration a refresh uses. */
  const explainStoredConfig = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof AuthenticationError || error instanceof PermissionError) {
        const said = error.message.replace(/\s*\(request id [^)]*\)$/, "");
        throw error.withMessage(`${said} ${STORED_CONFIG_ADVICE}${error.requestId ? ` (request id ${error.requestId})` : ""}`);
      }
      throw error;
    }
  };

  const provider = {
    /** The client for the configured settings, for the functions of a provider plugin. */
    client,

    /** Receives the stack's configuration once per provider process. */
    async configure(req: ConfigureArgs) {
      lookup = (key) => req.config.get(key);
    },

    /** Validates inputs and applies defaults; unknown values (preview) pass. */
    async check(_olds: UncheckedInputs, news: UncheckedInputs) {
      const failures = checkInputs(news);
      // Fail a preview that could never run: missing or unsafe configuration. A check failure prints as one line on
      // the resource; a thrown error would also be printed with its stack by the dynamic provider host.
      try {
        resolveSettings(lookup, options.env ?? process.env);
      } catch (error) {
        if (!(error instanceof ConfigurationError)) throw error;
        failures.push({ property: "", reason: error.message });
      }
      // Valid once there are no failures (the engine stops otherwise); unknown values stay as the engine sent them.
      const inputs = {
        ...news,
        waitForReady: news.waitForReady ?? INPUT_DEFAULTS.waitForReady,
        readyTimeout: news.readyTimeout ?? INPUT_DEFAULTS.readyTimeout,
      } as WithProvider<OrderInputs>;
      return { inputs, failures };
    },

    /**
     * A new plan replaces the order, as does a spent one (failed, cancelled, expired) or a different order to adopt.
     * A replacement that buys says so in the preview: the old order cannot be cancelled and stays billed.
     */
    async diff(_id: string, olds: OrderOutputs, news: OrderInputs) {
      const replaces: string[] = [];
      if (news.planId !== olds.planId) replaces.push("planId");
      if (isSpentState(olds.status)) replaces.push("status");
      const adopts = typeof news.adoptOrderId === "string" && news.adoptOrderId !== olds.orderId;
      if (adopts) replaces.push("adoptOrderId");
      // Judged by the renewBefore the program sets now, so a new window takes effect in the same `up`.
      const renewBefore = news.renewBefore === UNKNOWN ? olds.renewBefore : news.renewBefore;
      const expiry = assessExpiry({ ...olds, renewBefore }, now());
      if (replacesOrder(expiry) && !adopts) replaces.push("expiresAt");
      const updated: string[] = (["waitForReady", "readyTimeout", "idempotencyKey"] as const).filter((key) => news[key] !== olds[key]);
      if ((news.adoptOrderId ?? null) !== (olds.adoptOrderId ?? null) && !adopts) updated.push("adoptOrderId");
      if ((news.renewBefore ?? null) !== (olds.renewBefore ?? null)) updated.push("renewBefore");
      const changed = updated.length > 0;
      const resumes = isPendingState(olds.status) && news.waitForReady !== false;
      const said = expiryMessage(olds.orderId, olds.planId, expiry, renewBefore ?? undefined);
      if (said) log.warn(said);
      // The successor of the same plan follows this order: its key is derived from it, so the create buys once.
      const follows = !adopts && news.planId === olds.planId && (replaces.includes("status") || replaces.includes("expiresAt"));
      if (follows && news.idempotencyKey !== UNKNOWN) planSuccessor(news.idempotencyKey, olds);
      if (replaces.some((key) => key !== "expiresAt") && !adopts) {
        log.warn(
          `proxy: replacing order ${olds.orderId} (plan ${olds.planId}, ${olds.status}) buys a new order for plan ` +
            `${news.planId === UNKNOWN ? "(known after apply)" : news.planId}. ${olds.orderId} is not cancelled: ` +
            "the API has no cancel endpoint, so it stays with the account until it expires.",
        );
      }
      // `diffs` names every changed input for engines that show them (the plugin); the dynamic host ignores it.
      return { changes: replaces.length > 0 || changed || resumes, replaces, diffs: [...replaces, ...updated], deleteBeforeReplace: false };
    },

    /** Buys the plan (once, by idempotency key), or adopts an existing order, and waits unless told not to. */
    async create(inputs: WithProvider<OrderInputs>, operation: OperationOptions = {}) {
      const api = client();
      return inputs.adoptOrderId ? adopt(api, inputs, inputs.adoptOrderId, operation) : buy(api, inputs, operation);
    },

    /**
     * Refresh: the order as the API sees it now. It leaves the state only when its absence is certain (absence.ts);
     * a 401 or 403 explains which configuration a refresh uses.
     */
    async read(id: string, props?: OrderOutputs) {
      if (!props) throw new ProxyError(`Order ${id} has no stored properties to refresh.`, "no_properties");
      return explainStoredConfig(async () => {
        const order = await readOrder(client(), id);
        if (order === "gone") {
          log.warn(`proxy: order ${id} no longer exists (404 confirmed, and the API answers otherwise); it leaves the state`);
          return {};
        }
        const outs = toOutputs(props, order, props.purchaseKey ?? null);
        const expiry = assessExpiry(outs, now());
        const said = expiry.kind === "unknown" ? undefined : expiryMessage(id, outs.planId, expiry, outs.renewBefore);
        if (said) log.warn(said);
        // `inputs` lets the engine diff against what the program declares, so a refresh leaves no phantom diff.
        return { id, props: outs, inputs: inputsOf(props) };
      });
    },

    /**
     * `pulumi import` (provider plugin): the order by id, with the inputs a program declaring it would have, so the
     * next preview shows no change. The idempotency key is the one the resource would derive; the key the order was
     * bought with is not known.
     */
    async importOrder(id: string, resource: ResourceIdentity) {
      const order = await readOrder(client(), id);
      if (order === "gone") {
        throw new ProxyError(
          `Order ${id} does not exist for this API key: check the id (the orderId output of the stack that bought it, ` +
            "or the provider's dashboard) and the provider's apiKey. Nothing was imported.",
          "import_not_found",
        );
      }
      const inputs: OrderInputs = {
        planId: order.planId,
        waitForReady: INPUT_DEFAULTS.waitForReady,
        readyTimeout: INPUT_DEFAULTS.readyTimeout,
        idempotencyKey: purchaseKey({ ...resource, planId: order.planId }),
      };
      return { id, props: toOutputs(inputs, order, null), inputs };
    },

    /** Changes no purchase: resumes waiting for an order recorded before it was ready, else records the new inputs. */
    async update(id: string, olds: OrderOutputs, news: WithProvider<OrderInputs>, operation: OperationOptions = {}) {
      if (!(isPendingState(olds.status) && news.waitForReady)) {
        // Optional inputs the program no longer sets leave the outputs too.
        const { adoptOrderId: _adopted, renewBefore: _renewBefore, ...order } = olds;
        return { outs: { ...order, ...inputsOf(news) } };
      }
      const api = client();
      log.info(`proxy: resuming the wait for order ${id} (recorded as ${olds.status}); nothing is bought`);
      const order = await readOrder(api, id);
      if (order === "gone") {
        throw new ProxyError(
          `Order ${id} no longer exists (404 confirmed, and the API answers otherwise). It is kept in the state ` +
            "until `pulumi refresh` removes it; nothing was bought.",
          "order_gone",
        );
      }
      return { outs: await waitOrRecord(api, news, order, olds.purchaseKey ?? null, operation, heldReporter(() => `order ${id}`)) };
    },

    /** The API cannot cancel an order: this only stops tracking it. */
    async delete(id: string, props: OrderOutputs) {
      if (isSpentState(props.status)) {
        log.info(`proxy: order ${id} (plan ${props.planId}, ${props.status}) is no longer tracked`);
        return;
      }
      log.warn(
        `proxy: order ${id} (plan ${props.planId}) is no longer tracked by Pulumi, but the purchase stays active: ` +
          "the API has no cancel endpoint. Contact the provider to cancel or refund it.",
      );
    },
  };
  // Checked against Pulumi's own interface. The SDK types the `inputs` that `read` returns (read by the engine since
  // 3.216) as Outputs; they are the inputs, so that one member is checked with the honest type.
  type Engine = pulumi.dynamic.ResourceProvider<WithProvider<OrderInputs>, OrderOutputs>;
  type Read = (id: string, props?: OrderOutputs) => Promise<Omit<pulumi.dynamic.ReadResult<OrderOutputs>, "inputs"> & { inputs?: OrderInputs }>;
  return provider satisfies Omit<Engine, "read"> & { read: Read };
}

/** The provider object's type. */
export type OrderProvider = ReturnType<typeof createOrderProvider>;

/** Pulumi's log, loaded lazily: it is only there when the provider runs under the Pulumi engine. */
function pulumiLog(): ProviderLog {
  const pulumiModule = () => require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  return {
    info: (message) => void pulumiModule().log.info(message),
    warn: (message) => void pulumiModule().log.warn(message),
  };
}
