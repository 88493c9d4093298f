/**
 * The API contract (docs/api-contract.md) in one module: wire schemas, the records derived from them, order states
 * and proxy types, the idempotency-key rule, and the error table. It depends on nothing of this package; the client
 * and the sandbox both build on it.
 */
export * from "./errors";
export * from "./idempotency";
export * from "./openapi";
export * from "./rate-limit";
export type * from "./shapes";
export * from "./states";
export type * from "./types";
export * from "./wire";
