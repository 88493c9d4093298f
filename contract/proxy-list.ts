/**
 * The bounds of `GET /v1/proxies`'s query (docs/api-contract.md): a `limit` of 1 to 1,000, and an `order_id` of at
 * most 100 ids; and the next page a `Link` header names, for an API that pages so.
 */

/** The largest page (`limit`) the API answers. */
export const MAX_PROXY_PAGE_SIZE = 1000;

/** The most order ids one `order_id` filter may name. */
export const MAX_ORDER_ID_FILTER = 100;

/**
 * The next page a `Link` header (RFC 8288) names with `rel="next"`, as APIs that page by header write it: its target
 * as written, and its `cursor` query parameter when it has one (the contract's cursor, sent back as the contract sends
 * it; without one, the target names the next page some other way, such as a page number). Undefined when the header
 * names no next page.
 */
export function nextPageLink(link: string | undefined): { target: string; cursor?: string } | undefined {
  for (const part of (link ?? "").split(/,\s*(?=<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    const rels = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,"]+))/i.exec(match?.[2] ?? "");
    if (!match || !rels || !(rels[1] ?? rels[2] ?? "").toLowerCase().split(/\s+/).includes("next")) continue;
    const target = match[1] ?? "";
    let cursor: string | null = null;
    try {
      cursor = new URL(target, "http://link.invalid").searchParams.get("cursor");
    } catch {
      // A target that is no URL names the next page some other way.
    }
    return cursor ? { target, cursor } : { target };
  }
  return undefined;
}
