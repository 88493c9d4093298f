/**
 * `getProxies` and `getProxyHealth` against the API: what the program-side functions of the dynamic SDK and the
 * invokes of the provider plugin both run.
 */
import { NotFoundError, type ProxyApiClient, ProxyError, type ProxyFilters } from "../client";
import { MAX_ORDER_ID_FILTER, MAX_PROXY_PAGE_SIZE, type ProxyRecord } from "../contract";
import { checkHeld } from "./core/health-check";
import { healthCheckProblem, healthSettings, type HealthOutput, type HealthSettings } from "./schema/health-input";
import { splitCredentials, type ProxyCredential, type ProxyInfo } from "./state/order-state";

/** Filters of getProxies: the API's, and `expiresBefore`, which the provider applies to what the API returns. */
export interface ProxyListFilters extends Pick<ProxyFilters, "type" | "country" | "orderId"> {
  /** Only proxies that expire before this time (RFC 3339); proxies with no known expiry are left out. */
  expiresBefore?: string;
}

/** The proxies, and their credentials only when asked for. */
export interface ProxyList {
  proxies: ProxyInfo[];
  credentials: ProxyCredential[];
}

/** `expiresBefore` as epoch milliseconds; a value that is not a time is refused before any request. */
export function parseExpiresBefore(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || !Number.isFinite(ms)) {
    throw new ProxyError(
      `getProxies: expiresBefore must be an RFC 3339 time such as "2026-12-01T00:00:00Z" (got ${JSON.stringify(value)}).`,
      "invalid_argument",
    );
  }
  return ms;
}

/** Every matching proxy across all pages; credentials stay empty unless `includeCredentials`. */
export async function listProxies(api: ProxyApiClient, filters: ProxyListFilters, includeCredentials: boolean): Promise<ProxyList> {
  const matches = matcher(filters);
  const orderIds = listOf(filters.orderId);
  // More orders than one `order_id` filter may name are matched here, on the whole list (the API would refuse them).
  const orderId = orderIds.length > MAX_ORDER_ID_FILTER ? undefined : filters.orderId;
  // The contract's largest page: fewest round trips for large accounts.
  const all = await api.listProxies({ type: filters.type, country: filters.country, orderId, pageSize: MAX_PROXY_PAGE_SIZE });
  // The filters hold again on what came back: the seed names none, and an API may ignore a query it does not know.
  // Whose a proxy is, only a list with `order_id` can say (it is optional); without it, each order is read by id.
  const records = orderIds.length > 0 && all.some((p) => p.orderId === undefined) ? await proxiesOfOrders(api, orderIds) : all;
  const { proxies, credentials } = splitCredentials(records.filter(matches));
  return { proxies, credentials: includeCredentials ? credentials : [] };
}

/** A filter's values: a list, or one string of comma separated values. */
function listOf(value: string | string[] | undefined): string[] {
  return (Array.isArray(value) ? value : (value?.split(",") ?? [])).map((v) => v.trim()).filter(Boolean);
}

/** Whether a record matches the filters, as the API would filter it (type and country in any case). */
function matcher(filters: ProxyListFilters): (p: ProxyRecord) => boolean {
  const before = parseExpiresBefore(filters.expiresBefore);
  const oneOf = (wanted: string | string[] | undefined, value: string) => {
    const list = listOf(wanted).map((v) => v.toLowerCase());
    return list.length === 0 || list.includes(value.toLowerCase());
  };
  const orderIds = listOf(filters.orderId);
  return (p) =>
    oneOf(filters.type, p.type) &&
    oneOf(filters.country, p.country) &&
    (orderIds.length === 0 || p.orderId === undefined || orderIds.includes(p.orderId)) &&
    (before === undefined || (p.expiresAt !== undefined && Date.parse(p.expiresAt) < before));
}

/**
 * The proxies of these orders, each read by id: none of an order that is not active, nor of one the API no longer
 * knows (the list, too, holds the proxies of active orders only). Each carries its order's id, which reading the order
 * by it proves, so that the filters hold on them and no caller reads the order again.
 */
async function proxiesOfOrders(api: ProxyApiClient, ids: string[]): Promise<ProxyRecord[]> {
  const read = async (id: string) => {
    try {
      const { order } = await api.getOrder(id);
      return order.status === "active" ? (order.proxies ?? []).map((p) => ({ ...p, orderId: p.orderId ?? id })) : [];
    } catch (error) {
      if (error instanceof NotFoundError) return [];
      throw error;
    }
  };
  return (await Promise.all(ids.map(read))).flat();
}

/** getProxies' arguments as an invoke receives them: the filters and whether to return credentials, or what is wrong. */
export type GetProxiesCall =
  | { filters: ProxyListFilters; includeCredentials: boolean; failures?: undefined }
  | { failures: Array<{ property: string; reason: string }> };

/** Checks getProxies' arguments (a provider plugin's invoke, whose values come untyped); one failure per bad one. */
export function checkGetProxiesArgs(args: Record<string, unknown>): GetProxiesCall {
  const failures: Array<{ property: string; reason: string }> = [];
  const filters: ProxyListFilters = {};
  for (const name of ["type", "country", "orderId", "expiresBefore"] as const) {
    const value = args[name];
    if (value === undefined) continue;
    if (typeof value === "string") filters[name] = value;
    else failures.push({ property: name, reason: `${name} must be a string (got ${JSON.stringify(value)}).` });
  }
  try {
    parseExpiresBefore(filters.expiresBefore);
  } catch (error) {
    failures.push({ property: "expiresBefore", reason: error instanceof Error ? error.message : String(error) });
  }
  if (args.includeCredentials !== undefined && typeof args.includeCredentials !== "boolean") {
    failures.push({ property: "includeCredentials", reason: "includeCredentials must be true or false." });
  }
  return failures.length > 0 ? { failures } : { filters, includeCredentials: args.includeCredentials === true };
}

/** What getProxyHealth checks, and how. */
export interface ProxyHealthQuery {
  filters: ProxyListFilters;
  /** Only the proxies of these orders. */
  orderIds?: string[];
  settings: HealthSettings;
}

/**
 * Checks the matching proxies through themselves (health/): listed with their credentials, which go no further than
 * each proxy's handshake; the report holds none.
 */
export async function checkProxyHealth(api: ProxyApiClient, query: ProxyHealthQuery): Promise<HealthOutput> {
  const listed = await listProxies(api, query.filters, true);
  const wanted = query.orderIds && new Set(query.orderIds);
  if (!wanted) return checkHeld(listed, query.settings);
  // A list without `order_id` (optional in the contract: the seed's four fields) cannot say whose a proxy is: the
  // orders are read by id (listProxies did so already when the filters name orders, and said whose each proxy is).
  if (listed.proxies.some((p) => p.orderId === undefined)) {
    return checkHeld(splitCredentials((await proxiesOfOrders(api, [...wanted])).filter(matcher(query.filters))), query.settings);
  }
  const keep = listed.proxies.map((p) => p.orderId !== undefined && wanted.has(p.orderId));
  const held = { proxies: listed.proxies.filter((_, i) => keep[i]), credentials: listed.credentials.filter((_, i) => keep[i]) };
  return checkHeld(held, query.settings);
}

/** getProxyHealth's arguments as an invoke receives them: the query, or what is wrong with them. */
export type GetProxyHealthCall = { query: ProxyHealthQuery; failures?: undefined } | { failures: Array<{ property: string; reason: string }> };

/** Checks getProxyHealth's arguments (untyped, from an invoke or a program); one failure per bad one. */
export function checkGetProxyHealthArgs(args: Record<string, unknown>): GetProxyHealthCall {
  const listing = checkGetProxiesArgs({ type: args.type, country: args.country, orderId: args.orderId, expiresBefore: args.expiresBefore });
  const failures = [...(listing.failures ?? [])];
  const { target, timeout, concurrency, orderIds } = args;
  const problem = healthCheckProblem({ target, timeout, concurrency }, "");
  if (problem) failures.push({ property: problem.field, reason: problem.reason });
  const ids = orderIds === undefined || orderIds === null ? undefined : orderIds;
  if (ids !== undefined && !(Array.isArray(ids) && ids.every((id) => typeof id === "string"))) {
    failures.push({ property: "orderIds", reason: `orderIds must be a list of order ids, such as ["ord_..."] (got ${JSON.stringify(ids)}).` });
  }
  if (failures.length > 0 || listing.failures) return { failures };
  const settings = healthSettings({
    target: target as string,
    ...(typeof timeout === "string" ? { timeout } : {}),
    ...(typeof concurrency === "number" ? { concurrency } : {}),
  });
  return { query: { filters: listing.filters, ...(ids ? { orderIds: ids as string[] } : {}), settings } };
}
