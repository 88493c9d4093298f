/**
 * The shapes a ProxyFleet has in Pulumi's state, and how its members and their proxies become its outputs.
 */
import type { Order } from "../../contract";
import { PROXY_FLEET, type ObjectTypes, type Shape } from "../schema/definitions";
import { inputValues, type Complete } from "../schema/fields";
import { orderFields, orderFromFields, splitCredentials } from "./order-state";
import { storedOrigin, type OrderOrigin } from "./origin";

/** Inputs of a ProxyFleet after `check` applied the defaults (described in definitions.ts). */
export type FleetInputs = Shape<typeof PROXY_FLEET.inputs>;

/** One order of a fleet, in the slot it fills (0 to `orders` - 1). */
export type FleetMember = ObjectTypes["FleetMember"];

/** A proxy of a fleet: its record without credentials, with the order it belongs to. */
export type FleetProxy = ObjectTypes["FleetProxy"];

/** Credentials of one proxy of a fleet, in the same position as the proxy in `proxies`. Always a secret output. */
export type FleetCredential = ObjectTypes["FleetCredential"];

/** The proxies of one order, as a fleet keeps them. */
export interface OrderProxies {
  proxies: FleetProxy[];
  credentials: FleetCredential[];
}

/** Outputs of a ProxyFleet: its inputs, echoed (refresh and delete see only outputs), and its members. */
export type FleetOutputs = FleetInputs & Shape<typeof PROXY_FLEET.outputs>;

/** Property names of FleetOutputs that are outputs only (the resource class declares them). */
export const FLEET_OUTPUT_ONLY_PROPERTIES = Object.keys(PROXY_FLEET.outputs) as Array<keyof typeof PROXY_FLEET.outputs>;

/** The member for an order in a slot, living where `origin` says (origin.ts). */
export function memberOf(slot: number, order: Order, purchaseKey: string | null, origin: OrderOrigin | undefined): FleetMember {
  return { slot, ...orderFields(order, purchaseKey, origin) };
}

/** The order's proxies and credentials, each tagged with the order. */
export function proxiesOf(order: Order): OrderProxies {
  const { proxies, credentials } = splitCredentials(order.proxies ?? []);
  return {
    proxies: proxies.map((p) => ({ ...p, orderId: order.id })),
    credentials: credentials.map((c) => ({ orderId: order.id, ...c })),
  };
}

/** The stored proxies and credentials of a fleet, by order. */
export function proxiesByOrder(outputs: Pick<FleetOutputs, "proxies" | "credentials">): Map<string, OrderProxies> {
  const byOrder = new Map<string, OrderProxies>();
  const entry = (orderId: string) => {
    let found = byOrder.get(orderId);
    if (!found) byOrder.set(orderId, (found = { proxies: [], credentials: [] }));
    return found;
  };
  for (const proxy of outputs.proxies ?? []) entry(proxy.orderId).proxies.push(proxy);
  for (const credential of outputs.credentials ?? []) entry(credential.orderId).credentials.push(credential);
  return byOrder;
}

/** The outputs for these inputs and orders; proxies come from `known`, by order, in the order of the members. */
export function toFleetOutputs(
  inputs: FleetInputs,
  members: FleetMember[],
  retiring: FleetMember[],
  known: ReadonlyMap<string, OrderProxies>,
): FleetOutputs {
  // Every member as a create computes it from the order it holds, whether or not an action touched it.
  const again = (member: FleetMember) => memberOf(member.slot, orderFromFields(member, inputs.planId), member.purchaseKey ?? null, storedOrigin(member));
  const sorted = [...members].sort((a, b) => a.slot - b.slot).map(again);
  const listed = [...sorted, ...retiring.map(again)];
  const expiries = sorted.filter((m) => m.status === "active" && m.expiresAt).map((m) => m.expiresAt as string);
  // Every output listed, so one added to the definition and not computed here fails the type check.
  const outputs: Complete<Shape<typeof PROXY_FLEET.outputs>> = {
    members: sorted,
    retiring: listed.slice(sorted.length),
    proxies: listed.flatMap((m) => known.get(m.orderId)?.proxies ?? []),
    credentials: listed.flatMap((m) => known.get(m.orderId)?.credentials ?? []),
    expiresAt: expiries.reduce<string | null>((first, e) => (first === null || Date.parse(e) < Date.parse(first) ? e : first), null),
    // Set by the check of the proxies (core/health-check.ts), which runs once the members are settled.
    health: null,
  };
  return { ...fleetInputsOf(inputs), ...outputs };
}

/** The inputs part of inputs or stored outputs (refresh returns them so that a refresh leaves no phantom diff). */
export function fleetInputsOf(values: FleetInputs): FleetInputs {
  return inputValues(PROXY_FLEET, values) as FleetInputs;
}
