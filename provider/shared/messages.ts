/**
 * What the provider tells users about their orders, in one place: lines for the engine's log and the text of the
 * errors the lifecycles raise. Each says what happened, what is kept, and what to do next. Tests and users match on
 * these words; change them with care.
 */
import { isSpentState } from "../../contract";

/** Why nothing the provider stops tracking is undone: every message that says so says it in these words. */
const NO_CANCEL_ENDPOINT = "the API has no cancel endpoint";

/** What the refresh of an order tells when its absence is certain (absence.ts). */
const GONE = "no longer exists (404 confirmed, and the API answers otherwise)";

/** A named plan, or what a preview shows for one not known yet. */
function planName(planId: string, unknown: boolean): string {
  return unknown ? "(known after apply)" : planId;
}

/** An order the resource stops tracking while it is still billed (replaced, dropped from a fleet, or renewed). */
export function notCancelled(orders: string, plural = false): string {
  return `${orders} ${plural ? "are" : "is"} not cancelled: ${NO_CANCEL_ENDPOINT}, so ${plural ? "they stay" : "it stays"} with the account until ${plural ? "they expire" : "it expires"}.`;
}

/** An order the resource stops tracking that is spent (failed, cancelled, expired): nothing of it is billed any more. */
function hasEnded(orders: string, plural = false): string {
  return `${orders} ${plural ? "have" : "has"} ended, so nothing of ${plural ? "them" : "it"} stays active.`;
}

/** Deleting a resource whose orders are still active. */
export function untrackedButActive(what: string, live: number | undefined): string {
  const stays = live === undefined ? "the purchase stays active" : `its ${live} order(s) stay active`;
  return (
    `proxy: ${what} is no longer tracked by Pulumi, but ${stays}: ${NO_CANCEL_ENDPOINT}. ` +
    `Contact the provider to cancel or refund ${live === undefined ? "it" : "them"}.`
  );
}

/** Deleting a resource with nothing left to bill. */
export function untracked(what: string): string {
  return `proxy: ${what} is no longer tracked`;
}

/** A ProxyOrder replacement that buys (a new plan, or a spent order). */
export function replacingOrder(old: { orderId: string; planId: string; status: string }, planId: string, planUnknown: boolean): string {
  // Only an order that can still be active stays billed; a spent one (failed, cancelled, expired) has already ended.
  const kept = isSpentState(old.status) ? hasEnded(old.orderId) : notCancelled(old.orderId);
  return `proxy: replacing order ${old.orderId} (plan ${old.planId}, ${old.status}) buys a new order for plan ${planName(planId, planUnknown)}. ${kept}`;
}

/** A fleet's order as its messages name it. */
export interface NamedMember {
  orderId: string;
  slot: number;
  status: string;
}

/** The orders that can still be billed, and the spent ones (failed, cancelled, expired). */
function bySpent(members: readonly NamedMember[]): { live: NamedMember[]; spent: NamedMember[] } {
  return { live: members.filter((m) => !isSpentState(m.status)), spent: members.filter((m) => isSpentState(m.status)) };
}

/**
 * What stays of orders the resource stops tracking, called `they` (or `it`) when all are alike: the billed ones are not
 * cancelled, the spent ones have already ended.
 */
function whatStays(members: readonly NamedMember[], they: string): string {
  const { live, spent } = bySpent(members);
  const plural = (list: readonly NamedMember[]) => list.length > 1;
  if (spent.length === 0) return notCancelled(they, plural(members));
  if (live.length === 0) return hasEnded(they, plural(members));
  return `${notCancelled(live.map(named).join(", "), plural(live))} ${hasEnded(spent.map(named).join(", "), plural(spent))}`;
}

function named(member: NamedMember): string {
  return `${member.orderId} (slot ${member.slot})`;
}

/**
 * A new planId for a fleet; `old.orders` is every order the fleet holds, its members and those being renewed. They
 * are counted, not named: a fleet may hold a thousand.
 */
export function replacingFleet(orders: number | undefined, planId: string, planUnknown: boolean, old: { orders: readonly NamedMember[]; planId: string }): string {
  const { live, spent } = bySpent(old.orders);
  const held = `${old.orders.length} order(s) of plan ${old.planId}`;
  let kept: string;
  if (spent.length === 0) kept = notCancelled(`Its ${held}`, true);
  else if (live.length === 0) kept = hasEnded(`Its ${held}`, true);
  else kept = `${notCancelled(`${live.length} of its ${held}`, live.length > 1)} ${spent.length > 1 ? `The other ${spent.length} have` : "The other one has"} ended.`;
  return `proxy: a new planId replaces the fleet: it buys ${orders ?? "its"} new order(s) of plan ${planName(planId, planUnknown)}. ${kept}`;
}

/** A lower `orders` for a fleet, naming the members it stops tracking. */
export function fleetShrinks(from: number, to: number, dropped: readonly NamedMember[]): string {
  return `proxy: orders goes from ${from} to ${to}: the fleet stops tracking ${dropped.map(named).join(", ")}. ${whatStays(dropped, dropped.length > 1 ? "They" : "It")}`;
}

/** A fleet member the update stops tracking. */
export function memberDropped(member: NamedMember): string {
  return `proxy: order ${member.orderId} (slot ${member.slot} of the fleet) is no longer tracked. ${whatStays([member], "It")}`;
}

/** A fleet member whose successor is ready. */
export function memberReplaced(orderId: string, slot: number, successor: string): string {
  return `proxy: order ${orderId} (slot ${slot}) is replaced by ${successor} and no longer tracked`;
}

/** A refresh found that an order is gone. */
export function orderGone(orderId: string, leaves: "the state" | "the fleet", slot?: number): string {
  return `proxy: order ${orderId}${slot === undefined ? "" : ` (slot ${slot})`} ${GONE}; it leaves ${leaves}`;
}

/** An update resumed waiting for an order that is gone. */
export function goneWhileResuming(orderId: string): string {
  return `Order ${orderId} ${GONE}. It is kept in the state until \`pulumi refresh\` removes it; nothing was bought.`;
}

/** A ProxyOrder whose wait did not end ready: recorded, and resumed by the next `up`. */
export function orderUnfinished(reason: string, orderId: string, status: string): string {
  return (
    `${reason}. Order ${orderId} is recorded in the state with status "${status}"; ` +
    "run `pulumi up` again to resume waiting (nothing is bought again), or `pulumi refresh` to see its state."
  );
}

/** Something failed once the order (or the fleet's orders) existed: what exists is recorded all the same. */
export function keptAfterFailure(what: string, reason: string): string {
  return (
    `${what} exists, but finishing this step failed: ${reason.replace(/\.\s*$/, "")}. It is recorded in the state; ` +
    "run `pulumi up` again to carry on with it (nothing is bought again), or `pulumi refresh` to see its state."
  );
}

/** A ProxyOrder whose order failed: nothing is kept. */
export function orderFailed(reason: string, adopted: boolean): string {
  return (
    `${reason} Nothing usable was provisioned and it is not kept in the state. ` +
    (adopted
      ? "Remove adoptOrderId to buy a new order with the next `pulumi up`."
      : "Run `pulumi up` again to buy again: the retry uses an idempotency key derived from this failed order, " +
        "so it cannot buy twice.")
  );
}

/** A fleet with members that are not ready: recorded with what it holds. */
export function fleetUnfinished(problems: string[], listed: number, orders: number, held: number, ready: number): string {
  const shown = problems.slice(0, listed).map((p) => p.replace(/\.+\s*$/, "")).join("; ");
  const more = problems.length > listed ? `; and ${problems.length - listed} more` : "";
  return (
    `${problems.length} of the fleet's ${orders} order(s) are not ready: ${shown}${more}. The fleet is recorded ` +
    `with what it holds (${held} order(s), ${ready} active); run \`pulumi up\` again: it resumes the ` +
    "orders bought and buys only what is missing, each once."
  );
}

/** `adoptOrderId` names an order that does not exist. */
export function adoptionGone(id: string): string {
  return (
    `adoptOrderId: order ${id} does not exist for this API key. Check the id (the orderId output of the old stack, ` +
    "or the provider's dashboard); nothing was bought."
  );
}

/** Why an existing order cannot be adopted (`adoptOrderId`), with its error code, or undefined when it can. */
export function adoptionRefusal(id: string, order: { planId?: string; status: string }, planId: string): { code: string; message: string } | undefined {
  // An order whose record names no plan (an API that leaves `plan_id` out) is taken to be of the plan the program names.
  if (order.planId !== undefined && order.planId !== planId) {
    const message = `adoptOrderId: order ${id} is for plan "${order.planId}", but planId is "${planId}". Set planId to "${order.planId}" to adopt it; nothing was bought.`;
    return { code: "adopt_plan_mismatch", message };
  }
  if (isSpentState(order.status)) {
    const message = `adoptOrderId: order ${id} ended "${order.status}" and has no usable proxies. Remove adoptOrderId to buy a new order; nothing was bought.`;
    return { code: "adopt_spent", message };
  }
  return undefined;
}

/** `pulumi import` of a ProxyOrder (one id) or a fleet (`ids`) whose order(s) do not exist. */
export function importNotFound(ids: string[], fleet: boolean): string {
  return !fleet
    ? `Order ${ids[0]} does not exist for this API key: check the id (the orderId output of the stack that bought it, ` +
        "or the provider's dashboard) and the provider's apiKey. Nothing was imported."
    : `Order(s) ${ids.join(", ")} do not exist for this API key: check the ids and the provider's apiKey. Nothing was imported.`;
}

/**
 * Orders to import whose records name no plan (an API that leaves `plan_id` out): import cannot write the `planId` a
 * program declares; adopting by id can, with the plan the program names (a `ProxyOrder` only: a fleet adopts nothing).
 */
export function importPlanUnknown(ids: string[], fleet: boolean): string {
  const instead = fleet
    ? `Declare each as a ProxyOrder with its planId and adoptOrderId (such as adoptOrderId: "${ids[0]}") instead`
    : `Declare the resource with its planId and adoptOrderId: "${ids[0]}" instead`;
  return (
    `The API's record of order(s) ${ids.join(", ")} names no plan_id, so import cannot tell the planId a program declares. ` +
    `${instead}: it takes the order over, buying nothing. Nothing was imported.`
  );
}

/**
 * An order (or a fleet's orders) recorded at another API than the configured one (origin.ts): what is done (nothing:
 * it is not read, renewed or dropped) and the two ways forward. `doing` says which operation speaks.
 */
export function livesElsewhere(what: string, recordedApi: string, configuredApi: string, doing: "refresh" | "preview" | "update"): string {
  const kept = doing === "refresh" ? "Refresh keeps it as recorded and does not ask" : doing === "update" ? "It is left as it is: nothing is read or bought at" : "Nothing will be read, renewed or bought for it at";
  return (
    `proxy: ${what} lives at ${recordedApi}, but proxy:baseUrl (or PROXY_API_BASE_URL) is now ${configuredApi}. ` +
    `${kept} ${configuredApi}: that API's 404 would say nothing about it. Either point proxy:baseUrl back to ${recordedApi}, ` +
    `or buy anew at ${configuredApi} with \`pulumi up --replace <urn>\` (\`pulumi stack --show-urns\` lists the URNs; the preview shows the replacement), ` +
    `after which the order at ${recordedApi} is no longer tracked and stays with that account. See docs/going-live.md.`
  );
}

/**
 * An order of an earlier release, which records no API, in a preview (origin.ts): an update the inputs ask for records
 * where it lives; otherwise nothing is planned for it, and a refresh records it.
 */
export function originUnrecorded(orderId: string, updating: boolean): string {
  return updating
    ? `proxy: order ${orderId} records no API (an earlier release bought it): this update also reads it once and records where it lives; nothing is bought`
    : `proxy: order ${orderId} records no API (an earlier release bought it); nothing is planned for it, and \`pulumi refresh\` records where it lives (reading it once)`;
}

/** An order of an earlier release that a read at the configured API did not find: left as it was (origin.ts). */
export function originNotRecorded(orderId: string, api: string): string {
  return (
    `proxy: order ${orderId} records no API (an earlier release bought it), and ${api} did not show it, so where it lives ` +
    "was not recorded and nothing was changed. If the stack moved APIs, point proxy:baseUrl back to the API that sold it " +
    "and run `pulumi refresh --run-program` once. See docs/going-live.md."
  );
}

/** A 404 for an order that records no API, where no order of the stack was found yet (origin.ts): the order is kept. */
export function absenceUnrecorded(orderId: string, api: string): string {
  return (
    `GET /v1/orders/${orderId} answered 404 at ${api}, but the order records no API (an earlier release bought it) and no ` +
    `other order was found at ${api} yet, so the stack may have moved APIs before its orders recorded where they live. ` +
    `Order ${orderId} stays in the state. If the stack moved, point proxy:baseUrl back to the API that sold it and run ` +
    "`pulumi refresh --run-program` once: each order then records where it lives. If the order is truly gone, remove it with `pulumi state delete <urn>`."
  );
}

/** A 404 to a key that may belong to another account (origin.ts): the order is kept. */
export function absenceOtherKey(orderId: string): string {
  return (
    `GET /v1/orders/${orderId} answered 404 to an API key other than the one that bought the order, and this key has not been ` +
    "seen reading any other order of that key, so it may belong to another account: the contract answers 404 for another " +
    `account's order too. Order ${orderId} stays in the state. If you rotated the key within the same account and the order ` +
    "is truly gone, remove it with `pulumi state delete <urn>`; if the key is of another account, set the account's own key."
  );
}

/** Failed proxies a health message names before "and N more". */
const NAMED_FAILURES = 10;

/** What a health check of a resource's proxies found (core/health-check.ts), as its messages name it. */
export interface CheckedProxies {
  target: string;
  healthy: number;
  total: number;
  results: ReadonlyArray<{ ip: string; port: number; orderId?: string; healthy: boolean; failure?: string }>;
}

/** The proxies that failed, named with their order and why: "127.0.0.1:4000 (order ord_1): refused; ...". */
function failedProxies(report: CheckedProxies): string {
  const failed = report.results.filter((r) => !r.healthy);
  const named = failed.slice(0, NAMED_FAILURES).map((r) => `${r.ip}:${r.port}${r.orderId ? ` (order ${r.orderId})` : ""}: ${r.failure ?? "failed"}`);
  return `${named.join("; ")}${failed.length > NAMED_FAILURES ? `; and ${failed.length - NAMED_FAILURES} more` : ""}`;
}

/** What a check of `what`'s proxies found, in one line. */
export function healthChecked(what: string, report: CheckedProxies): string {
  const failed = report.total - report.healthy;
  return `proxy: ${report.healthy} of ${report.total} proxies of ${what} answered through themselves at ${report.target}${failed > 0 ? `; failed: ${failedProxies(report)}` : ""}`;
}

/** The error of a check the engine cancelled (Ctrl-C): how far it got, that nothing was lost, and that it runs again. */
export function healthCancelled(what: string, report: CheckedProxies): string {
  return (
    `The check of the proxies of ${what} was cancelled (Ctrl-C) after ${report.healthy} of ${report.total} answered through ` +
    `themselves at ${report.target}. Every order is kept in the state; nothing was bought or dropped. The next ` +
    "`pulumi up` checks them again."
  );
}

/** The error of a check below `minHealthy` (`needed` proxies, each within `timeout`): what failed, that nothing was lost, and what to do. */
export function healthBelowMinimum(what: string, report: CheckedProxies, needed: number, timeout: string): string {
  return (
    `${report.healthy} of ${report.total} proxies of ${what} answered through themselves at ${report.target} within ` +
    `${timeout}; healthCheck.minHealthy asks for ${needed}. Failed: ${failedProxies(report)}. ` +
    "Every order is kept in the state; nothing was bought or dropped. The check runs from this machine: a proxy that " +
    "accepts only listed source addresses looks dead from elsewhere. Ask the vendor about the proxies that failed, " +
    "replace them (replaceUnhealthy on a ProxyFleet), or lower minHealthy; the next `pulumi up` checks again."
  );
}
