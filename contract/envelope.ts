/**
 * The record inside an envelope. The seed wraps its list in `{ "data": [...] }`, and leaves the order's and the usage's
 * bodies unspecified: an API may wrap each record the same way (`{ "data": {...} }`), or in a member named after it
 * (`{ "order": {...} }`, `{ "usage": {...} }`, `{ "result": {...} }`), beside members that are not records (a
 * `meta` string, a `request_id`).
 */

/** The record an enveloped body holds: its `data` object, or else its only member that is an object; else undefined. */
export function envelopedRecord(body: unknown): Record<string, unknown> | undefined {
  if (!isRecord(body)) return undefined;
  if (isRecord(body.data)) return body.data;
  const records = Object.values(body).filter(isRecord);
  return records.length === 1 ? records[0] : undefined;
}

/** Whether `value` is a JSON object (not an array, not `null`). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
