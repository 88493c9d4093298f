/**
 * Where an order lives, and when a `404` may speak for it (docs/going-live.md).
 *
 * Each order records the API it was bought from (its base URL) and a one-way fingerprint of the key that bought it.
 * - An order recorded at another API than the configured one is never read, renewed or dropped: that API's `404`
 *   says nothing about it. Preview and up name it, with the two ways forward (point back, or replace it there).
 * - The contract answers `404` for another account's order too. So a `404` to a key other than the one that bought the
 *   order counts only once that key has been seen reading another order bought with the same key: a key rotated
 *   within the account sees the account's other orders; a key of another account does not. A lone order read with a
 *   rotated key is therefore kept, and the message says how to drop it by hand.
 * - An order recorded by an earlier release has neither field, and is treated as before: at the configured API,
 *   bought with the configured key. Nothing is written to the state until the order is next created or updated, so a
 *   stack of that release takes over without a change.
 */
import type { ProxyApiClient } from "../client/client";

/** What an order records of where it lives (both absent for an order recorded by an earlier release). */
export interface OrderOrigin {
  apiBaseUrl?: string;
  apiKeyFingerprint?: string;
}

/** The API a client calls, as an order records it. */
export type ApiIdentity = Pick<ProxyApiClient, "baseUrl" | "keyFingerprint">;

/** The origin an order bought (or adopted, or imported) through `api` records. */
export function originOf(api: ApiIdentity): Required<OrderOrigin> {
  return { apiBaseUrl: api.baseUrl, apiKeyFingerprint: api.keyFingerprint };
}

/** The origin's fields as stored, leaving out those an earlier release did not record. */
export function storedOrigin(origin: OrderOrigin | undefined): OrderOrigin {
  return {
    ...(origin?.apiBaseUrl ? { apiBaseUrl: origin.apiBaseUrl } : {}),
    ...(origin?.apiKeyFingerprint ? { apiKeyFingerprint: origin.apiKeyFingerprint } : {}),
  };
}

/** A base URL compared as the API sees it: scheme and host in lower case, no default port, no trailing slash. */
function normalized(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`.toLowerCase();
  } catch {
    return baseUrl.replace(/\/+$/, "").toLowerCase();
  }
}

/** The API the order lives at, when it is not the one `api` calls; undefined when it is (or was not recorded). */
export function otherApi(origin: OrderOrigin | undefined, api: ApiIdentity): string | undefined {
  const recorded = origin?.apiBaseUrl;
  return recorded !== undefined && normalized(recorded) !== normalized(api.baseUrl) ? recorded : undefined;
}

/**
 * An account's key as origin.ts judges it: its API, and the fingerprints of the keys whose orders it has been seen
 * reading in this process, the evidence that a key belongs to the account of an order it did not buy (account.ts).
 */
export interface WitnessingKey {
  api: ApiIdentity;
  witnessedKeys: Set<string>;
}

/** Records that `account`'s key read an order bought with the key of `origin` (so both keys see one account). */
export function witness(account: WitnessingKey, origin: OrderOrigin | undefined): void {
  const fingerprint = origin?.apiKeyFingerprint;
  if (fingerprint !== undefined && fingerprint !== account.api.keyFingerprint) account.witnessedKeys.add(fingerprint);
}

/**
 * Whether a `404` to `account`'s key may speak for an order of `origin`: the key bought it, the order records no key,
 * or the key has been seen reading another order bought with the same key.
 */
export function keySeesAccount(account: WitnessingKey, origin: OrderOrigin | undefined): boolean {
  const fingerprint = origin?.apiKeyFingerprint;
  return fingerprint === undefined || fingerprint === account.api.keyFingerprint || account.witnessedKeys.has(fingerprint);
}
