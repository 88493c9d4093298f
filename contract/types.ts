/**
 * The API's records as this package exposes them: camelCase, with the contract's field docs. These are plain
 * interfaces (no zod types reach a user's type check); wire.ts derives the same shapes from the schemas, and the
 * compiler checks that the two agree.
 */

/**
 * A proxy assigned to the account. The four seed fields are always present. Fields the contract does not name are
 * kept at run time, renamed to camelCase, but are not typed.
 */
export interface ProxyRecord {
  /** IPv4 or IPv6 address. */
  ip: string;
  /** Port, 1 to 65535. */
  port: number;
  /** `datacenter`, `isp`, `residential`, `mobile`, or a value this version does not know. */
  type: string;
  /** ISO 3166-1 alpha-2 country code, such as `US`. */
  country: string;
  /** Stable id of the proxy. */
  id?: string;
  /** The order that provisioned it. */
  orderId?: string;
  /** `http` or `socks5`. */
  protocol?: string;
  /** Proxy user name (a credential). */
  username?: string;
  /** Proxy password (a credential). */
  password?: string;
  /** City of the proxy. */
  city?: string;
  /** RFC 3339 time the proxy expires. */
  expiresAt?: string;
}

/** Why an order failed or was cancelled: a stable code and a message for people. */
export interface StatusReason {
  code?: string;
  message?: string;
}

/** An order: a purchase of one plan, and its provisioning status. */
export interface Order {
  /** The order id, such as `ord_...`. */
  id: string;
  /** The plan bought. */
  planId: string;
  /** `pending`, `provisioning`, `active`, `failed`, `cancelled`, `expired`, or a state the contract does not name. */
  status: string;
  /** Set when the order failed or was cancelled. */
  statusReason?: StatusReason | null;
  /** RFC 3339. */
  createdAt?: string;
  /** RFC 3339. */
  updatedAt?: string;
  /** RFC 3339, set once active. */
  readyAt?: string | null;
  /** RFC 3339 hint while not terminal. */
  estimatedReadyAt?: string | null;
  /**
   * RFC 3339 time the order expires. Not in the contract's order record (its proxies carry `expires_at`); read when
   * an API sends it, as the tolerant reading of an order-level expiry.
   */
  expiresAt?: string | null;
  /** Present (possibly empty) once the order is active. */
  proxies?: ProxyRecord[];
}

/** Usage for the current billing period. `null` limits mean unlimited; bytes are integers. */
export interface Usage {
  period: { start: string; end: string };
  asOf: string;
  bandwidth: { usedBytes: number; limitBytes: number | null };
  requests: { used: number; limit: number | null };
}

/** One page of `GET /v1/proxies`. */
export interface ProxyPage {
  proxies: ProxyRecord[];
  /** Cursor of the next page, or undefined when this page is the last. */
  nextCursor?: string;
}
