/**
 * `getProxies` against the API: what the program-side function of the dynamic SDK and the invoke of the provider
 * plugin both run.
 */
import type { ProxyApiClient, ProxyFilters } from "../client/client";
import { splitCredentials, type ProxyCredential, type ProxyInfo } from "./order-state";

/** Filters of getProxies. */
export type ProxyListFilters = Pick<ProxyFilters, "type" | "country" | "orderId">;

/** The proxies, and their credentials only when asked for. */
export interface ProxyList {
  proxies: ProxyInfo[];
  credentials: ProxyCredential[];
}

/** Every matching proxy across all pages; credentials stay empty unless `includeCredentials`. */
export async function listProxies(api: ProxyApiClient, filters: ProxyListFilters, includeCredentials: boolean): Promise<ProxyList> {
  // The contract's largest page: fewest round trips for large accounts.
  const { proxies, credentials } = splitCredentials(
    await api.listProxies({ type: filters.type, country: filters.country, orderId: filters.orderId, pageSize: 1000 }),
  );
  return { proxies, credentials: includeCredentials ? credentials : [] };
}

