/**
 * Wire schemas for every record of the contract (docs/api-contract.md), and their conversion to the camelCase
 * records of types.ts.
 *
 * The response schemas are lenient, for the client: unknown fields are kept (renamed to camelCase), the seed's four
 * proxy fields are required, enumerations (`type`, `status`) accept values we do not know, and a list response holding
 * only `data` is a single, complete page. The request schema is strict, for the sandbox: it is what the API accepts.
 */
import { z } from "zod";
import type { Same } from "./shapes";
import { envelopedRecord, isRecord } from "./envelope";
import { readState } from "./states";
import { unixTimeMs } from "./unix-time";
import type { Order, ProxyPage, ProxyRecord, StatusReason, Usage } from "./types";

/**
 * A field the contract says an API always sends, which a client still reads when it is missing (a real API may
 * leave it out): optional in the schema the client parses with, required of the sandbox's answers (`contractRequired`).
 */
const requiredByContract = new WeakSet<z.ZodType>();

/** `schema` as an API keeping the contract sends it: every field the contract requires is required. */
export function contractRequired(schema: z.ZodObject): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [name, field] of Object.entries(schema.shape)) {
    if (requiredByContract.has(field) && field instanceof z.ZodOptional) shape[name] = field.unwrap() as z.ZodType;
  }
  return schema.extend(shape);
}

function tolerated<T extends z.ZodType>(schema: T, description: string) {
  const field = schema.optional().meta({ description });
  requiredByContract.add(field);
  return field;
}

/** A field's description, as its record type's TSDoc and the OpenAPI document show it. */
const about = (description: string) => ({ description });

/** A proxy assigned to the account. The four seed fields are always present. */
export const proxyWire = z.looseObject({
  ip: z.string().min(1).meta(about("IPv4 or IPv6 address.")),
  port: z.number().int().min(1).max(65535).meta(about("Port, 1 to 65535.")),
  type: z.string().meta(about("`datacenter`, `isp`, `residential`, `mobile`, or a value this version does not know.")),
  country: z.string().meta(about("ISO 3166-1 alpha-2 country code, such as `US`.")),
  id: z.string().optional().meta(about("Stable id of the proxy.")),
  order_id: z.string().optional().meta(about("The order that provisioned it.")),
  protocol: z.string().optional().meta(about("`http` or `socks5`.")),
  username: z.string().optional().meta(about("Proxy user name (a credential).")),
  password: z.string().optional().meta(about("Proxy password (a credential).")),
  city: z.string().optional().meta(about("City of the proxy.")),
  expires_at: z.string().optional().meta(about("RFC 3339 time the proxy expires.")),
});

/** `GET /v1/proxies` response. */
export const proxyPageWire = z.looseObject({
  data: z.array(proxyWire),
  has_more: z.boolean().optional(),
  next_cursor: z.string().nullable().optional(),
});

/** Why an order failed or was cancelled: a stable code and a message for people. */
export const statusReasonWire = z.looseObject({
  code: z.string().optional().meta(about("A stable code, such as `out_of_stock`.")),
  message: z.string().optional().meta(about("What happened, for people.")),
});

/** An order: a purchase of one plan, and its provisioning status (`POST /v1/orders`, `GET /v1/orders/{id}`). */
export const orderWire = z.looseObject({
  id: z.string().min(1).meta(about("The order id, such as `ord_...`.")),
  plan_id: tolerated(z.string(), "The plan bought."),
  status: z
    .string()
    .min(1)
    .meta(about("`pending`, `provisioning`, `active`, `failed`, `cancelled`, `expired`, or a state the contract does not name.")),
  status_reason: tolerated(statusReasonWire.nullable(), "Set when the order failed or was cancelled."),
  created_at: tolerated(z.string(), "RFC 3339."),
  updated_at: tolerated(z.string(), "RFC 3339."),
  ready_at: tolerated(z.string().nullable(), "RFC 3339, set once active."),
  estimated_ready_at: z.string().nullable().optional().meta(about("RFC 3339 hint while not terminal.")),
  expires_at: z
    .string()
    .nullable()
    .optional()
    .meta(
      about(
        "RFC 3339 time the order expires. Not in the contract's order record (its proxies carry `expires_at`); read when an API sends it, as the tolerant reading of an order-level expiry.",
      ),
    ),
  proxies: z.array(proxyWire).optional().meta(about("Present (possibly empty) once the order is active.")),
});

/** Usage for the current billing period (`GET /v1/usage`). `null` limits mean unlimited; bytes are integers. */
export const usageWire = z.looseObject({
  period: z.looseObject({ start: z.string(), end: z.string() }).meta(about("The billing period, start and end in RFC 3339.")),
  as_of: z.string().meta(about("When the figures were taken, RFC 3339.")),
  bandwidth: z
    .looseObject({ used_bytes: z.number().int().min(0), limit_bytes: z.number().int().min(0).nullable() })
    .meta(about("Bytes used this period, and the allowance (`null`: unlimited).")),
  requests: z
    .looseObject({ used: z.number().int().min(0), limit: z.number().int().min(0).nullable() })
    .meta(about("Requests made this period, and the allowance (`null`: unlimited).")),
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

/** A wire field's name in camelCase, as the records of types.ts have it. */
export function camelCase(key: string): string {
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

/** A wire record's fields the contract names, without the index signature that keeps unknown ones. */
type Known<T> = { [K in keyof T as string extends K ? never : K]: T[K] extends object | null | undefined ? KnownInner<T[K]> : T[K] };
type KnownInner<T> = T extends ReadonlyArray<infer Item> ? Known<Item>[] : T extends object ? Known<T> : T;

/** The order record as an API sends it: what the sandbox's views list, field by field. */
export type OrderWire = Known<z.output<typeof orderWire>>;
/** A proxy record as an API sends it. */
export type ProxyWire = Known<z.output<typeof proxyWire>>;
/** The usage record as an API sends it. */
export type UsageWire = Known<z.output<typeof usageWire>>;

// The records of types.ts are the schemas' shapes renamed (records.ts is written from these schemas by `npm run gen`):
// the same both ways, so a schema changed and not regenerated fails the type check here.
const recordsFollowTheSchemas: [
  Same<ProxyRecord, Camelize<ProxyWire>>,
  Same<StatusReason, Camelize<Known<z.output<typeof statusReasonWire>>>>,
  Same<Order, Camelize<OrderWire>>,
  Same<Usage, Camelize<UsageWire>>,
] = [true, true, true, true];
void recordsFollowTheSchemas;

// The conversions below return those records: their return types are checked, not cast.

/** Converts a validated proxy page to the client's record. */
export function toProxyPage(wire: z.infer<typeof proxyPageWire>): ProxyPage {
  // A page without `has_more` is the seed's shape: one complete page.
  const nextCursor = wire.has_more === true && wire.next_cursor ? wire.next_cursor : undefined;
  return { proxies: camelize(wire.data), nextCursor };
}

/** Converts a validated order to the client's record. */
export function toOrder(wire: z.infer<typeof orderWire>): Order {
  const order: Order = camelize(wire);
  return { ...order, status: readState(order.status) };
}

/** Converts a validated usage record to the client's record. */
export function toUsage(wire: z.infer<typeof usageWire>): Usage {
  return camelize(wire);
}

/**
 * Validates a body against a wire schema: its data, or what is wrong with it (by field path, values never echoed).
 * Forms that say the same as the contract's are read as it (at any depth):
 * - a `null` where the schema has a list is an empty list: Go writes an empty (nil) slice so;
 * - a `null` where the schema has an optional field that is not nullable is the field left out: many APIs write an
 *   unset field so (Go writes a nil pointer as `null`). A required field that is `null` is still an error;
 * - an identifier (`id`, `*_id`) or the list's `next_cursor` sent as an integer, as APIs keyed by database sequences
 *   send them (a cursor that is the last id seen), is its decimal string: both are opaque to the client;
 * - a time (`*_at`, usage's `as_of`, `start` and `end`) sent as a number, as APIs that write Unix times send it
 *   (Stripe's), is that Unix time (seconds, or milliseconds: contract/unix-time.ts) written in RFC 3339;
 * - an integer sent as a string of digits (`"8080"`), as protobuf's JSON writes 64-bit integers, is that integer;
 * - a field named in camelCase (`planId`), as APIs written in JavaScript or Java name them, is that field;
 * - a string where the schema has a record of a `message` (`"status_reason": "out of stock"`) is that message;
 * - a time with no zone (`2027-01-01 00:00:00`, as APIs that write their database's times send it) is that time in
 *   UTC, where the machine's local time would move every expiry by its offset.
 * A record that is not the body itself but inside an envelope (`{ "data": { ...order } }`, the seed's list's envelope
 * around one record, or `{ "order": { ... } }`: envelope.ts) is read from there. `rewritten`, when given, is told each such form a read record was in.
 */
export function readWire<S extends z.ZodType>(
  schema: S,
  body: unknown,
  rewritten?: string[],
): { ok: true; data: z.infer<S> } | { ok: false; problem: string } {
  const found: string[] = [];
  const result = schema.safeParse(asContract(schema, body, "", found));
  if (result.success) {
    rewritten?.push(...found);
    return { ok: true, data: result.data };
  }
  const enveloped = envelopedRecord(body);
  const inEnvelope: string[] = ["the record inside an envelope"];
  const inner = enveloped === undefined ? undefined : schema.safeParse(asContract(schema, enveloped, "", inEnvelope));
  if (!inner?.success) return { ok: false, problem: describeIssues(result.error) };
  rewritten?.push(...inEnvelope);
  return { ok: true, data: inner.data };
}

/**
 * `value` with the forms readWire reads as the contract's rewritten so, at any depth of `schema`; each rewrite other
 * than of a `null` is named in `found` (`port as a string of digits`), by its field's path.
 */
function asContract(schema: z.ZodType, value: unknown, path: string, found: string[]): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) return asContract(schema.unwrap() as z.ZodType, value, path, found);
  if (schema instanceof z.ZodArray && Array.isArray(value)) return value.map((item) => asContract(schema.element as z.ZodType, item, `${path}[]`, found));
  if (!(schema instanceof z.ZodObject) || !isRecord(value)) return value;
  const read: Record<string, unknown> = { ...value };
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const at = path ? `${path}.${name}` : name;
    const camel = camelCase(name);
    if (read[name] === undefined && camel !== name && read[camel] !== undefined) {
      read[name] = read[camel];
      delete read[camel];
      found.push(`\`${at}\` named in camelCase`);
    }
    const given = read[name];
    const scalar = typeof given === "number" || typeof given === "string" ? scalarForm(name, field, given) : undefined;
    if (given === null && isList(field)) read[name] = [];
    else if (given === null && field instanceof z.ZodOptional && !field.safeParse(null).success) delete read[name];
    else if (scalar) {
      read[name] = scalar.value;
      found.push(`\`${at}\` ${scalar.form}`);
    } else if (given !== undefined && given !== null) read[name] = asContract(field, given, at, found);
  }
  return read;
}

/** Whether `schema` is a list, optional or not. */
function isList(schema: z.ZodType): boolean {
  return schema instanceof z.ZodOptional || schema instanceof z.ZodNullable ? isList(schema.unwrap() as z.ZodType) : schema instanceof z.ZodArray;
}

/** The wire's times: `*_at`, and usage's `as_of` and its period's `start` and `end`. */
const TIME_FIELD = /_at$|^as_of$|^start$|^end$/;

/** A date and time with no zone (`2027-01-01T00:00:00`, or SQL's `2027-01-01 00:00:00`), which Date reads as local. */
const NAIVE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?$/;

/**
 * The contract's form of a number or string sent for field `name` (readWire's list), and the form it came in; undefined
 * when it is in the contract's form already, or in none readWire reads.
 */
function scalarForm(name: string, field: z.ZodType, given: number | string): { value: unknown; form: string } | undefined {
  const naive = typeof given === "string" && TIME_FIELD.test(name) && NAIVE_TIME.test(given);
  if (naive) return { value: `${given.replace(" ", "T")}Z`, form: "without a time zone (read as UTC)" };
  if (field.safeParse(given).success) return undefined;
  if (typeof given === "number") {
    if (/(^|_)(id|cursor)$/.test(name) && Number.isSafeInteger(given)) return { value: String(given), form: "as a number" };
    if (TIME_FIELD.test(name) && Number.isFinite(given) && given > 0) return { value: new Date(unixTimeMs(given)).toISOString(), form: "as a number" };
    return undefined;
  }
  if (/^\d{1,15}$/.test(given) && field.safeParse(Number(given)).success) return { value: Number(given), form: "as a string of digits" };
  if (field.safeParse({ message: given }).success) return { value: { message: given }, form: "as a string" };
  return undefined;
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
