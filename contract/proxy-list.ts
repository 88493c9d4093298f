/**
 * The bounds of `GET /v1/proxies`'s query (docs/api-contract.md): a `limit` of 1 to 1,000, and an `order_id` of at
 * most 100 ids.
 */

/** The largest page (`limit`) the API answers. */
export const MAX_PROXY_PAGE_SIZE = 1000;

/** The most order ids one `order_id` filter may name. */
export const MAX_ORDER_ID_FILTER = 100;
