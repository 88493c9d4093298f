/**
 * Every record the contract allows (docs/api-contract.md), generated: the seed's four proxy fields always, each
 * optional field absent, `null` (read as absent) or set, unknown `type` values, and unknown fields of any JSON value,
 * at every level. The generative tests feed them to both front ends through a record API (record-api.ts).
 */
import fc from "fast-check";
import type { WireRecord } from "./record-api";

/** The seed's proxy record: its four fields and nothing else, as an API of proxies allow-listed by IP sends it. */
export const SEED_PROXY: WireRecord = Object.freeze({ ip: "203.0.113.7", port: 8080, type: "residential", country: "US" });

const PROXY_FIELDS = ["ip", "port", "type", "country", "id", "order_id", "protocol", "username", "password", "city", "expires_at"];
const ORDER_FIELDS = ["id", "plan_id", "status", "status_reason", "created_at", "updated_at", "ready_at", "estimated_ready_at", "expires_at", "proxies"];
const USAGE_FIELDS = ["period", "as_of", "bandwidth", "requests"];

/** Fields this version does not know, of any JSON value: an API is free to add them. */
function unknownFields(known: readonly string[]): fc.Arbitrary<WireRecord> {
  const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,11}$/).filter((k) => !known.includes(k));
  return fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
}

/** A record of `fields`, some always present, with unknown fields beside them. */
function record(fields: Record<string, fc.Arbitrary<unknown>>, required: string[], known: string[]): fc.Arbitrary<WireRecord> {
  const base = fc.record(fields, { requiredKeys: required }) as fc.Arbitrary<WireRecord>;
  return fc.tuple(unknownFields(known), base).map(([extra, fieldsOf]) => ({ ...extra, ...fieldsOf }));
}

/** An optional field: a value, or `null` (which the client reads as absent); absence is the record's choice. */
const orNull = <T>(value: fc.Arbitrary<T>) => fc.oneof(value, fc.constant(null));

const time = fc.date({ min: new Date("2020-01-01T00:00:00Z"), max: new Date("2035-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());
const text = fc.string({ maxLength: 24 });
/** An expiry of an active order or proxy: ahead (one past makes the order spent, which the next `up` replaces). */
const ahead = fc.date({ min: new Date("2031-01-01T00:00:00Z"), max: new Date("2035-01-01T00:00:00Z"), noInvalidDate: true }).map((d) => d.toISOString());

/** Any proxy record the contract allows, with the seed's four fields only among them. */
export function proxyRecord(address: fc.Arbitrary<{ ip: string; port: number }> = fc.record({ ip: fc.oneof(fc.ipV4(), fc.ipV6()), port: fc.integer({ min: 1, max: 65535 }) })): fc.Arbitrary<WireRecord> {
  const fields = {
    type: fc.oneof(fc.constantFrom("datacenter", "isp", "residential", "mobile"), text),
    country: fc.oneof(fc.constantFrom("US", "DE", "GB", "FR"), text),
    id: orNull(text),
    order_id: orNull(text),
    protocol: orNull(fc.constantFrom("http", "socks5")),
    username: orNull(text),
    password: orNull(text),
    city: orNull(text),
    expires_at: orNull(ahead),
  };
  const generated = fc.tuple(address, record(fields, ["type", "country"], PROXY_FIELDS)).map(([where, rest]) => ({ ...rest, ...where }));
  return fc.oneof({ arbitrary: generated, weight: 9 }, { arbitrary: address.map((where) => ({ ...SEED_PROXY, ...where })), weight: 1 });
}

/** An active order record the contract allows (without `id` and `plan_id`, which the record API sets). */
export function activeOrder(proxy: fc.Arbitrary<WireRecord> = proxyRecord()): fc.Arbitrary<WireRecord> {
  const fields = {
    status: fc.constant("active"),
    proxies: fc.array(proxy, { maxLength: 3 }),
    status_reason: fc.constant(null),
    created_at: orNull(time),
    updated_at: orNull(time),
    ready_at: orNull(time),
    estimated_ready_at: fc.constant(null),
    expires_at: orNull(ahead),
  };
  return record(fields, ["status", "proxies"], ORDER_FIELDS);
}

/** What a purchase answers: `pending` with what the contract lets it leave out, or the active order at once. */
export function purchaseAnswer(active: WireRecord): fc.Arbitrary<WireRecord> {
  const pending = record({ status: fc.constant("pending"), estimated_ready_at: orNull(time), created_at: orNull(time), proxies: fc.constant(null) }, ["status"], ORDER_FIELDS);
  return fc.oneof(pending, fc.constant(active));
}

/** Any usage record the contract allows. */
export function usageRecord(): fc.Arbitrary<WireRecord> {
  const count = fc.nat({ max: Number.MAX_SAFE_INTEGER });
  const fields = {
    period: record({ start: time, end: time }, ["start", "end"], ["start", "end"]),
    as_of: time,
    bandwidth: record({ used_bytes: count, limit_bytes: orNull(count) }, ["used_bytes", "limit_bytes"], ["used_bytes", "limit_bytes"]),
    requests: record({ used: count, limit: orNull(count) }, ["used", "limit"], ["used", "limit"]),
  };
  return record(fields, USAGE_FIELDS, USAGE_FIELDS);
}

/** The seed's minimal usage record: the contract's fields, nothing more, both limits unlimited. */
export const MINIMAL_USAGE: WireRecord = Object.freeze({
  period: { start: "2026-12-01T00:00:00Z", end: "2027-01-01T00:00:00Z" },
  as_of: "2026-12-05T00:00:00Z",
  bandwidth: { used_bytes: 0, limit_bytes: null },
  requests: { used: 0, limit: null },
});
