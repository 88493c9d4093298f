/**
 * The ProxyOrder provider methods, as the Pulumi engine calls them inside the provider process.
 *
 * The API has no cancel endpoint, so a purchase is never undone: create buys (once, by idempotency key) or adopts,
 * update only resumes waiting, delete only stops tracking. Every order that was made ends up in the state, in the
 * outputs or in an error message, and leaves the state only when its absence is certain (absence.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import type { ProxyApiClient } from "../client/client";
import { ProxyError } from "../client/errors";
import { isPendingState, isSpentState, isTargetState } from "../contract/states";
import { purchaseKey, type PurchaseIdentity } from "./idempotency";
import { checkInputs, INPUT_DEFAULTS, withInputDefaults } from "./inputs";
import { refreshLister, unchangedInList } from "./listing";
import { inputsOf, storedOrder, toOutputs, type OrderInputs, type OrderOutputs } from "./order-state";
import { createProviderCore, type ConfigureArgs, type OperationOptions, type ProviderOptions } from "./provider-core";
import type { PurchaseOutcome } from "./purchase";
import { PartialOrderError, partialProperties, UNKNOWN, type WithProvider } from "./pulumi-host";
import { assessExpiry, expiryMessage, planSuccessor, replacesOrder, takePlannedSuccessor } from "./renewal";

export type { ProviderLog } from "./rate-limit-report";
export type { ConfigureArgs, OperationOptions } from "./provider-core";

/** What the ProxyOrder provider methods depend on; tests replace parts of it. */
export type OrderProviderOptions = ProviderOptions;

/** The resource an import is for: what the derived idempotency key is made of, but the plan. */
export type ResourceIdentity = Omit<PurchaseIdentity, "planId">;

/** Inputs as `check` receives them: anything, until it has validated them. */
type UncheckedInputs = Partial<Record<keyof OrderInputs, unknown>>;

/** Creates the provider object whose methods the serialized ProxyOrder provider calls. */
export function createOrderProvider(options: OrderProviderOptions = {}) {
  const core = createProviderCore(options);
  const { log, now, client, flow, deadlineOf } = core;

  /** The create's or update's result for an outcome: outputs, or the error that says what happened and what is kept. */
  const settle = (inputs: WithProvider<OrderInputs>, outcome: PurchaseOutcome): { id: string; outs: OrderOutputs } => {
    const { order, purchaseKey: key } = outcome;
    if (outcome.kind === "done") return { id: order.id, outs: toOutputs(inputs, order, key) };
    if (outcome.kind === "failed") {
      throw new ProxyError(
        `${outcome.error.message} Nothing usable was provisioned and it is not kept in the state. ` +
          (inputs.adoptOrderId
            ? "Remove adoptOrderId to buy a new order with the next `pulumi up`."
            : "Run `pulumi up` again to buy again: the retry uses an idempotency key derived from this failed order, " +
              "so it cannot buy twice."),
        "order_failed",
        { cause: outcome.error },
      );
    }
    const message =
      `${outcome.reason}. Order ${order.id} is recorded in the state with status "${order.status}"; ` +
      "run `pulumi up` again to resume waiting (nothing is bought again), or `pulumi refresh` to see its state.";
    throw new PartialOrderError(message, order.id, partialProperties(toOutputs(inputs, order, key), inputs));
  };

  /** Buys the plan, or carries on with the order an earlier run bought with the same key. */
  const buy = async (api: ProxyApiClient, inputs: WithProvider<OrderInputs>, operation: OperationOptions) => {
    // A renewal or a replacement of a spent order buys with the key diff derived from the order it follows.
    const key = takePlannedSuccessor(inputs.idempotencyKey) ?? inputs.idempotencyKey;
    const outcome = await flow.purchase(api, {
      planId: inputs.planId,
      key,
      renewBefore: inputs.renewBefore,
      waitForReady: inputs.waitForReady,
      deadline: deadlineOf(inputs, operation),
      signal: operation.signal,
    });
    return settle(inputs, outcome);
  };

  /** Tracks an order that exists instead of buying one: the stand-in for `pulumi import`. */
  const adopt = async (api: ProxyApiClient, inputs: WithProvider<OrderInputs>, id: string, operation: OperationOptions) => {
    const order = await flow.readOrder(api, id);
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
    const request = { waitForReady: inputs.waitForReady, deadline: deadlineOf(inputs, operation), signal: operation.signal };
    return settle(inputs, await flow.adopt(api, order, request));
  };

  const provider = {
    /** The client for the configured settings, for the functions of a provider plugin. */
    client,

    /** Receives the stack's configuration once per provider process. */
    async configure(req: ConfigureArgs) {
      core.configure(req);
    },

    /** Validates inputs and applies defaults; unknown values (preview) pass. */
    async check(_olds: UncheckedInputs, news: UncheckedInputs) {
      const failures = [...checkInputs(news), ...core.configFailures()];
      const inputs = withInputDefaults(news) as WithProvider<OrderInputs>;
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
      return core.explainStoredConfig(async () => {
        const api = client();
        // An active order that the account's list shows with the proxies the state holds needs no read (listing.ts).
        const listed = isTargetState(props.status) ? await refreshLister(api).lookup(id) : undefined;
        const unchanged = unchangedInList(listed, props.proxies ?? [], props.credentials ?? [], now());
        const order = unchanged ? storedOrder(props) : await flow.readOrder(api, id);
        if (order === "gone") {
          log.warn(`proxy: order ${id} no longer exists (404 confirmed, and the API answers otherwise); it leaves the state`);
          return {};
        }
        const outs: OrderOutputs = { ...toOutputs(props, order, props.purchaseKey ?? null), ...(unchanged && props.expiresAt !== undefined ? { expiresAt: props.expiresAt } : {}) };
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
      const order = await flow.readOrder(client(), id);
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
    async update(id: string, olds: OrderOutputs, news: WithProvider<OrderInputs>, operation: OperationOptions = {}): Promise<{ outs: OrderOutputs }> {
      if (!(isPendingState(olds.status) && news.waitForReady)) {
        // Optional inputs the program no longer sets leave the outputs too.
        const { adoptOrderId: _adopted, renewBefore: _renewBefore, ...order } = olds;
        return { outs: { ...order, ...inputsOf(news) } };
      }
      const api = client();
      log.info(`proxy: resuming the wait for order ${id} (recorded as ${olds.status}); nothing is bought`);
      const order = await flow.readOrder(api, id);
      if (order === "gone") {
        throw new ProxyError(
          `Order ${id} no longer exists (404 confirmed, and the API answers otherwise). It is kept in the state ` +
            "until `pulumi refresh` removes it; nothing was bought.",
          "order_gone",
        );
      }
      const request = { deadline: deadlineOf(news, operation), signal: operation.signal };
      return { outs: settle(news, await flow.resume(api, order, olds.purchaseKey ?? null, request)).outs };
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
