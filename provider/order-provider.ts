/**
 * The ProxyOrder provider methods, as the Pulumi engine calls them inside the provider process.
 *
 * The API has no cancel endpoint, so a purchase is never undone: create buys (once, by idempotency key), update only
 * resumes waiting, delete only stops tracking. Every order that was made ends up in the state, in the outputs or in
 * an error message.
 */
import { confirmOrderGone, type AbsenceCheckOptions } from "./absence";
import { ProxyApiClient } from "./api/client";
import { AuthenticationError, NotFoundError, PermissionError } from "./api/errors";
import type { ClientOptions } from "./api/request";
import type { Order } from "./api/schemas";
import { resolveSettings, type ConfigLookup, type ProviderSettings } from "./config";
import { formatDuration, parseDuration } from "./duration";
import { nextPurchaseKey } from "./idempotency";
import { inputsOf, toOutputs, type OrderInputs, type OrderOutputs } from "./order-state";
import {
  FAILED_STATES,
  OrderFailedError,
  OrderWaitTimeoutError,
  PENDING_STATES,
  TARGET_STATES,
  waitForOrder,
  type WaitOptions,
} from "./wait";

/** How the engine marks a value it does not know yet (during preview). */
export const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

/** Input defaults; the README's resource table lists the same. */
export const INPUT_DEFAULTS = { waitForReady: true, readyTimeout: "20m" } as const;

/** The longest readyTimeout accepted. */
const MAX_READY_TIMEOUT_MS = 24 * 3_600_000;

/** Re-purchases after spent orders, per create, before giving up (each one was reported). */
const MAX_REPURCHASES = 3;

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

/** What the provider methods depend on; tests replace parts of it. */
export interface OrderProviderOptions {
  /** Environment for the `PROXY_API_*` fallbacks. @default process.env */
  env?: NodeJS.ProcessEnv;
  log?: ProviderLog;
  /** Extra client options (tests inject a dispatcher and a no-wait sleep). */
  client?: Partial<ClientOptions>;
  /** Extra waiter options (tests shorten the polls). */
  wait?: Partial<Omit<WaitOptions, "deadline">>;
  /** How long a 404 must hold before an order counts as gone (tests shorten it). */
  absence?: AbsenceCheckOptions;
}

/** A failure `check` reports for one property. */
export interface CheckFailure {
  property: string;
  reason: string;
}

/** An error that tells the engine the order exists although the operation failed (a partial create or update). */
export class PartialOrderError extends Error {
  constructor(
    message: string,
    readonly id: string,
    readonly properties: Record<string, unknown>,
    readonly reasons: string[],
  ) {
    super(message);
    this.name = "PartialOrderError";
  }
}

/** Creates the provider object whose methods the serialized ProxyOrder provider calls. */
export function createOrderProvider(options: OrderProviderOptions = {}) {
  let lookup: ConfigLookup = () => undefined;
  const log: ProviderLog = options.log ?? pulumiLog();

  const settings = (): ProviderSettings => resolveSettings(lookup, options.env ?? process.env);
  const withClient = async <T>(use: (client: ProxyApiClient) => Promise<T>): Promise<T> => {
    const { baseUrl, apiKey } = settings();
    const client = new ProxyApiClient({
      baseUrl,
      apiKey,
      onRetry: (e) =>
        log.info(`proxy: ${e.method} ${e.path} failed (${e.status ?? e.code}); retry ${e.attempt} in ${formatDuration(e.delayMs)}`),
      ...options.client,
    });
    try {
      return await use(client);
    } finally {
      await client.close();
    }
  };

  const wait = (client: ProxyApiClient, inputs: OrderInputs, orderId: string, lastSeen?: Order) =>
    waitForOrder(client, orderId, {
      deadline: Date.now() + (parseDuration(inputs.readyTimeout) ?? 0),
      lastSeen,
      onProgress: (p) =>
        log.info(`proxy: order ${p.orderId} is ${p.status} (waited ${formatDuration(p.waitedMs)})`),
      ...options.wait,
    });

  /** Waits for the order; a timeout or lost contact becomes a partial result carrying the order's id. */
  const waitOrRecord = async (
    client: ProxyApiClient,
    inputs: OrderInputs & { __provider?: unknown },
    order: Order,
    purchaseKey: string | null,
  ): Promise<OrderOutputs> => {
    try {
      return toOutputs(inputs, await wait(client, inputs, order.id, order), purchaseKey);
    } catch (error) {
      if (error instanceof OrderFailedError) {
        throw new Error(
          `${error.message} Nothing usable was provisioned and it is not kept in the state. ` +
            (inputs.adoptOrderId
              ? "Remove adoptOrderId to buy a new order with the next `pulumi up`."
              : "Run `pulumi up` again to buy again: the retry uses an idempotency key derived from this failed order, " +
                "so it cannot buy twice."),
        );
      }
      const last = error instanceof OrderWaitTimeoutError && error.lastSeen ? error.lastSeen : order;
      const why = error instanceof Error ? error.message : String(error);
      const properties = { ...toOutputs(inputs, last, purchaseKey), __provider: inputs.__provider };
      const message =
        `${why} Order ${order.id} is recorded in the state with status "${last.status}"; ` +
        "run `pulumi up` again to resume waiting (nothing is bought again), or `pulumi refresh` to see its state.";
      // The engine prints the reasons of a partial create, not the message: both carry the whole text.
      throw new PartialOrderError(message, order.id, properties, [message]);
    }
  };

  /** The order, or "gone" when its absence is certain; rejects when a 404 cannot be confirmed. */
  const readOrder = async (client: ProxyApiClient, id: string): Promise<Order | "gone"> => {
    try {
      return (await client.getOrder(id)).order;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return confirmOrderGone(client, id, error, options.absence);
    }
  };

  /** Tracks an order that exists instead of buying one: the stand-in for `pulumi import`. */
  const adopt = async (client: ProxyApiClient, inputs: OrderInputs & { __provider?: unknown }, id: string) => {
    const order = await readOrder(client, id);
    if (order === "gone") {
      throw new Error(`adoptOrderId: order ${id} does not exist for this API key. Check the id (\`pulumi stack output\` of the old stack, or the provider's dashboard); nothing was bought.`);
    }
    if (order.planId !== inputs.planId) {
      throw new Error(
        `adoptOrderId: order ${id} is for plan "${order.planId}", but planId is "${inputs.planId}". ` +
          `Set planId to "${order.planId}" to adopt it; nothing was bought.`,
      );
    }
    if (FAILED_STATES.includes(order.status)) {
      throw new Error(
        `adoptOrderId: order ${id} ended "${order.status}" and has no usable proxies. Remove adoptOrderId to buy a new order; nothing was bought.`,
      );
    }
    log.info(`proxy: adopting order ${id} (${order.status}); nothing is bought`);
    const ready = inputs.waitForReady && !TARGET_STATES.includes(order.status);
    return { id: order.id, outs: ready ? await waitOrRecord(client, inputs, order, null) : toOutputs(inputs, order, null) };
  };

  return {
    /** Receives the stack's configuration once per provider process. */
    async configure(req: { config: { get(key: string): string | undefined } }): Promise<void> {
      lookup = (key) => req.config.get(key);
    },

    /** Validates inputs and applies defaults; unknown values (preview) pass. */
    async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
      const failures = checkInputs(news);
      if (failures.length === 0) {
        // Fail a preview that could never run: missing or unsafe configuration.
        settings();
      }
      const inputs = {
        ...news,
        waitForReady: news.waitForReady ?? INPUT_DEFAULTS.waitForReady,
        readyTimeout: news.readyTimeout ?? INPUT_DEFAULTS.readyTimeout,
      };
      return { inputs, failures };
    },

    /**
     * A new plan replaces the order, as does a spent one (failed, cancelled, expired) or a different order to adopt.
     * A replacement that buys says so in the preview: the old order cannot be cancelled and stays billed.
     */
    async diff(_id: string, olds: OrderOutputs, news: OrderInputs) {
      const replaces: string[] = [];
      if (news.planId !== olds.planId) replaces.push("planId");
      if (FAILED_STATES.includes(olds.status)) replaces.push("status");
      const adopts = typeof news.adoptOrderId === "string" && news.adoptOrderId !== olds.orderId;
      if (adopts) replaces.push("adoptOrderId");
      const changed =
        (["waitForReady", "readyTimeout", "idempotencyKey"] as const).some((key) => news[key] !== olds[key]) ||
        (news.adoptOrderId ?? null) !== (olds.adoptOrderId ?? null);
      const resumes = PENDING_STATES.includes(olds.status) && news.waitForReady !== false;
      if (replaces.length > 0 && !adopts) {
        log.warn(
          `proxy: replacing order ${olds.orderId} (plan ${olds.planId}, ${olds.status}) buys a new order for plan ` +
            `${news.planId === UNKNOWN ? "(known after apply)" : news.planId}. ${olds.orderId} is not cancelled: ` +
            "the API has no cancel endpoint, so it stays with the account until it expires.",
        );
      }
      return {
        changes: replaces.length > 0 || changed || resumes,
        replaces,
        deleteBeforeReplace: false,
      };
    },

    /** Buys the plan (once, by idempotency key), or adopts an existing order, and waits unless told not to. */
    async create(inputs: OrderInputs & { __provider?: unknown }) {
      return withClient(async (client) => {
        if (inputs.adoptOrderId) {
          return adopt(client, inputs, inputs.adoptOrderId);
        }
        let key = inputs.idempotencyKey;
        for (let repurchase = 0; ; repurchase++) {
          const { order, replayed, boughtBeforeThisCall } = await client.createOrder({ planId: inputs.planId, idempotencyKey: key });
          // Only an order bought before this create began may be bought again. A spent order this very call may have
          // bought (its answer lost, then replayed) goes on to the waiter, which reports it as failed, by id.
          const spentEarlier = boughtBeforeThisCall && FAILED_STATES.includes(order.status);
          if (!spentEarlier) {
            if (replayed) {
              log.info(`proxy: order ${order.id} was bought earlier with this key; carrying on with it (not bought again)`);
            }
            const outs = inputs.waitForReady ? await waitOrRecord(client, inputs, order, key) : toOutputs(inputs, order, key);
            return { id: order.id, outs };
          }
          if (repurchase >= MAX_REPURCHASES) {
            throw new Error(
              `Order ${order.id} for plan ${inputs.planId} ended "${order.status}", as did the ${repurchase} purchases before it. ` +
                "Not buying again automatically; check the plan with the provider's support.",
            );
          }
          log.warn(
            `proxy: order ${order.id} (bought by an earlier run with this key) ended "${order.status}"; buying again with a key derived from it`,
          );
          key = nextPurchaseKey(key, order.id);
        }
      });
    },

    /**
     * Refresh: the order as the API sees it now. It leaves the state only when its absence is certain (see
     * absence.ts); a 401 or 403 explains which configuration a refresh uses.
     */
    async read(id: string, props: OrderOutputs) {
      return withClient(async (client) => {
        try {
          const order = await readOrder(client, id);
          if (order === "gone") {
            log.warn(`proxy: order ${id} no longer exists (404 confirmed, and the API answers otherwise); it leaves the state`);
            return {};
          }
          return { id, props: toOutputs(props, order, props.purchaseKey ?? null), inputs: inputsOf(props) };
        } catch (error) {
          if (error instanceof AuthenticationError || error instanceof PermissionError) {
            throw error.withMessage(`${error.message.replace(/\s*\(request id [^)]*\)$/, "")} ${STORED_CONFIG_ADVICE}${error.requestId ? ` (request id ${error.requestId})` : ""}`);
          }
          throw error;
        }
      });
    },

    /** Changes no purchase: resumes waiting for an order recorded before it was ready, else records the new inputs. */
    async update(id: string, olds: OrderOutputs, news: OrderInputs & { __provider?: unknown }) {
      if (PENDING_STATES.includes(olds.status) && news.waitForReady) {
        return withClient(async (client) => {
          log.info(`proxy: resuming the wait for order ${id} (recorded as ${olds.status}); nothing is bought`);
          const order = await readOrder(client, id);
          if (order === "gone") {
            throw new Error(
              `Order ${id} no longer exists (404 confirmed, and the API answers otherwise). It is kept in the state ` +
                "until `pulumi refresh` removes it; nothing was bought.",
            );
          }
          return { outs: await waitOrRecord(client, news, order, olds.purchaseKey ?? null) };
        });
      }
      return { outs: { ...olds, ...inputsOf(news) } };
    },

    /** The API cannot cancel an order: this only stops tracking it. */
    async delete(id: string, props: OrderOutputs) {
      if (FAILED_STATES.includes(props.status)) {
        log.info(`proxy: order ${id} (plan ${props.planId}, ${props.status}) is no longer tracked`);
        return;
      }
      log.warn(
        `proxy: order ${id} (plan ${props.planId}) is no longer tracked by Pulumi, but the purchase stays active: ` +
          "the API has no cancel endpoint. Contact the provider to cancel or refund it.",
      );
    },
  };
}

/** The provider object's type. */
export type OrderProvider = ReturnType<typeof createOrderProvider>;

/** Checks every input; returns one failure per bad property, naming what is allowed. */
export function checkInputs(news: Record<string, unknown>): CheckFailure[] {
  const failures: CheckFailure[] = [];
  const known = (value: unknown) => value !== UNKNOWN;
  const { planId, waitForReady, readyTimeout, idempotencyKey, adoptOrderId } = news;
  if (known(planId)) {
    if (typeof planId !== "string" || planId.trim() === "") {
      failures.push({ property: "planId", reason: "planId is required: the id of the plan to buy, such as \"dc-us-5\"." });
    } else if (planId.length > 128) {
      failures.push({ property: "planId", reason: `planId must be at most 128 characters (got ${planId.length}).` });
    }
  }
  if (waitForReady !== undefined && known(waitForReady) && typeof waitForReady !== "boolean") {
    failures.push({ property: "waitForReady", reason: "waitForReady must be true or false." });
  }
  if (readyTimeout !== undefined && known(readyTimeout)) {
    const ms = typeof readyTimeout === "string" ? parseDuration(readyTimeout) : undefined;
    if (ms === undefined || ms <= 0 || ms > MAX_READY_TIMEOUT_MS) {
      failures.push({
        property: "readyTimeout",
        reason: `readyTimeout must be a duration such as "20m", "90s" or "1h30m", from 1s to 24h (got ${JSON.stringify(readyTimeout)}).`,
      });
    }
  }
  if (known(idempotencyKey) && (typeof idempotencyKey !== "string" || !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey))) {
    failures.push({
      property: "idempotencyKey",
      reason: "idempotencyKey must be 1 to 255 visible ASCII characters (no spaces).",
    });
  }
  if (adoptOrderId !== undefined && adoptOrderId !== null && known(adoptOrderId) && (typeof adoptOrderId !== "string" || adoptOrderId.trim() === "" || adoptOrderId.length > 255)) {
    failures.push({
      property: "adoptOrderId",
      reason: "adoptOrderId must be the id of an existing order, such as \"ord_...\" (the orderId output of the stack that bought it).",
    });
  }
  return failures;
}

/** Pulumi's log, loaded lazily: it is only there when the provider runs under the Pulumi engine. */
function pulumiLog(): ProviderLog {
  const pulumi = () => require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  return {
    info: (message) => void pulumi().log.info(message),
    warn: (message) => void pulumi().log.warn(message),
  };
}
