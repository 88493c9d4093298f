/**
 * Wire schemas for every record of the contract (docs/api-contract.md), and their conversion to the camelCase
 * records the rest of the project uses.
 *
 * Tolerance rules from the contract: unknown fields are kept (renamed to camelCase), the seed's four proxy fields are
 * required, enumerations (`type`, `status`) accept values we do not know, and a list response holding only `data`
 * is a single, complete page.
 */
import { z } from "zod";

const proxyWire = z.looseObject({
  ip: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  type: z.string(),
  country: z.string(),
  id: z.string().optional(),
  order_id: z.string().optional(),
  protocol: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  city: z.string().optional(),
  expires_at: z.string().optional(),
});

/** `GET /v1/proxies` response. */
export const proxyPageWire = z.looseObject({
  data: z.array(proxyWire),
  has_more: z.boolean().optional(),
  next_cursor: z.string().nullable().optional(),
});

const statusReasonWire = z.looseObject({
  code: z.string().optional(),
  message: z.string().optional(),
});

/** Order record (`POST /v1/orders`, `GET /v1/orders/{id}`). */
export const orderWire = z.looseObject({
  id: z.string().min(1),
  plan_id: z.string(),
  status: z.string().min(1),
  status_reason: statusReasonWire.nullable().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  ready_at: z.string().nullable().optional(),
  estimated_ready_at: z.string().nullable().optional(),
  proxies: z.array(proxyWire).optional(),
});

/** `GET /v1/usage` response. */
export const usageWire = z.looseObject({
  period: z.looseObject({ start: z.string(), end: z.string() }),
  as_of: z.string(),
  bandwidth: z.looseObject({ used_bytes: z.number().int().min(0), limit_bytes: z.number().int().min(0).nullable() }),
  requests: z.looseObject({ used: z.number().int().min(0), limit: z.number().int().min(0).nullable() }),
});

/**
 * Error bodies: problem+json, plus the shapes the contract says clients must also accept
 * (`{ error: { code, message } }` and `{ detail, code }`). Anything else is read as plain text.
 */
export const problemWire = z.looseObject({
  type: z.string().optional(),
  title: z.string().optional(),
  status: z.number().optional(),
  detail: z.string().optional(),
  code: z.string().optional(),
  request_id: z.string().optional(),
  message: z.string().optional(),
  errors: z.array(z.looseObject({ pointer: z.string().optional(), detail: z.string().optional() })).optional(),
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).optional(),
});

/** The known values of `Proxy.type`; any other string is kept as the server sent it. */
export const KNOWN_PROXY_TYPES = ["datacenter", "isp", "residential", "mobile"] as const;

/**
 * A proxy assigned to the account. The four seed fields are always present. Fields the contract does not name are
 * kept at run time, renamed to camelCase (as are the other records' unknown fields), but are not typed.
 */
export interface Proxy {
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

/** Why an order failed or was cancelled. */
export interface StatusReason {
  code?: string;
  message?: string;
}

/** An order: a purchase of one plan, and its provisioning status. */
export interface Order {
  id: string;
  planId: string;
  /** `pending`, `provisioning`, `active`, `failed`, `cancelled`, `expired`, or a state the contract does not name. */
  status: string;
  statusReason?: StatusReason | null;
  createdAt?: string;
  updatedAt?: string;
  readyAt?: string | null;
  estimatedReadyAt?: string | null;
  /** Present (possibly empty) once the order is active. */
  proxies?: Proxy[];
}

/** Usage for the current billing period. `null` limits mean unlimited. */
export interface Usage {
  period: { start: string; end: string };
  asOf: string;
  bandwidth: { usedBytes: number; limitBytes: number | null };
  requests: { used: number; limit: number | null };
}

/** One page of `GET /v1/proxies`. */
export interface ProxyPage {
  proxies: Proxy[];
  /** Cursor of the next page, or undefined when this page is the last. */
  nextCursor?: string;
}

function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** Renames every key to camelCase, recursively, keeping values as they are. */
function camelizeKeys(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(camelizeKeys);
  }
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [camelCase(k), camelizeKeys(v)]));
  }
  return value;
}

/** Converts a validated proxy page to the client's record. */
export function toProxyPage(wire: z.infer<typeof proxyPageWire>): ProxyPage {
  const proxies = camelizeKeys(wire.data) as Proxy[];
  // A page without `has_more` is the seed's shape: one complete page.
  const nextCursor = wire.has_more === true && wire.next_cursor ? wire.next_cursor : undefined;
  return { proxies, nextCursor };
}

/** Converts a validated order to the client's record. */
export function toOrder(wire: z.infer<typeof orderWire>): Order {
  return camelizeKeys(wire) as Order;
}

/** Converts a validated usage record to the client's record. */
export function toUsage(wire: z.infer<typeof usageWire>): Usage {
  return camelizeKeys(wire) as Usage;
}

/** Describes schema problems by field path, without echoing the values (they may hold credentials). */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(body)";
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}
