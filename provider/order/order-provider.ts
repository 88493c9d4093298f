/**
 * The ProxyOrder provider methods, as the Pulumi engine calls them inside the provider process: each carries out a
 * decision made elsewhere (order-plan.ts for diffs, settle.ts for outcomes, api/purchase.ts for buying) and says what it
 * did (messages.ts).
 *
 * The API has no cancel endpoint, so a purchase is never undone: create buys (once, by idempotency key) or adopts,
 * update only resumes waiting, delete only stops tracking. Every order that was made ends up in the state, in the
 * outputs or in an error message, and leaves the state only when its absence is certain (absence.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import { type ProxyApiClient, ProxyError } from "../../client";
import type { Account } from "../api/account";
import { isPendingState, isSpentState, isTargetState, type Order } from "../../contract";
import { PROXY_ORDER } from "../schema/definitions";
import { purchaseKey, type ResourceIdentity } from "../state/idempotency";
import { INPUT_DEFAULTS } from "../schema/inputs";
import { unchangedInList } from "../api/listing";
import {
  adoptionGone,
  adoptionRefusal,
  goneWhileResuming,
  importNotFound,
  importPlanUnknown,
  keptAfterFailure,
  livesElsewhere,
  orderGone,
  originNotRecorded,
  originUnrecorded,
  untracked,
  untrackedButActive,
} from "../shared/messages";
import { foundAt, originOf, otherApi, unrecorded, witness, type OrderOrigin } from "../state/origin";
import { planOrderChange } from "./order-plan";
import { inputsOf, toOutputs, withInputs, type OrderInputs, type OrderOutputs } from "../state/order-state";
import { ProviderCore, type ConfigureArgs, type OperationOptions, type ProviderOptions } from "../core/provider-core";
import { engineValue, PartialOrderError, partialProperties, UNKNOWN, type WithProvider } from "../shared/pulumi-host";
import { checkResource, type CheckLimits } from "../core/health-check";
import { assessExpiry, expiryMessage } from "../state/renewal";
import { settleOrder } from "./settle";
import type { PurchaseOutcome } from "../api/purchase";

export type { ProviderLog } from "../api/rate-limit-report";
export type { ConfigureArgs, OperationOptions } from "../core/provider-core";
export type { ResourceIdentity } from "../state/idempotency";

/** What the ProxyOrder provider methods depend on; tests replace parts of it. */
export type OrderProviderOptions = ProviderOptions;

/** Inputs as `check` receives them: anything, until it has validated them. */
type UncheckedInputs = Partial<Record<keyof OrderInputs, unknown>>;

type Engine = pulumi.dynamic.ResourceProvider<WithProvider<OrderInputs>, OrderOutputs>;
// The SDK types the `inputs` that `read` returns (read by the engine since 3.216) as Outputs; they are the inputs, so
// that one member is checked with the honest type.
type Read = (id: string, props?: OrderOutputs) => Promise<Omit<pulumi.dynamic.ReadResult<OrderOutputs>, "inputs"> & { inputs?: OrderInputs }>;

/** The provider object whose methods the stored ProxyOrder provider (and the plugin) call. */
export class OrderProvider implements Omit<Engine, "read"> {
  private readonly core: ProviderCore;

  constructor(options: OrderProviderOptions = {}) {
    this.core = new ProviderCore(options);
  }

  /** The client for the configured settings, for the functions of a provider plugin. */
  client(): ProxyApiClient {
    return this.core.account().api;
  }

  /** Receives the stack's configuration once per provider process. */
  async configure(req: ConfigureArgs): Promise<void> {
    this.core.configure(req);
  }

  /** Validates inputs and applies defaults; unknown values (preview) pass. */
  async check(_olds: UncheckedInputs, news: UncheckedInputs) {
    return this.core.check<WithProvider<OrderInputs>>(PROXY_ORDER, news);
  }

  /** What changes, and whether it replaces the order; a replacement that follows the stored order plans its key. */
  async diff(_id: string, olds: OrderOutputs, news: OrderInputs) {
    const account = this.core.accountIfConfigured();
    const api = account?.api;
    const elsewhere = api && otherApi(olds, api);
    const change = planOrderChange(olds, news, this.core.clock.now(), Boolean(elsewhere));
    for (const line of change.warnings) this.core.log.warn(line);
    if (api && elsewhere && change.replaces.length === 0) this.core.log.warn(livesElsewhere(describeOrder(olds), elsewhere, api.baseUrl, "preview"));
    // An order an earlier release recorded without its API is not updated for that alone: an upgrade previews clean,
    // and a refresh (or an update the inputs ask for anyway) records where it lives.
    if (api !== undefined && unrecorded(olds) && change.replaces.length === 0) this.core.log.info(originUnrecorded(olds.orderId, change.changes));
    // The successor of the same plan follows this order: its key is derived from it, so the create buys once.
    if (change.follows && news.idempotencyKey !== UNKNOWN) account?.planSuccessor(news.idempotencyKey, olds);
    // `diffs` names every changed input for engines that show them (the plugin); the dynamic host ignores it.
    return { changes: change.changes, replaces: change.replaces, diffs: change.diffs, deleteBeforeReplace: false };
  }

  /** Buys the plan (once, by idempotency key), or adopts an existing order, and waits unless told not to. */
  async create(inputs: WithProvider<OrderInputs>, operation: OperationOptions = {}) {
    const account = this.core.account();
    const limits = this.core.checkLimits(inputs, operation);
    const { outcome, origin } = inputs.adoptOrderId
      ? await this.adopt(account, inputs, inputs.adoptOrderId, operation)
      : await this.buy(account, inputs, operation);
    // The order exists from here on: whatever fails now, the engine records it (a partial create).
    try {
      const created = settleOrder(inputs, outcome, origin);
      this.warnRenewalLoop(created.outs);
      return engineValue({ id: created.id, outs: await this.withHealth(created.outs, inputs, true, limits) });
    } catch (error) {
      if (error instanceof PartialOrderError || outcome.kind === "failed") throw error;
      const { order, purchaseKey: key } = outcome;
      const reason = error instanceof Error ? error.message : String(error);
      throw new PartialOrderError(keptAfterFailure(`Order ${order.id} (plan ${inputs.planId})`, reason), order.id, partialProperties(keptOutputs(inputs, order, key, origin), inputs));
    }
  }

  /**
   * Refresh: the order as the API sees it now. It leaves the state only when its absence is certain (absence.ts);
   * a 401 or 403 explains which configuration a refresh uses. An active order that the account's list shows with the
   * proxies the state holds needs no read by id (listing.ts).
   */
  async read(id: string, props?: OrderOutputs): ReturnType<Read> {
    if (!props) throw new ProxyError(`Order ${id} has no stored properties to refresh.`, "no_properties");
    const { log, clock } = this.core;
    return this.core.explainStoredConfig(async () => {
      const account = this.core.account();
      const { api } = account;
      const elsewhere = otherApi(props, api);
      if (elsewhere) {
        log.warn(livesElsewhere(describeOrder(props), elsewhere, api.baseUrl, "refresh"));
        return engineValue({ id, props, inputs: inputsOf(props) });
      }
      const listed = isTargetState(props.status) ? await account.refreshes.lookup(id) : undefined;
      const unchanged = unchangedInList(listed, props.proxies ?? [], props.credentials ?? [], clock.now());
      if (unchanged) witness(account, props);
      const order = unchanged ? "unchanged" : await this.core.flow.readOrder(account, id, props);
      if (order === "gone") {
        log.warn(orderGone(id, "the state"));
        return {};
      }
      // An order that records no API (an earlier release) was just found here: it lives here.
      const origin = foundAt(props, api);
      const read: OrderOutputs =
        order === "unchanged" ? { ...props, ...origin } : { ...toOutputs(props, order, props.purchaseKey ?? null, origin), health: props.health ?? null };
      const outs = await this.withHealth(read, props, false);
      const expiry = assessExpiry(outs, clock.now());
      const said = expiry.kind === "unknown" ? undefined : expiryMessage(id, outs.planId, expiry, outs.renewBefore);
      if (said) log.warn(said);
      // `inputs` lets the engine diff against what the program declares, so a refresh leaves no phantom diff.
      return engineValue({ id, props: outs, inputs: inputsOf(props) });
    });
  }

  /**
   * `pulumi import` (provider plugin): the order by id, with the inputs a program declaring it would have, so the
   * next preview shows no change. The idempotency key is the one the resource would derive; the key the order was
   * bought with is not known.
   */
  async importOrder(id: string, resource: ResourceIdentity) {
    const account = this.core.account();
    const order = await this.core.flow.readOrder(account, id);
    if (order === "gone") throw new ProxyError(importNotFound([id], false), "import_not_found");
    if (order.planId === undefined) throw new ProxyError(importPlanUnknown([id], false), "import_plan_unknown");
    const inputs: OrderInputs = {
      planId: order.planId,
      waitForReady: INPUT_DEFAULTS.waitForReady,
      readyTimeout: INPUT_DEFAULTS.readyTimeout,
      idempotencyKey: purchaseKey({ ...resource, planId: order.planId }),
    };
    return engineValue({ id, props: toOutputs(inputs, order, null, originOf(account.api)), inputs });
  }

  /** Changes no purchase: resumes waiting for an order recorded before it was ready, else records the new inputs. */
  async update(id: string, olds: OrderOutputs, news: WithProvider<OrderInputs>, operation: OperationOptions = {}): Promise<{ outs: OrderOutputs }> {
    const limits = this.core.checkLimits(news, operation);
    return engineValue({ outs: await this.withHealth(await this.updated(id, olds, news, operation), news, true, limits) });
  }

  private async updated(id: string, olds: OrderOutputs, news: WithProvider<OrderInputs>, operation: OperationOptions): Promise<OrderOutputs> {
    if (!(isPendingState(olds.status) && news.waitForReady)) {
      return unrecorded(olds) ? await this.recordOrigin(id, withInputs(olds, news)) : withInputs(olds, news);
    }
    const account = this.core.account();
    const { api } = account;
    const elsewhere = otherApi(olds, api);
    if (elsewhere) {
      this.core.log.warn(livesElsewhere(describeOrder(olds), elsewhere, api.baseUrl, "update"));
      return withInputs(olds, news);
    }
    this.core.log.info(`proxy: resuming the wait for order ${id} (recorded as ${olds.status}); nothing is bought`);
    const order = await this.core.flow.readOrder(account, id, olds);
    if (order === "gone") throw new ProxyError(goneWhileResuming(id), "order_gone");
    const request = { deadline: this.core.deadlineOf(news, operation), signal: operation.signal };
    return settleOrder(news, await this.core.flow.resume(account, order, olds.purchaseKey ?? null, request), foundAt(olds, api)).outs;
  }

  /**
   * With `healthCheck`, the proxies of an active order checked through themselves and recorded as `health`; below
   * `minHealthy`, when `gate` (create and update), a partial error that keeps the order in the state (core/health-check.ts).
   * Without it, no `health`.
   */
  private async withHealth(outs: OrderOutputs, inputs: WithProvider<OrderInputs>, gate: boolean, limits?: CheckLimits): Promise<OrderOutputs> {
    if (!inputs.healthCheck) return { ...outs, health: null };
    if (outs.status !== "active" || (outs.proxies ?? []).length === 0) return outs;
    const { health, shortfall } = await checkResource(this.core.log, describeOrder(outs), outs, inputs.healthCheck, outs.orderId, limits);
    const checked = { ...outs, health };
    if (gate && shortfall) throw new PartialOrderError(shortfall, outs.orderId, partialProperties(checked, inputs));
    return checked;
  }

  /**
   * A `renewBefore` as long as the order's whole lifetime, told by the up that bought it, as soon as that lifetime is
   * known (the API has no plan catalogue to tell it before): such a window would make every renewal due at once.
   */
  private warnRenewalLoop(outs: OrderOutputs): void {
    const expiry = assessExpiry(outs, this.core.clock.now());
    const said = expiry.kind === "refused" ? expiryMessage(outs.orderId, outs.planId, expiry, outs.renewBefore) : undefined;
    if (said) this.core.log.warn(said);
  }

  /**
   * Records where an order of an earlier release lives, once a read at the configured API with the configured key
   * finds it (origin.ts); one that is not found there stays as it was, with a line saying so: nothing is dropped here.
   */
  private async recordOrigin(id: string, outs: OrderOutputs): Promise<OrderOutputs> {
    const account = this.core.account();
    try {
      const order = await this.core.flow.readOrder(account, id, outs);
      if (order !== "gone") return { ...outs, ...foundAt(outs, account.api) };
    } catch (error) {
      if (!(error instanceof ProxyError)) throw error;
    }
    this.core.log.warn(originNotRecorded(id, account.api.baseUrl));
    return outs;
  }

  /** The API cannot cancel an order: this only stops tracking it. */
  async delete(id: string, props: OrderOutputs): Promise<void> {
    const at = props.apiBaseUrl ? ` at ${props.apiBaseUrl}` : "";
    const what = `order ${id}${at} (plan ${props.planId}${isSpentState(props.status) ? `, ${props.status}` : ""})`;
    if (isSpentState(props.status)) this.core.log.info(untracked(what));
    else this.core.log.warn(untrackedButActive(what, undefined));
  }

  /** Buys the plan, or carries on with the order an earlier run bought with the same key. */
  private async buy(account: Account, inputs: WithProvider<OrderInputs>, operation: OperationOptions): Promise<Settling> {
    // A renewal or a replacement of a spent order buys with the key diff derived from the order it follows.
    const key = account.takePlannedSuccessor(inputs.idempotencyKey) ?? inputs.idempotencyKey;
    const outcome = await this.core.flow.purchase(account, {
      planId: inputs.planId,
      key,
      renewBefore: inputs.renewBefore,
      waitForReady: inputs.waitForReady,
      deadline: this.core.deadlineOf(inputs, operation),
      signal: operation.signal,
    });
    return { outcome, origin: originOf(account.api) };
  }

  /** Tracks an order that exists instead of buying one: the stand-in for `pulumi import`. */
  private async adopt(account: Account, inputs: WithProvider<OrderInputs>, id: string, operation: OperationOptions): Promise<Settling> {
    const order = await this.core.flow.readOrder(account, id);
    if (order === "gone") throw new ProxyError(adoptionGone(id), "adopt_not_found");
    const refusal = adoptionRefusal(id, order, inputs.planId);
    if (refusal) throw new ProxyError(refusal.message, refusal.code);
    this.core.log.info(`proxy: adopting order ${id} (${order.status}); nothing is bought`);
    const request = { waitForReady: inputs.waitForReady, deadline: this.core.deadlineOf(inputs, operation), signal: operation.signal };
    return { outcome: await this.core.flow.adopt(account, order, request), origin: originOf(account.api) };
  }
}

/** What a purchase or an adoption came to, and where its order lives: what create settles. */
interface Settling {
  outcome: PurchaseOutcome;
  origin: OrderOrigin;
}

/**
 * What a partial create records of an order whose create failed after it existed: its outputs, or, should even those
 * fail to build, what the next `up` needs to carry on with it (its id, status and key, which update and refresh read).
 */
function keptOutputs(inputs: OrderInputs, order: Order, key: string | null, origin: OrderOrigin): Partial<OrderOutputs> {
  try {
    return toOutputs(inputs, order, key, origin);
  } catch {
    return { ...inputsOf(inputs), orderId: order.id, status: order.status, purchaseKey: key, ...origin };
  }
}

/** An order as messages name it. */
function describeOrder(outputs: Pick<OrderOutputs, "orderId" | "planId">): string {
  return `order ${outputs.orderId} (plan ${outputs.planId})`;
}

/** Creates the provider object whose methods the stored ProxyOrder provider calls. */
export function createOrderProvider(options: OrderProviderOptions = {}): OrderProvider {
  return new OrderProvider(options);
}
