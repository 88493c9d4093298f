/**
 * The shapes a ProxyOrder has in Pulumi's state, and the one mapping from an API order to what a ProxyOrder and each
 * member of a fleet show of it.
 */
import type { Order, ProxyRecord } from "../../contract";
import { ORDER_FIELDS, PROXY_ORDER, type ObjectTypes, type Shape } from "../schema/definitions";
import { inputValues, type Complete } from "../schema/fields";
import { storedOrigin, type OrderOrigin } from "./origin";
import { orderExpiry } from "./renewal";

/** Inputs of a ProxyOrder after `check` applied the defaults (described in definitions.ts). */
export type OrderInputs = Shape<typeof PROXY_ORDER.inputs>;

/** A proxy as the resource exposes it: every field of the API's record but the credentials. */
export type ProxyInfo = ObjectTypes["ProxyInfo"];

/** Credentials of one proxy, in the same position as the proxy in `proxies`. Always a secret output. */
export type ProxyCredential = ObjectTypes["ProxyCredential"];

/** Outputs of a ProxyOrder: its inputs, echoed (refresh and delete see only outputs), and the order. */
export type OrderOutputs = OrderInputs & Shape<typeof PROXY_ORDER.outputs>;

/** What a ProxyOrder and each member of a fleet show of their order, every field listed (null or undefined for none). */
export type OrderFields = Complete<Shape<typeof ORDER_FIELDS>>;

/** Property names of OrderOutputs that are outputs only (the resource class declares them). */
export const OUTPUT_ONLY_PROPERTIES = Object.keys(PROXY_ORDER.outputs) as Array<keyof typeof PROXY_ORDER.outputs>;

/**
 * Splits the order's proxies into public records and credentials. A credential always has `ip` and `port`, and
 * `username` and `password` only when the API sent them: a proxy that admits its clients by their IP (allow-listed)
 * has neither, and its credential is `{ ip, port }`.
 */
export function splitCredentials(proxies: ProxyRecord[]): { proxies: ProxyInfo[]; credentials: ProxyCredential[] } {
  return {
    proxies: proxies.map(({ username: _u, password: _p, ...info }) => info),
    credentials: proxies.map(({ ip, port, username, password }) => ({
      ip,
      port,
      ...(username === undefined ? {} : { username }),
      ...(password === undefined ? {} : { password }),
    })),
  };
}

/** What the order shows of itself, bought with `purchaseKey` (null when adopted or imported), living at `origin`. */
export function orderFields(order: Order, purchaseKey: string | null, origin: OrderOrigin | undefined): OrderFields {
  const reason = order.statusReason;
  return {
    orderId: order.id,
    status: order.status,
    statusReason: reason ? { code: reason.code, message: reason.message } : null,
    createdAt: order.createdAt ?? null,
    readyAt: order.readyAt ?? null,
    expiresAt: orderExpiry(order),
    purchaseKey,
    apiBaseUrl: origin?.apiBaseUrl || undefined,
    apiKeyFingerprint: origin?.apiKeyFingerprint || undefined,
  };
}

/** The outputs for an order bought (or read) with these inputs, living where `origin` says (origin.ts). */
export function toOutputs(inputs: OrderInputs, order: Order, purchaseKey: string | null, origin: OrderOrigin | undefined): OrderOutputs {
  const outputs: Complete<Shape<typeof PROXY_ORDER.outputs>> = {
    ...orderFields(order, purchaseKey, origin),
    ...splitCredentials(order.proxies ?? []),
    // Set by the check of the proxies (core/health-check.ts), which runs once the order is active.
    health: null,
  };
  return { ...inputsOf(inputs), ...outputs };
}

/** The inputs part of inputs or stored outputs (refresh returns them so that a refresh leaves no phantom diff). */
export function inputsOf(values: OrderInputs): OrderInputs {
  return inputValues(PROXY_ORDER, values) as OrderInputs;
}

/**
 * The outputs an update in place records: what a create would compute from the new inputs and the order the state
 * holds (so an output derived from an input is never left stale), with the last health check. An optional input no
 * longer set leaves them too.
 */
export function withInputs(outputs: OrderOutputs, inputs: OrderInputs): OrderOutputs {
  return { ...toOutputs(inputs, storedOrder(outputs), outputs.purchaseKey ?? null, storedOrigin(outputs)), health: outputs.health ?? null };
}

/** The order as the stored outputs hold it: the inverse of {@link orderFields} and {@link splitCredentials}. */
function storedOrder(outputs: OrderOutputs): Order {
  const proxies = (outputs.proxies ?? []).map((proxy, i) => {
    const { username, password } = outputs.credentials?.[i] ?? {};
    return { ...proxy, ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}) };
  });
  return orderFromFields(outputs, outputs.planId, proxies);
}

/**
 * The order that stored fields hold (a ProxyOrder's outputs, a fleet member): the inverse of {@link orderFields}. It
 * lists every field of the order (one the state does not keep is undefined), so a field added to the contract fails
 * the type check here until its line is written.
 */
export function orderFromFields(fields: Shape<typeof ORDER_FIELDS>, planId: string, proxies: ProxyRecord[] = []): Order {
  const order: Complete<Order> = {
    id: fields.orderId,
    planId,
    status: fields.status,
    statusReason: fields.statusReason ?? null,
    createdAt: fields.createdAt ?? undefined,
    updatedAt: undefined,
    readyAt: fields.readyAt ?? null,
    estimatedReadyAt: undefined,
    expiresAt: fields.expiresAt ?? null,
    proxies,
  };
  return order;
}
