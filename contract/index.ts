/**
 * The API contract (docs/api-contract.md): what other folders may use of it, apart from the wire schemas. It depends
 * on nothing of this package; the client and the sandbox both build on it.
 *
 * Two more doors hold what is typed with zod, so that no zod type reaches a user's type check through this one: the
 * wire schemas and their readers (`contract/wire`), for the client, the sandbox and the contract check; and the
 * OpenAPI document made from them (`contract/openapi`).
 */

/** The error table: each status and `code`, and the kind of error it is. */
export * from "./errors";
/** The `Idempotency-Key` rule, and how long the API replays a key. */
export * from "./idempotency";
/** Which order a purchase's answer names, by an id in its body (or its envelope) or its `Location`. */
export * from "./location";
/** The bounds of `GET /v1/proxies`'s query (its largest page, the most order ids one filter names) and `Link` paging. */
export * from "./proxy-list";
/** The rate-limit hints in every form, and `Retry-After`: read once per answer. */
export * from "./rate-limit";
/** Checks that a record lists every field, and that two types are the same. */
export type * from "./shapes";
/** Order states and proxy types. */
export * from "./states";
/** The records the client returns (camelCase, written from the wire schemas), and a page of the proxy list. */
export type * from "./types";
