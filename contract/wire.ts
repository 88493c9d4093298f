/**
 * Wire schemas for every record of the contract (docs/api-contract.md), and their conversion to the camelCase
 * records of types.ts.
 *
 * The response schemas are lenient, for the client: unknown fields are kept (renamed to camelCase), the seed's four
 * proxy fields are required, enumerations (`type`, `status`) accept values we do not know, and a list response holding
 * only `data` is a single, complete page. The request schema is strict, for the sandbox: it is what the API accepts.
 */
import { z } from "zod";
import type { Order, ProxyPage, Usage } from "./types";

/** A proxy record (`GET /v1/proxies`, an order's `proxies`). */
export const proxyWire = z.looseObject({
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
  expires_at: z.string().nullable().optional(),
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

/** `POST /v1/orders` body, as the API accepts it: `plan_id` only, 1 to 128 characters. */
export const createOrderRequestWire = z.strictObject({
  plan_id: z.string().min(1).max(128).meta({ examples: ["dc-us-5"] }),
});

/**
 * The problem document (RFC 9457 with the contract's `code` and `request_id`) that the contract has an API send with
 * every 4xx and 5xx: what the sandbox sends and what the OpenAPI document promises. Clients read errors with the
 * lenient {@link problemWire}, since a real API may send another shape.
 */
export const problemDocumentWire = z.looseObject({
  type: z.string(),
  title: z.string(),
  status: z.number().int().min(400).max(599),
  detail: z.string(),
  instance: z.string().optional(),
  code: z.string().min(1),
  request_id: z.string().min(1),
  errors: z.array(z.looseObject({ pointer: z.string(), detail: z.string() })).optional(),
});

/** `snake_case` to `camelCase`, as a type. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A wire record with every key in camelCase, recursively: the shape `camelize` returns. */
type Camelize<T> = T extends ReadonlyArray<infer Item>
  ? Camelize<Item>[]
  : T extends object
    ? { [K in keyof T as K extends string ? CamelCase<K> : K]: Camelize<T[K]> }
    : T;

// A page of 1,000 proxies repeats the same dozen keys 1,000 times: each is renamed once per process.
const camelKeys = new Map<string, string>();

function camelCase(key: string): string {
  let camel = camelKeys.get(key);
  if (camel === undefined) {
    camel = key.includes("_") ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
    // Unknown fields are kept too, so the names are the API's to choose: the memo stays bounded all the same.
    if (camelKeys.size < 1000) camelKeys.set(key, camel);
  }
  return camel;
}

/** Renames every key to camelCase, recursively, keeping values (and unknown fields) as they are. */
function camelize<T>(value: T): Camelize<T> {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === "object") {
      // Plain loops, not Object.fromEntries over entries: this runs for every field of every proxy listed.
      const renamed: Record<string, unknown> = {};
      // A plain assignment is safe: no key renames to "__proto__" (that one becomes "_Proto__").
      for (const k of Object.keys(v)) renamed[camelCase(k)] = walk((v as Record<string, unknown>)[k]);
      return renamed;
    }
    return v;
  };
  // The one place where the runtime renaming meets its type; Camelize<T> states exactly what walk does.
  return walk(value) as Camelize<T>;
}

// The records of types.ts are the schemas' shapes renamed: these return types are checked, not cast.

/** Converts a validated proxy page to the client's record. */
export function toProxyPage(wire: z.infer<typeof proxyPageWire>): ProxyPage {
  // A page without `has_more` is the seed's shape: one complete page.
  const nextCursor = wire.has_more === true && wire.next_cursor ? wire.next_cursor : undefined;
  return { proxies: camelize(wire.data), nextCursor };
}

/** Converts a validated order to the client's record. */
export function toOrder(wire: z.infer<typeof orderWire>): Order {
  return camelize(wire);
}

/** Converts a validated usage record to the client's record. */
export function toUsage(wire: z.infer<typeof usageWire>): Usage {
  return camelize(wire);
}

/** Validates a body against a wire schema: its data, or what is wrong with it (by field path, values never echoed). */
export function readWire<S extends z.ZodType>(schema: S, body: unknown): { ok: true; data: z.infer<S> } | { ok: false; problem: string } {
  const result = schema.safeParse(body);
  return result.success ? { ok: true, data: result.data } : { ok: false, problem: describeIssues(result.error) };
}

/** Describes schema problems by field path, without echoing the values (they may hold credentials). */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(body)";
      return `${path}: ${issue.message}`;
    })
    .join("; ");
}
