/**
 * The ProxyFleet provider methods: one resource that owns N orders of a plan and works on them together, so a fleet
 * is bought in the time the API's rate limit allows instead of one engine slot per order.
 *
 * Every member goes through the purchase flow ProxyOrder uses (provider/purchase.ts), all at once: the process's
 * request budget sends purchases before polls. Changes touch only what must change (fleet-plan.ts): new slots buy,
 * a failed, cancelled, expired or due member is replaced alone, a lower `orders` stops tracking the highest slots, a
 * new plan replaces the fleet. Partial work is kept: a fleet with members that are not ready is recorded with what it
 * holds (a partial create or update), and the next `up` buys only what is missing.
 */
import { createHash } from "node:crypto";
import type * as pulumi from "@pulumi/pulumi";
import type { ProxyApiClient } from "../client/client";
import { ProxyError } from "../client/errors";
import { isSpentState, isTargetState } from "../contract/states";
import type { Order, ProxyRecord } from "../contract/types";
import { describePurchases, planFleet, type MemberAction } from "./fleet-plan";
import { FleetProgress } from "./fleet-progress";
import {
  fleetInputsOf,
  memberOf,
  proxiesByOrder,
  proxiesOf,
  toFleetOutputs,
  type FleetInputs,
  type FleetMember,
  type FleetOutputs,
  type OrderProxies,
} from "./fleet-state";
import { purchaseKey } from "./idempotency";
import { checkFleetInputs, INPUT_DEFAULTS, withInputDefaults } from "./inputs";
import { listForOrders, unchangedInList } from "./listing";
import type { ResourceIdentity } from "./order-provider";
import { createProviderCore, type ConfigureArgs, type OperationOptions, type ProviderOptions } from "./provider-core";
import type { PurchaseOutcome } from "./purchase";
import { PartialOrderError, partialProperties, UNKNOWN, type WithProvider } from "./pulumi-host";
import { orderExpiry } from "./renewal";
import type { WaitProgress } from "./wait";

/** Inputs as `check` receives them: anything, until it has validated them. */
type UncheckedInputs = Partial<Record<keyof FleetInputs, unknown>>;

/** Problems listed in a partial fleet's message before "and N more". */
const LISTED_PROBLEMS = 5;

/** The fleet's resource id: stable for its identity, so a re-run after a crash records the same resource. */
export function fleetId(idempotencyKey: string): string {
  return `fleet_${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 24)}`;
}

/** The order a stored member stands for, enough to wait for it. */
function orderOf(member: FleetMember, planId: string): Order {
  return { id: member.orderId, planId, status: member.status, createdAt: member.createdAt ?? undefined };
}

/** Creates the provider object whose methods the serialized ProxyFleet provider (and the plugin) call. */
export function createFleetProvider(options: ProviderOptions = {}) {
  const core = createProviderCore(options);
  const { log, now, client, flow, deadlineOf } = core;

  /** Carries out the plan for `inputs` on the stored fleet (none for a create); the new outputs, or a partial error. */
  const reconcile = async (id: string, api: ProxyApiClient, inputs: WithProvider<FleetInputs>, olds: FleetOutputs | undefined, operation: OperationOptions) => {
    const plan = planFleet(olds?.members ?? [], inputs, now());
    const known = olds ? proxiesByOrder(olds) : new Map<string, OrderProxies>();
    const bySlot = new Map((olds?.members ?? []).filter((m) => m.slot < inputs.orders).map((m) => [m.slot, m]));
    let retiring = (olds?.retiring ?? []).filter((m) => m.slot < inputs.orders);
    for (const member of [...plan.drops, ...(olds?.retiring ?? []).filter((m) => m.slot >= inputs.orders)]) {
      log.warn(
        `proxy: order ${member.orderId} (slot ${member.slot} of the fleet) is no longer tracked, but the purchase stays with ` +
          "the account until it expires: the API has no cancel endpoint.",
      );
    }
    const purchases = describePurchases(plan, inputs.planId);
    if (purchases) log.info(purchases);

    const deadline = deadlineOf(inputs, operation);
    // No line per member: the budget's summary speaks for the fleet under the rate limit, and `progress` for its waits.
    const progress = new FleetProgress(log, `the fleet's orders of plan ${inputs.planId}`, plan.actions.length);
    const run = async (action: MemberAction): Promise<{ action: MemberAction; outcome?: PurchaseOutcome; error?: unknown }> => {
      const slot = action.kind === "buy" ? action.slot : action.member.slot;
      const request = {
        waitForReady: inputs.waitForReady,
        deadline,
        signal: operation.signal,
        onHeld: () => undefined,
        onProgress: (p: WaitProgress) => progress.update(slot, p.orderId, p.status),
        onCarriedOn: () => progress.carriedOn(),
      };
      try {
        const outcome =
          action.kind === "buy"
            ? await flow.purchase(api, { ...request, planId: inputs.planId, key: action.key, renewBefore: inputs.renewBefore })
            : await flow.resume(api, orderOf(action.member, inputs.planId), action.member.purchaseKey, request);
        progress.update(slot, outcome.order.id, outcome.order.status);
        return { action, outcome };
      } catch (error) {
        return { action, error };
      }
    };
    const results = await Promise.all(plan.actions.map(run));
    progress.finish();

    const problems: string[] = [];
    for (const { action, outcome, error } of results) {
      const slot = action.kind === "buy" ? action.slot : action.member.slot;
      const old = bySlot.get(slot);
      if (!outcome) {
        // Nothing was bought for this slot: it keeps what it had.
        problems.push(`slot ${slot}: ${error instanceof Error ? error.message : String(error)}`);
        continue;
      }
      const { order, purchaseKey: key } = outcome;
      known.set(order.id, proxiesOf(order));
      const member = memberOf(slot, order, key, orderExpiry(order));
      if (outcome.kind === "failed") {
        problems.push(`slot ${slot}: ${outcome.error.message}`);
        // A failed successor leaves the order it would replace in place (the next up tries again, by a derived key);
        // a failed new member is recorded, so the next up replaces it alone.
        if (!old || action.kind === "resume") bySlot.set(slot, member);
        continue;
      }
      if (outcome.kind === "unfinished") problems.push(`slot ${slot}: ${outcome.reason}`);
      if (old && action.kind === "buy") {
        if (outcome.kind === "unfinished" && isTargetState(old.status)) {
          retiring.push(old);
        } else {
          log.info(`proxy: order ${old.orderId} (slot ${slot}) is replaced by ${order.id} and no longer tracked`);
        }
      }
      bySlot.set(slot, member);
    }
    // An order being renewed leaves once its successor is ready.
    retiring = retiring.filter((r) => {
      const successor = bySlot.get(r.slot);
      const done = successor !== undefined && successor.orderId !== r.orderId && isTargetState(successor.status);
      if (done) log.info(`proxy: order ${r.orderId} (slot ${r.slot}) is replaced by ${successor.orderId} and no longer tracked`);
      return !done;
    });

    const outs = toFleetOutputs(inputs, [...bySlot.values()], retiring, known);
    if (problems.length > 0) {
      const ready = outs.members.filter((m) => isTargetState(m.status)).length;
      const listed = problems.slice(0, LISTED_PROBLEMS).join("; ");
      const more = problems.length > LISTED_PROBLEMS ? `; and ${problems.length - LISTED_PROBLEMS} more` : "";
      const message =
        `${problems.length} of the fleet's ${inputs.orders} order(s) are not ready: ${listed}${more}. The fleet is recorded ` +
        `with what it holds (${outs.members.length} order(s), ${ready} active); run \`pulumi up\` again: it resumes the ` +
        "orders bought and buys only what is missing, each once.";
      throw new PartialOrderError(message, id, partialProperties(outs, inputs));
    }
    return outs;
  };

  /**
   * The members as the API sees them now; members whose absence is certain leave. An active member that the list
   * shows with the proxies the state holds is kept as it is; the others are read by id (listing.ts).
   */
  const refreshMembers = async (
    api: ProxyApiClient,
    members: FleetMember[],
    stored: Map<string, OrderProxies>,
    listed: Map<string, ProxyRecord[]>,
    known: Map<string, OrderProxies>,
  ) => {
    const unchanged = (member: FleetMember): OrderProxies | undefined => {
      const held = stored.get(member.orderId);
      const seen = listed.get(member.orderId);
      return isTargetState(member.status) && held && unchangedInList(seen, held.proxies, held.credentials, now()) ? held : undefined;
    };
    const outcomes = await Promise.all(
      members.map(async (member) => {
        const held = unchanged(member);
        return held ? { member, held } : { member, order: await flow.readOrder(api, member.orderId), held: undefined };
      }),
    );
    const kept: FleetMember[] = [];
    for (const outcome of outcomes) {
      const { member } = outcome;
      if (outcome.held) {
        known.set(member.orderId, outcome.held);
        kept.push(member);
        continue;
      }
      const { order } = outcome;
      if (order === "gone") {
        log.warn(`proxy: order ${member.orderId} (slot ${member.slot}) no longer exists (404 confirmed, and the API answers otherwise); it leaves the fleet`);
        continue;
      }
      known.set(order.id, proxiesOf(order));
      kept.push(memberOf(member.slot, order, member.purchaseKey, orderExpiry(order)));
    }
    return kept;
  };

  const provider = {
    /** Receives the stack's configuration once per provider process. */
    async configure(req: ConfigureArgs) {
      core.configure(req);
    },

    /** Validates inputs and applies defaults; unknown values (preview) pass. */
    async check(_olds: UncheckedInputs, news: UncheckedInputs) {
      const failures = [...checkFleetInputs(news), ...core.configFailures()];
      const inputs = withInputDefaults(news) as WithProvider<FleetInputs>;
      return { inputs, failures };
    },

    /**
     * A new plan replaces the fleet; anything else is an update that touches only the members that must change. The
     * preview says which members buy and why, and which are no longer tracked.
     */
    async diff(_id: string, olds: FleetOutputs, news: FleetInputs) {
      const updated = (["orders", "waitForReady", "readyTimeout", "idempotencyKey", "renewBefore"] as const).filter(
        (key) => (news[key] ?? null) !== (olds[key] ?? null),
      );
      if (news.planId !== olds.planId) {
        log.warn(
          `proxy: a new planId replaces the fleet: it buys ${typeof news.orders === "number" ? news.orders : "its"} new ` +
            `order(s) of plan ${news.planId === UNKNOWN ? "(known after apply)" : news.planId}. Its ${olds.members.length} ` +
            `order(s) of plan ${olds.planId} are not cancelled: they stay with the account until they expire.`,
        );
        return { changes: true, replaces: ["planId"], diffs: ["planId", ...updated], deleteBeforeReplace: false };
      }
      if ([news.orders, news.renewBefore, news.waitForReady, news.idempotencyKey].includes(UNKNOWN as never)) {
        return { changes: true, replaces: [], diffs: updated, deleteBeforeReplace: false };
      }
      const plan = planFleet(olds.members, news, now());
      const purchases = describePurchases(plan, news.planId);
      for (const line of [...plan.notices, ...(purchases ? [purchases] : [])]) log.warn(line);
      if (plan.drops.length > 0) {
        const named = plan.drops.map((m) => `${m.orderId} (slot ${m.slot})`).join(", ");
        log.warn(
          `proxy: orders goes from ${olds.orders} to ${news.orders}: the fleet stops tracking ${named}. They are not cancelled: ` +
            "they stay with the account until they expire (the API has no cancel endpoint).",
        );
      }
      const members = plan.actions.length > 0 || plan.drops.length > 0 || (olds.retiring ?? []).length > 0;
      const diffs = [...updated, ...(members ? ["members"] : [])];
      return { changes: diffs.length > 0, replaces: [], diffs, deleteBeforeReplace: false };
    },

    /** Buys every member (each once, by a key derived from the fleet and its slot) and waits for them together. */
    async create(inputs: WithProvider<FleetInputs>, operation: OperationOptions = {}) {
      const id = fleetId(inputs.idempotencyKey);
      return { id, outs: await reconcile(id, client(), inputs, undefined, operation) };
    },

    /** Buys what is missing or must be replaced, resumes what was not ready, stops tracking slots above `orders`. */
    async update(id: string, olds: FleetOutputs, news: WithProvider<FleetInputs>, operation: OperationOptions = {}) {
      return { outs: await reconcile(id, client(), news, olds, operation) };
    },

    /** Refresh: every member as the API sees it now; a member leaves only when its absence is certain. */
    async read(id: string, props?: FleetOutputs) {
      if (!props) throw new ProxyError(`Fleet ${id} has no stored properties to refresh.`, "no_properties");
      return core.explainStoredConfig(async () => {
        const api = client();
        const everyone = [...(props.members ?? []), ...(props.retiring ?? [])];
        const listing = await listForOrders(api, new Set(everyone.filter((m) => isTargetState(m.status)).map((m) => m.orderId)));
        const stored = proxiesByOrder(props);
        const listed = listing?.byOrder ?? new Map<string, ProxyRecord[]>();
        const known = new Map<string, OrderProxies>();
        const members = await refreshMembers(api, props.members ?? [], stored, listed, known);
        const retiring = await refreshMembers(api, props.retiring ?? [], stored, listed, known);
        const outs = toFleetOutputs(props, members, retiring, known);
        for (const line of planFleet(outs.members, props, now()).notices) log.warn(line);
        return { id, props: outs, inputs: fleetInputsOf(props) };
      });
    },

    /**
     * `pulumi import` (provider plugin): the orders by id (`ord_a,ord_b,...`, in slot order), with the inputs a program
     * declaring the fleet would have, so the next preview shows no change. Nothing is bought.
     */
    async importFleet(id: string, resource: ResourceIdentity) {
      const ids = id.split(",").map((s) => s.trim()).filter(Boolean);
      if (ids.length === 0) {
        throw new ProxyError('Import a fleet by its order ids, separated by commas: "ord_a,ord_b". Nothing was imported.', "import_invalid");
      }
      const api = client();
      const orders = await Promise.all(ids.map((orderId) => flow.readOrder(api, orderId)));
      const gone = ids.filter((_, i) => orders[i] === "gone");
      if (gone.length > 0) {
        throw new ProxyError(`Order(s) ${gone.join(", ")} do not exist for this API key: check the ids and the provider's apiKey. Nothing was imported.`, "import_not_found");
      }
      const found = orders as Order[];
      const plans = [...new Set(found.map((o) => o.planId))];
      if (plans.length > 1) {
        throw new ProxyError(`A fleet holds orders of one plan; these are of ${plans.join(", ")}. Import them as separate fleets. Nothing was imported.`, "import_plan_mismatch");
      }
      const planId = plans[0] ?? "";
      const inputs: FleetInputs = {
        planId,
        orders: found.length,
        waitForReady: INPUT_DEFAULTS.waitForReady,
        readyTimeout: INPUT_DEFAULTS.readyTimeout,
        idempotencyKey: purchaseKey({ ...resource, planId }),
      };
      const known = new Map(found.map((o) => [o.id, proxiesOf(o)]));
      const members = found.map((o, slot) => memberOf(slot, o, null, orderExpiry(o)));
      const spent = members.filter((m) => isSpentState(m.status));
      if (spent.length > 0) log.warn(`proxy: imported order(s) ${spent.map((m) => m.orderId).join(", ")} ended; the next \`pulumi up\` replaces them`);
      return { id, props: toFleetOutputs(inputs, members, [], known), inputs };
    },

    /** The API cannot cancel orders: this only stops tracking them. */
    async delete(id: string, props: FleetOutputs) {
      const live = [...(props.members ?? []), ...(props.retiring ?? [])].filter((m) => !isSpentState(m.status));
      if (live.length === 0) {
        log.info(`proxy: fleet ${id} (plan ${props.planId}) is no longer tracked`);
        return;
      }
      log.warn(
        `proxy: fleet ${id} (plan ${props.planId}) is no longer tracked by Pulumi, but its ${live.length} order(s) stay active: ` +
          "the API has no cancel endpoint. Contact the provider to cancel or refund them.",
      );
    },
  };
  // Checked against Pulumi's own interface (see order-provider.ts for why `read` is typed apart).
  type Engine = pulumi.dynamic.ResourceProvider<WithProvider<FleetInputs>, FleetOutputs>;
  type Read = (id: string, props?: FleetOutputs) => Promise<Omit<pulumi.dynamic.ReadResult<FleetOutputs>, "inputs"> & { inputs?: FleetInputs }>;
  return provider satisfies Omit<Engine, "read"> & { read: Read };
}

/** The fleet provider object's type. */
export type FleetProvider = ReturnType<typeof createFleetProvider>;
