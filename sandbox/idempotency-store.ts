/**
 * How the sandbox applies the contract's idempotency rules to `POST /v1/orders`, kept apart from HTTP so they read
 * as a table. The rules themselves (key format, window) come from the contract.
 */
import { createHash } from "node:crypto";
import { IDEMPOTENCY_WINDOW_MS } from "../contract";

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
