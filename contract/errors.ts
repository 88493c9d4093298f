/**
 * The contract's error table: for each status, its code(s) and the kind of error a client raises. The client maps
 * each kind to its error class; the sandbox answers with these codes.
 */

/** The kinds of API error a client distinguishes; the client has one error class per kind. */
export type ApiErrorKind =
  | "InvalidRequestError"
  | "AuthenticationError"
  | "InsufficientBalanceError"
  | "PermissionError"
  | "NotFoundError"
  | "IdempotencyError"
  | "PlanNotFoundError"
  | "RateLimitError"
  | "ServerError"
  | "ProxyApiError";

/** One row of the table. */
export interface ErrorRow {
  status: number;
  code: string;
  kind: ApiErrorKind;
  /** When the contract says this status and code are sent. */
  when: string;
}

/** Every status and code of the contract (docs/api-contract.md, "Errors"); the first row per status is its default. */
export const ERROR_TABLE: readonly ErrorRow[] = [
  { status: 400, code: "invalid_request", kind: "InvalidRequestError", when: "malformed JSON, a missing or ill-typed field, a bad Idempotency-Key" },
  { status: 401, code: "unauthenticated", kind: "AuthenticationError", when: "no key, or a key that is not accepted" },
  { status: 402, code: "insufficient_balance", kind: "InsufficientBalanceError", when: "the account cannot pay; nothing was charged" },
  { status: 403, code: "forbidden", kind: "PermissionError", when: "the key may not do this" },
  { status: 404, code: "not_found", kind: "NotFoundError", when: "no such order (also another account's)" },
  { status: 409, code: "idempotency_key_in_use", kind: "IdempotencyError", when: "the same key is still being processed" },
  { status: 422, code: "plan_not_found", kind: "PlanNotFoundError", when: "unknown plan id" },
  { status: 422, code: "idempotency_key_reused", kind: "IdempotencyError", when: "the same key with a different body" },
  { status: 429, code: "rate_limited", kind: "RateLimitError", when: "over the rate limit; Retry-After is sent" },
  { status: 500, code: "internal", kind: "ServerError", when: "server failure" },
  { status: 502, code: "unavailable", kind: "ServerError", when: "server failure" },
  { status: 503, code: "unavailable", kind: "ServerError", when: "server failure; Retry-After may be sent" },
  { status: 504, code: "unavailable", kind: "ServerError", when: "server failure" },
];

/** The code for a status when the server sent none. */
export function defaultErrorCode(status: number): string {
  const row = ERROR_TABLE.find((r) => r.status === status);
  if (row) return row.code;
  if (status >= 500) return "internal";
  return status === 422 ? "unprocessable" : "http_error";
}

/** The kind of error for a status and (possibly missing or unknown) code. */
export function errorKind(status: number, code: string | undefined): ApiErrorKind {
  const exact = ERROR_TABLE.find((r) => r.status === status && r.code === code);
  if (exact) return exact.kind;
  // An idempotency code under a status the table does not pair it with is still an idempotency error, as clients have
  // always read it; other codes do not override their status.
  const byCode = ERROR_TABLE.find((r) => r.code === code && r.kind === "IdempotencyError");
  if (byCode) return byCode.kind;
  if (status === 422) return "ProxyApiError";
  const byStatus = ERROR_TABLE.find((r) => r.status === status);
  if (byStatus) return byStatus.kind;
  return status >= 500 ? "ServerError" : "ProxyApiError";
}
