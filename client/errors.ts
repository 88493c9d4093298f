/**
 * Errors of this package. `ProxyError` is the one root: every error the package raises extends it, so one
 * `instanceof ProxyError` catches them all. Callers branch on the class or on `code`, never on the message.
 *
 * API errors are built from values the client controls or from the server's text after redaction (see `redact` in
 * request.ts), so no error's message, stack, `cause` or JSON form carries the API key.
 */
import { defaultErrorCode, errorKind, type ApiErrorKind } from "../contract";

/** The root of every error this package raises. `code` is stable; the message is for people. */
export class ProxyError extends Error {
  readonly code: string;

  constructor(message: string, code: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    // Pulumi's brand for RunError (`RunError.isInstance` in @pulumi/pulumi's errors.js): a program that fails with one
    // of ours prints its message once, without a stack trace. Non-enumerable, so it stays out of logs and JSON.
    Object.defineProperty(this, "__pulumiRunError", { value: true, enumerable: false });
  }
}

/** What an API error knows about the request that failed. */
export interface ApiErrorDetails {
  /** HTTP status, or undefined when no response arrived. */
  status?: number;
  /** The contract's error code (`rate_limited`, `plan_not_found`, ...), or a client-side code such as `network`. */
  code: string;
  /** The server's `X-Request-Id` (or `request_id` in the body), for support requests. */
  requestId?: string;
  /** HTTP method of the failed request. */
  method: string;
  /** Path of the failed request, without the base URL. */
  path: string;
  /** Delay the server asked for with `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
  /** Field-level problems reported by the server (`errors[]` of a problem document). */
  fieldErrors?: ReadonlyArray<{ pointer?: string; detail: string }>;
  /** A safe copy of the underlying cause (name, code and redacted message only). */
  cause?: Error;
}

/** An API call failed: the base class of every error the API client raises. */
export class ProxyApiError extends ProxyError {
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly method: string;
  readonly path: string;
  readonly retryAfterMs: number | undefined;
  readonly fieldErrors: ReadonlyArray<{ pointer?: string; detail: string }>;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, details.code, { cause: details.cause });
    this.status = details.status;
    this.requestId = details.requestId;
    this.method = details.method;
    this.path = details.path;
    this.retryAfterMs = details.retryAfterMs;
    this.fieldErrors = details.fieldErrors ?? [];
  }

  /** The same error (same class, status, code and request id) with another message; this one becomes its cause. */
  withMessage(message: string): ProxyApiError {
    const ErrorType = this.constructor as ErrorClass;
    return new ErrorType(message, { ...this.details(), fieldErrors: this.fieldErrors, cause: this });
  }

  /** A plain object for logs and JSON output; it holds only the fields above. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, message: this.message, ...this.details(), fieldErrors: this.fieldErrors };
  }

  private details(): Omit<ApiErrorDetails, "cause" | "fieldErrors"> {
    const { status, code, requestId, method, path, retryAfterMs } = this;
    return { status, code, requestId, method, path, retryAfterMs };
  }
}

/** 400: the request was malformed; the server's field errors say which part. */
export class InvalidRequestError extends ProxyApiError {}
/** 401: the API key is missing or no longer accepted. */
export class AuthenticationError extends ProxyApiError {}
/** 402: the account cannot pay for the plan; nothing was charged. */
export class InsufficientBalanceError extends ProxyApiError {}
/** 403: the API key is known but may not do this. */
export class PermissionError extends ProxyApiError {}
/** 404: no such order (also for another account's order). */
export class NotFoundError extends ProxyApiError {}
/** 409 or 422 with an idempotency code: the idempotency key is in use or was used with another body. */
export class IdempotencyError extends ProxyApiError {}
/** 422 `plan_not_found`: the plan id is unknown. */
export class PlanNotFoundError extends ProxyApiError {}
/** 429: over the rate limit, after the client's retries. */
export class RateLimitError extends ProxyApiError {}
/** 5xx: the server failed, after the client's retries. */
export class ServerError extends ProxyApiError {}
/** The request never got a response: connection refused or reset, DNS, a certificate not trusted, or a timeout. */
export class ConnectionError extends ProxyApiError {}

/** Node's codes for a TLS certificate it does not trust (OpenSSL's verification errors, and a name it does not cover). */
const UNTRUSTED_CERTIFICATE = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/**
 * What to do about a request that got no response with network error `code`. A certificate Node does not trust is most
 * often one signed by an organisation's own authority (a TLS-inspecting gateway): Node trusts the authorities it ships
 * with, not the system's, unless told.
 */
export function connectionAdvice(code: string): string {
  if (UNTRUSTED_CERTIFICATE.has(code)) {
    return (
      "The API's TLS certificate is not one Node trusts. If your organisation signs it (a TLS-inspecting gateway, an " +
      "internal API), point NODE_EXTRA_CA_CERTS at that authority's PEM file in the environment `pulumi` runs in; if it " +
      "expired or names another host, check proxy:baseUrl. Certificate checks are never turned off."
    );
  }
  return "Check proxy:baseUrl (or PROXY_API_BASE_URL) and that the API is reachable; the request is safe to repeat.";
}
/** A 2xx response whose body does not match the contract. */
export class UnexpectedResponseError extends ProxyApiError {}
/**
 * A purchase's answer (2xx) that does not match the contract but names its order: the order was made, and its id is
 * what the provider records, so the purchase is never made again nor the order lost.
 */
export class UnreadableOrderError extends UnexpectedResponseError {
  constructor(
    message: string,
    details: ApiErrorDetails,
    /** The id the answer gave the order. */
    readonly orderId: string,
  ) {
    super(message, details);
  }
}

/** What the server said, reduced to what an error needs; every field is already redacted. */
export interface ServerProblem {
  code?: string;
  title?: string;
  detail?: string;
  requestId?: string;
  fieldErrors?: Array<{ pointer?: string; detail: string }>;
}

/**
 * A redirect, not followed: the API key would go with the request to wherever it points. Where it points at the same
 * path elsewhere, the base URL to set is what comes before that path; its query is left out (it may hold a token).
 */
function redirectAdvice(path: string, location: string | undefined): string {
  const target = location?.split(/[?#]/)[0];
  const base = target?.endsWith(path) && /^https?:\/\/[^/]+/.test(target) ? target.slice(0, -path.length) : undefined;
  return (
    `The API answered with a redirect${target ? ` to ${target}` : ""}, which this provider does not follow (the API key would go with it). ` +
    `Set proxy:baseUrl (or PROXY_API_BASE_URL) to ${base ?? "the address the API names, such as its https:// one"}.`
  );
}

/** What to do next, per status: the part of each message a user acts on. */
function advice(status: number, code: string | undefined, redirect: { path: string; location?: string }): string {
  if (status >= 300 && status < 400) return redirectAdvice(redirect.path, redirect.location);

  switch (status) {
    case 400:
      return "The request was rejected as malformed; check the values named above.";
    case 401:
      // The status line says the key was refused (and servers say it again): this part only says what to do.
      return "Set a valid API key with `pulumi config set proxy:apiKey --secret`, or the PROXY_API_KEY environment variable.";
    case 402:
      return "The account cannot pay for this plan; nothing was charged. Add funds, or choose another plan.";
    case 403:
      return "The API key is valid but not allowed to do this; use a key with the needed permission.";
    case 404:
      return "No such resource exists for this account.";
    case 409:
      return "An earlier request with the same idempotency key is still running; try again shortly.";
    case 422:
      if (code === "plan_not_found") {
        return "Check the plan id; nothing was bought.";
      }
      if (code === "idempotency_key_reused") {
        return "This idempotency key was already used for a different order; use another key.";
      }
      return "The request was understood but refused.";
    case 429:
      return "Over the API's rate limit; wait and try again, or lower the request rate.";
    default:
      return status >= 500
        ? "The API failed on its side; try again later. If it persists, report the request id."
        : "The API refused the request.";
  }
}

type ErrorClass = new (message: string, details: ApiErrorDetails) => ProxyApiError;

/** The class of each kind of the contract's error table. */
const ERROR_CLASSES: Record<ApiErrorKind, ErrorClass> = {
  InvalidRequestError,
  AuthenticationError,
  InsufficientBalanceError,
  PermissionError,
  NotFoundError,
  IdempotencyError,
  PlanNotFoundError,
  RateLimitError,
  ServerError,
  ProxyApiError,
};

/** Picks the error class for an HTTP error response and writes a message that says what happened and what to do. */
export function errorFromResponse(args: {
  status: number;
  method: string;
  path: string;
  problem: ServerProblem;
  requestId?: string;
  retryAfterMs?: number;
  /** The answer's `Location` header: where a redirect points. */
  location?: string;
}): ProxyApiError {
  const { status, method, path, problem } = args;
  const code = problem.code ?? defaultErrorCode(status);
  const requestId = args.requestId ?? problem.requestId;
  // Servers end their sentences with a period; this message adds its own.
  // A server whose detail is its code alone (`plan_not_found`) says nothing the status line does not.
  const told = (problem.detail ?? problem.title)?.trim().replace(/[.\s]+$/, "");
  const said = told === code ? undefined : told;
  const fields = (problem.fieldErrors ?? [])
    .map((e) => (e.pointer ? `${e.pointer}: ${e.detail}` : e.detail))
    .join("; ");
  const parts = [
    `${method} ${path} failed with ${status} ${code}${said ? `: ${said}` : ""}.`,
    fields ? `Fields: ${fields}.` : "",
    advice(status, problem.code, { path, location: args.location }),
    requestId ? `(request id ${requestId})` : "",
  ];
  const ErrorType = ERROR_CLASSES[errorKind(status, problem.code)];
  return new ErrorType(parts.filter(Boolean).join(" "), {
    status,
    code,
    requestId,
    method,
    path,
    retryAfterMs: args.retryAfterMs,
    fieldErrors: problem.fieldErrors,
  });
}
