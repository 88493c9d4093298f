/**
 * Checked inputs of each resource as a provider method receives them in a test: the defaults `check` applies, a
 * fresh idempotency key, and the `__provider` the engine passes along.
 */
import type { FleetInputs } from "../../provider/state/fleet-state";
import type { OrderInputs } from "../../provider/state/order-state";

type WithProvider<T> = T & { __provider: string };

/** A ProxyOrder's inputs, with `over` on top. */
export const orderInputs = (over: Partial<OrderInputs> = {}): WithProvider<OrderInputs> => ({
  planId: "dc-us-5",
  waitForReady: true,
  readyTimeout: "20m",
  idempotencyKey: `key-${Math.random().toString(36).slice(2)}`,
  __provider: "serialized-provider-text",
  ...over,
});

/** A ProxyFleet's inputs (3 orders unless `over` says otherwise). */
export const fleetInputs = (over: Partial<FleetInputs> = {}): WithProvider<FleetInputs> => ({
  planId: "dc-us-5",
  orders: 3,
  waitForReady: true,
  readyTimeout: "20m",
  idempotencyKey: `fleet-${Math.random().toString(36).slice(2)}`,
  __provider: "serialized-provider-text",
  ...over,
});
