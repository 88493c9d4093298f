/**
 * `getProxies` against the API: what the program-side function of the dynamic SDK and the invoke of the provider
 * plugin both run.
 */
import type { ProxyApiClient, ProxyFilters } from "../client/client";
import { ProxyError } from "../client/errors";
import { splitCredentials, type ProxyCredential, type ProxyInfo } from "./order-state";

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
  const before = parseExpiresBefore(filters.expiresBefore);
  // The contract's largest page: fewest round trips for large accounts.
  const all = await api.listProxies({ type: filters.type, country: filters.country, orderId: filters.orderId, pageSize: 1000 });
  const expiring = before === undefined ? all : all.filter((p) => p.expiresAt !== undefined && Date.parse(p.expiresAt) < before);
  const { proxies, credentials } = splitCredentials(expiring);
  return { proxies, credentials: includeCredentials ? credentials : [] };
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
