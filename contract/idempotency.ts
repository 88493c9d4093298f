/**
 * The contract's rule for `Idempotency-Key` on `POST /v1/orders`.
 */

/** The longest key the API accepts. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** How long the API remembers a key: the same key and body within this window get the same order back. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** 1 to 255 visible ASCII characters (no spaces). */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key) && key.length <= MAX_IDEMPOTENCY_KEY_LENGTH;
}

/**
 * Whether an answer to a purchase says it is a replay (`Idempotent-Replayed: true`; its value in any case, as header
 * values are written by hand more often than names are).
 */
export function isReplayed(headers: Record<string, string | undefined>): boolean {
  return headers["idempotent-replayed"]?.trim().toLowerCase() === "true";
}

/** The rule in words, for error messages on both sides. */
export const IDEMPOTENCY_KEY_RULE = `1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (no spaces)`;
