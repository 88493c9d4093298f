/**
 * The contract's enumerations: order states by what a client does with them, and proxy types.
 * Unknown values are expected from a real API: a proxy type is kept as sent, an order state fails fast (a named state
 * in other case is that state).
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

const NAMED_STATES: readonly string[] = [...PENDING_ORDER_STATES, ...TARGET_ORDER_STATES, ...SPENT_ORDER_STATES];

/**
 * A state as the client reads it: the contract's spelling of a state it names, where the API's differs in case or
 * surrounding space only (`ACTIVE`, as APIs that send their enumerations' names write it); any other as sent.
 */
export function readState(status: string): string {
  const named = status.trim().toLowerCase();
  return NAMED_STATES.includes(named) ? named : status;
}

/** The proxy types the contract names; a server may send others, which are kept as they are. */
export const PROXY_TYPES = ["datacenter", "isp", "residential", "mobile"] as const;
