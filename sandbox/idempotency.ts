/**
 * The contract's idempotency rules for `POST /v1/orders`, kept apart from HTTP so they read as a table.
 */
import { createHash } from "node:crypto";

/** How long a key is remembered. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** One remembered key. */
export interface IdempotencyRecord {
  key: string;
  /** Hash of the request body the key was first used with. */
  bodyHash: string;
  /** The order made for it; undefined while the first request is still running. */
  orderId?: string;
  createdAt: number;
}

/** What to do with a POST carrying an idempotency key. */
export type IdempotencyDecision =
  | { kind: "new" }
  | { kind: "replay"; orderId: string }
  | { kind: "in_use" }
  | { kind: "reused" };

/** Hash of a request body, independent of key order and white space. */
export function bodyHash(body: Record<string, unknown>): string {
  const canonical = JSON.stringify(Object.keys(body).sort().map((k) => [k, body[k]]));
  return createHash("sha256").update(canonical).digest("hex");
}

/** Decides per the contract: same key and body replays, another body is refused, a running request is in use. */
export function decide(record: IdempotencyRecord | undefined, hash: string, now: number): IdempotencyDecision {
  if (!record || now - record.createdAt > IDEMPOTENCY_WINDOW_MS) {
    return { kind: "new" };
  }
  if (record.bodyHash !== hash) {
    return { kind: "reused" };
  }
  if (record.orderId === undefined) {
    return { kind: "in_use" };
  }
  return { kind: "replay", orderId: record.orderId };
}

/** Visible ASCII, 1 to 255 characters. */
export function isValidKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}
