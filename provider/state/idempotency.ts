/**
 * Idempotency keys of purchases. A key is derived, never random, so that a re-run after a crash, a network failure
 * or a timeout sends the same key and gets the same order back instead of buying again.
 */
import { createHash } from "node:crypto";

const PREFIX = "pulumi-proxy-v1-";

function digest(parts: string[]): string {
  return PREFIX + createHash("sha256").update(JSON.stringify(parts)).digest("hex").slice(0, 48);
}

/** What identifies one purchase in a Pulumi program. */
export interface PurchaseIdentity {
  project: string;
  stack: string;
  /** The resource's logical name. */
  resourceName: string;
  planId: string;
}

/** The resource a key is derived for: what a purchase identity holds but the plan (a URN's parts, or a program's). */
export type ResourceIdentity = Omit<PurchaseIdentity, "planId">;

/** The key of the first purchase attempt of a resource: the same for every run of the same program and stack. */
export function purchaseKey(identity: PurchaseIdentity): string {
  return digest([identity.project, identity.stack, identity.resourceName, identity.planId]);
}

/**
 * The key for buying again after the order bought with `previousKey` ended without proxies (failed, cancelled,
 * expired). Derived from that order, so this retry is just as safe to repeat as the first purchase.
 */
export function nextPurchaseKey(previousKey: string, spentOrderId: string): string {
  return digest([previousKey, spentOrderId]);
}

/**
 * The key for buying again after the API answered a replay of `previousKey` with 404: the order that key bought no
 * longer exists (the operator removed it), and the contract spends the key with it. No order id is known then, so
 * the key alone is the seed: every retry of the repair derives the same key and buys at most once.
 */
export function keyAfterRemovedOrder(previousKey: string): string {
  return digest([previousKey, "order-removed"]);
}

/**
 * The key of the first purchase for one slot of a fleet: derived from the fleet's identity and the slot, so that a
 * re-run buys exactly the members that are missing.
 */
export function memberPurchaseKey(fleetKey: string, slot: number): string {
  return digest([fleetKey, "member", String(slot)]);
}

/** A fleet's resource id: stable for its identity, so a re-run after a crash records the same resource. */
export function fleetId(idempotencyKey: string): string {
  return `fleet_${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 24)}`;
}
