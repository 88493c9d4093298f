/**
 * The API's records as this package exposes them: camelCase, with the contract's field docs. The records an API sends
 * are written from the wire schemas (records.ts, by `npm run gen`); a page of the proxy list is the client's own.
 */
import type { ProxyRecord } from "./records";

export type * from "./records";

/** One page of `GET /v1/proxies`. */
export interface ProxyPage {
  proxies: ProxyRecord[];
  /** Cursor of the next page, or undefined when this page is the last. */
  nextCursor?: string;
}
