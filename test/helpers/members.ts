/**
 * A fleet member as the provider makes one (memberOf, from an order record), so a field added to the order reaches the
 * unit tests' members without touching them.
 */
import type { Order } from "../../contract/types";
import { memberOf, type FleetMember } from "../../provider/state/fleet-state";

/** The member in `slot` for an active order `ord_<slot>` bought with `key_<slot>`; `order` and `over` change it. */
export function fleetMember(slot: number, order: Partial<Order> = {}, over: Partial<FleetMember> = {}): FleetMember {
  return { ...memberOf(slot, { id: `ord_${slot}`, planId: "dc-us-1", status: "active", ...order }, `key_${slot}`, undefined), ...over };
}
