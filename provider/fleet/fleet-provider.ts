/**
 * The ProxyFleet provider methods: one resource that owns N orders of a plan and works on them together, so a fleet
 * is bought in the time the API's rate limit allows instead of one engine slot per order.
 *
 * Every member goes through the purchase flow ProxyOrder uses (purchase.ts), all at once: the process's request
 * budget sends purchases before polls. Changes touch only what must change (fleet-plan.ts decides): new slots buy, a
 * failed, cancelled, expired or due member is replaced alone, a lower `orders` stops tracking the highest slots, a
 * new plan replaces the fleet. Partial work is kept (fleet/settle.ts): a fleet with members that are not ready is recorded
 * with what it holds (a partial create or update), and the next `up` buys only what is missing.
 */
import { traceStep, type SpanAttributes } from "../../tracing";
import type * as pulumi from "@pulumi/pulumi";
import type { Account } from "../api/account";
import { ProxyError } from "../../client";
import { isSpentState, isTargetState, type Order, type ProxyRecord } from "../../contract";
import { PROXY_FLEET } from "../schema/definitions";
import { describePurchases, planFleet, planFleetChange, type MemberAction } from "./fleet-plan";
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
} from "../state/fleet-state";
import { fleetId, purchaseKey, type ResourceIdentity } from "../state/idempotency";
import { INPUT_DEFAULTS } from "../schema/inputs";
import { listForOrders, unchangedInList } from "../api/listing";
import { importNotFound, importPlanUnknown, keptAfterFailure, livesElsewhere, memberDropped, orderGone, untracked, untrackedButActive } from "../shared/messages";
import { foundAt, originOf, otherApi, witness, type ApiIdentity } from "../state/origin";
import { ProviderCore, type ConfigureArgs, type OperationOptions, type ProviderOptions } from "../core/provider-core";
import { checkResource, type CheckLimits } from "../core/health-check";
import { ordersWithFailures } from "../schema/health-input";
import { engineValue, PartialOrderError, partialProperties, type WithProvider } from "../shared/pulumi-host";
import { partialFleet, settleFleet, type MemberResult } from "./settle";
import type { WaitProgress } from "../api/wait";

/** Inputs as `check` receives them: anything, until it has validated them. */
type UncheckedInputs = Partial<Record<keyof FleetInputs, unknown>>;

type Engine = pulumi.dynamic.ResourceProvider<WithProvider<FleetInputs>, FleetOutputs>;
// See order-provider.ts for why `read` is typed apart.
type Read = (id: string, props?: FleetOutputs) => Promise<Omit<pulumi.dynamic.ReadResult<FleetOutputs>, "inputs"> & { inputs?: FleetInputs }>;

/** The order a stored member stands for, enough to wait for it. */
function orderOf(member: FleetMember, planId: string): Order {
  return { id: member.orderId, planId, status: member.status, createdAt: member.createdAt ?? undefined };
}

/**
 * What a partial result records of a fleet whose step failed once its orders existed, should its outputs fail to
 * build: the stored members, each slot an action reached holding the order it came to, and no proxies (the next read
 * lists them).
 */
function keptFleet(inputs: FleetInputs, olds: FleetOutputs | undefined, results: MemberResult[]): FleetOutputs {
  const bySlot = new Map((olds?.members ?? []).map((m) => [m.slot, m]));
  for (const { action, outcome } of results) {
    const slot = action.kind === "buy" ? action.slot : action.member.slot;
    const { order, purchaseKey } = outcome ?? {};
    if (order) bySlot.set(slot, { slot, orderId: order.id, status: order.status, purchaseKey: purchaseKey ?? null, statusReason: null, createdAt: null, readyAt: null, expiresAt: null });
  }
  const members = [...bySlot.values()].sort((a, b) => a.slot - b.slot);
  return { ...fleetInputsOf(inputs), members, retiring: olds?.retiring ?? [], proxies: [], credentials: [], expiresAt: null, health: null };
}

/** The provider object whose methods the stored ProxyFleet provider (and the plugin) call. */
export class FleetProvider implements Omit<Engine, "read"> {
  private readonly core: ProviderCore;

  constructor(options: ProviderOptions = {}) {
    this.core = new ProviderCore(options);
  }

  /** Receives the stack's configuration once per provider process. */
  async configure(req: ConfigureArgs): Promise<void> {
    this.core.configure(req);
  }

  /** Validates inputs and applies defaults; unknown values (preview) pass. */
  async check(_olds: UncheckedInputs, news: UncheckedInputs) {
    return this.core.check<WithProvider<FleetInputs>>(PROXY_FLEET, news);
  }

  /** What changes (fleet-plan.ts): a new plan replaces the fleet, anything else updates only the members that must change. */
  async diff(id: string, olds: FleetOutputs, news: FleetInputs) {
    const api = this.core.accountIfConfigured()?.api;
    const elsewhere = api ? this.warnElsewhere(id, olds, api, "preview") : new Set<string>();
    const change = planFleetChange(olds, news, this.core.clock.now(), elsewhere);
    for (const line of change.warnings) this.core.log.warn(line);
    return { changes: change.changes, replaces: change.replaces, diffs: change.diffs, deleteBeforeReplace: false };
  }

  /** Buys every member (each once, by a key derived from the fleet and its slot) and waits for them together. */
  async create(inputs: WithProvider<FleetInputs>, operation: OperationOptions = {}) {
    const id = fleetId(inputs.idempotencyKey);
    return { id, outs: await this.reconcile(id, inputs, undefined, operation) };
  }

  /** Buys what is missing or must be replaced, resumes what was not ready, stops tracking slots above `orders`. */
  async update(id: string, olds: FleetOutputs, news: WithProvider<FleetInputs>, operation: OperationOptions = {}) {
    return { outs: await this.reconcile(id, news, olds, operation) };
  }

  /**
   * Refresh: every member as the API sees it now; a member leaves only when its absence is certain. The account's
   * list, read for the active members, spares the reads of those it shows unchanged (listing.ts).
   */
  async read(id: string, props?: FleetOutputs): ReturnType<Read> {
    if (!props) throw new ProxyError(`Fleet ${id} has no stored properties to refresh.`, "no_properties");
    return this.core.explainStoredConfig(async () => {
      const account = this.core.account();
      const elsewhere = this.warnElsewhere(id, props, account.api, "refresh");
      const everyone = [...(props.members ?? []), ...(props.retiring ?? [])].filter((m) => !elsewhere.has(m.orderId));
      const listing = await listForOrders(account.api, new Set(everyone.filter((m) => isTargetState(m.status)).map((m) => m.orderId)));
      const seen = { stored: proxiesByOrder(props), listed: listing?.byOrder ?? new Map<string, ProxyRecord[]>(), known: new Map<string, OrderProxies>(), elsewhere };
      const members = await this.refreshMembers(account, props.members ?? [], seen);
      const retiring = await this.refreshMembers(account, props.retiring ?? [], seen);
      const read = { ...toFleetOutputs(props, members, retiring, seen.known), health: props.health ?? null };
      for (const line of planFleet(read.members, props, this.core.clock.now(), elsewhere).notices) this.core.log.warn(line);
      const { outs } = await this.withHealth(id, read, props);
      return engineValue({ id, props: outs, inputs: fleetInputsOf(props) });
    });
  }

  /**
   * `pulumi import` (provider plugin): the orders by id (`ord_a,ord_b,...`, in slot order), with the inputs a program
   * declaring the fleet would have, so the next preview shows no change. Nothing is bought.
   */
  async importFleet(id: string, resource: ResourceIdentity) {
    const ids = id.split(",").map((s) => s.trim()).filter(Boolean);
    if (ids.length === 0) {
      throw new ProxyError('Import a fleet by its order ids, separated by commas: "ord_a,ord_b". Nothing was imported.', "import_invalid");
    }
    const account = this.core.account();
    const read = await Promise.all(ids.map((orderId) => this.core.flow.readOrder(account, orderId)));
    const found = read.filter((order): order is Order => order !== "gone");
    if (found.length < ids.length) throw new ProxyError(importNotFound(ids.filter((_, i) => read[i] === "gone"), true), "import_not_found");
    const unnamed = found.filter((o) => o.planId === undefined).map((o) => o.id);
    if (unnamed.length > 0) throw new ProxyError(importPlanUnknown(unnamed, true), "import_plan_unknown");
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
    const members = found.map((o, slot) => memberOf(slot, o, null, originOf(account.api)));
    const spent = members.filter((m) => isSpentState(m.status));
    if (spent.length > 0) this.core.log.warn(`proxy: imported order(s) ${spent.map((m) => m.orderId).join(", ")} ended; the next \`pulumi up\` replaces them`);
    return engineValue({ id, props: toFleetOutputs(inputs, members, [], new Map(found.map((o) => [o.id, proxiesOf(o)]))), inputs });
  }

  /** The API cannot cancel orders: this only stops tracking them. */
  async delete(id: string, props: FleetOutputs): Promise<void> {
    const live = [...(props.members ?? []), ...(props.retiring ?? [])].filter((m) => !isSpentState(m.status));
    const what = `fleet ${id} (plan ${props.planId})`;
    if (live.length === 0) this.core.log.info(untracked(what));
    else this.core.log.warn(untrackedButActive(what, live.length));
  }

  /** Carries out the plan for `inputs` on the stored fleet (none for a create); the new outputs, or a partial error. */
  private async reconcile(id: string, inputs: WithProvider<FleetInputs>, olds: FleetOutputs | undefined, operation: OperationOptions) {
    const { log } = this.core;
    const limits = this.core.checkLimits(inputs, operation);
    const { api } = this.core.account();
    const elsewhere = olds ? this.warnElsewhere(id, olds, api, "update") : new Set<string>();
    const plan = planFleet(olds?.members ?? [], inputs, this.core.clock.now(), elsewhere, ordersWithFailures(olds?.health));
    const inRange = (m: FleetMember) => m.slot < inputs.orders;
    for (const member of [...plan.drops, ...(olds?.retiring ?? []).filter((m) => !inRange(m))]) log.warn(memberDropped(member));
    const purchases = describePurchases(plan, inputs.planId);
    if (purchases) log.info(purchases);
    const results = await this.runActions(plan.actions, inputs, operation);
    // Orders were bought from here on: whatever fails now, the engine records the fleet with them (a partial result).
    let unchecked: FleetOutputs | undefined;
    try {
      const known = olds ? proxiesByOrder(olds) : new Map<string, OrderProxies>();
      const settled = settleFleet((olds?.members ?? []).filter(inRange), (olds?.retiring ?? []).filter(inRange), results, known, originOf(api));
      for (const line of settled.said) log.info(line);
      unchecked = toFleetOutputs(inputs, settled.members, settled.retiring, known);
      if (settled.problems.length > 0) throw partialFleet(id, settled.problems, inputs.orders, unchecked, inputs);
      const { outs, shortfall } = await this.withHealth(id, unchecked, inputs, limits);
      if (shortfall) throw new PartialOrderError(shortfall, id, partialProperties(outs, inputs));
      return engineValue(outs);
    } catch (error) {
      if (error instanceof PartialOrderError) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      const held = unchecked ?? keptFleet(inputs, olds, results);
      throw new PartialOrderError(keptAfterFailure(`Fleet ${id} (plan ${inputs.planId})`, reason), id, partialProperties(held, inputs));
    }
  }

  /**
   * With `healthCheck`, every proxy of the fleet's active members checked through itself and recorded as `health`, and
   * what falls short of `minHealthy` (core/health-check.ts); without it, no `health`. Orders being renewed (`retiring`) are on
   * their way out: they are not checked.
   */
  private async withHealth(id: string, outs: FleetOutputs, inputs: FleetInputs, limits?: CheckLimits): Promise<{ outs: FleetOutputs; shortfall?: string }> {
    if (!inputs.healthCheck) return { outs: { ...outs, health: null } };
    const active = new Set(outs.members.filter((m) => m.status === "active").map((m) => m.orderId));
    const proxies = outs.proxies.filter((p) => active.has(p.orderId));
    if (proxies.length === 0) return { outs };
    const credentials = outs.credentials.filter((c) => active.has(c.orderId));
    const { health, shortfall } = await checkResource(this.core.log, `fleet ${id} (plan ${inputs.planId})`, { proxies, credentials }, inputs.healthCheck, undefined, limits);
    return { outs: { ...outs, health }, ...(shortfall ? { shortfall } : {}) };
  }

  /** Runs every member's action at once under one deadline; a fleet reports its waits as one (fleet-progress.ts). */
  private async runActions(actions: MemberAction[], inputs: FleetInputs, operation: OperationOptions): Promise<MemberResult[]> {
    const account = this.core.account();
    const { flow } = this.core;
    // No line per member: the budget's summary speaks for the fleet under the rate limit, and `progress` for its waits.
    const progress = new FleetProgress(this.core.log, `the fleet's orders of plan ${inputs.planId}`, actions.length, this.core.clock);
    const deadline = this.core.deadlineOf(inputs, operation);
    const run = async (action: MemberAction): Promise<MemberResult> => {
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
            ? await flow.purchase(account, { ...request, planId: inputs.planId, key: action.key, renewBefore: inputs.renewBefore })
            : await flow.resume(account, orderOf(action.member, inputs.planId), action.member.purchaseKey, request);
        progress.update(slot, outcome.order.id, outcome.order.status);
        return { action, outcome };
      } catch (error) {
        return { action, error };
      }
    };
    // Each member's requests under a span of its own in a trace (when the engine asked for one).
    const traced = (action: MemberAction) =>
      traceStep(`member ${action.kind === "buy" ? action.slot : action.member.slot}`, memberAttributes(action, inputs.planId), () => run(action));
    const results = await Promise.all(actions.map(traced));
    progress.finish();
    return results;
  }

  /** The ids of the fleet's orders that live at another API than `api`'s (origin.ts), said in one line per API. */
  private warnElsewhere(id: string, fleet: Pick<FleetOutputs, "members" | "retiring" | "planId">, api: ApiIdentity, doing: "refresh" | "preview" | "update"): Set<string> {
    const byApi = new Map<string, string[]>();
    for (const member of [...(fleet.members ?? []), ...(fleet.retiring ?? [])]) {
      const other = otherApi(member, api);
      if (other) byApi.set(other, [...(byApi.get(other) ?? []), member.orderId]);
    }
    for (const [other, ids] of byApi) {
      this.core.log.warn(livesElsewhere(`fleet ${id} (plan ${fleet.planId}): ${ids.length} order(s), ${ids.slice(0, 3).join(", ")}${ids.length > 3 ? ", ...," : ""}`, other, api.baseUrl, doing));
    }
    return new Set([...byApi.values()].flat());
  }

  /**
   * The members as the API sees them now: kept as stored when the list shows them unchanged or they live at another
   * API, else read by id.
   */
  private async refreshMembers(
    account: Account,
    members: FleetMember[],
    seen: { stored: Map<string, OrderProxies>; listed: Map<string, ProxyRecord[]>; known: Map<string, OrderProxies>; elsewhere: ReadonlySet<string> },
  ): Promise<FleetMember[]> {
    const now = this.core.clock.now();
    const unchanged = (member: FleetMember): OrderProxies | undefined => {
      const held = seen.stored.get(member.orderId);
      const listed = seen.listed.get(member.orderId);
      return isTargetState(member.status) && held && unchangedInList(listed, held.proxies, held.credentials, now) ? held : undefined;
    };
    const refreshed = await Promise.all(
      members.map(async (member): Promise<FleetMember | undefined> => {
        const held = unchanged(member);
        if (held || seen.elsewhere.has(member.orderId)) {
          if (held) witness(account, member);
          const stored = seen.stored.get(member.orderId);
          if (stored) seen.known.set(member.orderId, stored);
          // A member an earlier release recorded without its API was just found here: it lives here.
          return held ? { ...member, ...foundAt(member, account.api) } : member;
        }
        const order = await this.core.flow.readOrder(account, member.orderId, member);
        if (order === "gone") {
          this.core.log.warn(orderGone(member.orderId, "the fleet", member.slot));
          return undefined;
        }
        seen.known.set(order.id, proxiesOf(order));
        return memberOf(member.slot, order, member.purchaseKey, foundAt(member, account.api));
      }),
    );
    return refreshed.filter((m): m is FleetMember => m !== undefined);
  }
}

/** Creates the provider object whose methods the stored ProxyFleet provider (and the plugin) call. */
export function createFleetProvider(options: ProviderOptions = {}): FleetProvider {
  return new FleetProvider(options);
}

/** What a member's span says it serves. */
function memberAttributes(action: MemberAction, planId: string): SpanAttributes {
  return action.kind === "buy"
    ? { "proxy.slot": action.slot, "proxy.action": "buy", "proxy.plan_id": planId }
    : { "proxy.slot": action.member.slot, "proxy.action": "resume", "proxy.order_id": action.member.orderId };
}
