/**
 * What a purchase's outcome becomes for a ProxyOrder, decided without calling anything: its outputs, or the error that
 * says what happened and what is kept. order-provider.ts raises it.
 */
import { ProxyError } from "../../client";
import { orderFailed, orderUnfinished } from "../shared/messages";
import { toOutputs, type OrderInputs, type OrderOutputs } from "../state/order-state";
import type { OrderOrigin } from "../state/origin";
import type { PurchaseOutcome } from "../api/purchase";
import { PartialOrderError, partialProperties, type WithProvider } from "../shared/pulumi-host";

/** A ProxyOrder's create or update result for an outcome: its outputs, or the error that says what is kept. */
export function settleOrder(inputs: WithProvider<OrderInputs>, outcome: PurchaseOutcome, origin: OrderOrigin): { id: string; outs: OrderOutputs } {
  const { order, purchaseKey: key } = outcome;
  if (outcome.kind === "done") return { id: order.id, outs: toOutputs(inputs, order, key, origin) };
  if (outcome.kind === "failed") {
    throw new ProxyError(orderFailed(outcome.error.message, Boolean(inputs.adoptOrderId)), "order_failed", { cause: outcome.error });
  }
  const message = orderUnfinished(outcome.reason, order.id, order.status);
  throw new PartialOrderError(message, order.id, partialProperties(toOutputs(inputs, order, key, origin), inputs));
}
