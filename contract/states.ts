/**
 * The contract's enumerations: order states by what a client does with them, and proxy types.
 * Unknown values are expected from a real API: a proxy type is kept as sent, an order state fails fast.
 */

/** Accepted and still being provisioned: keep waiting. */
export const PENDING_ORDER_STATES = ["pending", "provisioning"] as const;
/** The proxies are ready. */
export const TARGET_ORDER_STATES = ["active"] as const;
/** Terminal: the purchase will never (again) produce proxies. `expired` follows `active`. */
export const SPENT_ORDER_STATES = ["failed", "cancelled", "expired"] as const;

const includes = (list: readonly string[], status: string): boolean => list.includes(status);

/** Whether the order is still being provisioned. */
export const isPendingState = (status: string): boolean => includes(PENDING_ORDER_STATES, status);
/** Whether the order's proxies are ready. */
export const isTargetState = (status: string): boolean => includes(TARGET_ORDER_STATES, status);
/** Whether the order ended without usable proxies (failed, cancelled, expired). */
export const isSpentState = (status: string): boolean => includes(SPENT_ORDER_STATES, status);

/** The proxy types the contract names; a server may send others, which are kept as they are. */
export const PROXY_TYPES = ["datacenter", "isp", "residential", "mobile"] as const;
