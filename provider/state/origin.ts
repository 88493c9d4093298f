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
 * - An order recorded by an earlier release has neither field. It learns them where a read proves it lives: a
 *   refresh that finds it at the configured API with the configured key records them, and so does the first `up` after
 *   the upgrade (an update in place that reads the order once; order-provider.ts). Until then a `404` speaks for it
 *   only once this process has read some other order at the configured API: a stack that moved APIs before its orders
 *   recorded where they live finds none of them there, and keeps them all.
 */
import type { ProxyApiClient } from "../../client";

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

/**
 * The origin an order just found at `api` records: its own, or, for one an earlier release recorded without it,
 * `api`'s (the read proves it lives there).
 */
export function foundAt(origin: OrderOrigin | undefined, api: ApiIdentity): OrderOrigin {
  return origin?.apiBaseUrl ? storedOrigin(origin) : originOf(api);
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
 * An account's key as origin.ts judges it: its API, the fingerprints of the keys whose orders it has been seen reading
 * in this process (the evidence that a key belongs to the account of an order it did not buy), and whether it has read
 * any order at all (account.ts).
 */
export interface WitnessingKey {
  api: ApiIdentity;
  witnessedKeys: Set<string>;
  readAnOrder: boolean;
}

/** Records that `account`'s key read an order of `origin` (so both keys see one account, and orders live here). */
export function witness(account: WitnessingKey, origin: OrderOrigin | undefined): void {
  account.readAnOrder = true;
  const fingerprint = origin?.apiKeyFingerprint;
  if (fingerprint !== undefined && fingerprint !== account.api.keyFingerprint) account.witnessedKeys.add(fingerprint);
}

/** Whether the order records no origin: an earlier release made it (undefined: nothing is known of it, as on import). */
export function unrecorded(origin: OrderOrigin | undefined): boolean {
  return origin !== undefined && !origin.apiBaseUrl;
}

/**
 * Whether a `404` to `account`'s key may speak for an order of `origin`: the key bought it, or has been seen reading
 * another order bought with the same key; for an order that records no origin, once the key has read any order here.
 */
export function keySeesAccount(account: WitnessingKey, origin: OrderOrigin | undefined): boolean {
  if (unrecorded(origin)) return account.readAnOrder;
  const fingerprint = origin?.apiKeyFingerprint;
  return fingerprint === undefined || fingerprint === account.api.keyFingerprint || account.witnessedKeys.has(fingerprint);
}
