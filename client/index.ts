/**
 * The HTTP client of the API (docs/api-client.md), on the contract alone: what other folders may use of it. Its
 * requests go through one request budget per API key (the pacing: pace.ts, served by budget.ts), retry what is safe to
 * retry, and fail with one error root (errors.ts).
 */

/** The client: one method per endpoint, each returning the contract's records. */
export { ProxyApiClient } from "./client";
export type { CreateOrderResult, GetOrderResult, ProxyFilters } from "./client";
/** Every error the client throws, under ProxyError; a ProxyApiError carries the status, code and request id. */
export {
  AuthenticationError,
  ConnectionError,
  IdempotencyError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PlanNotFoundError,
  ProxyApiError,
  ProxyError,
  RateLimitError,
  ServerError,
  UnexpectedResponseError,
  UnreadableOrderError,
} from "./errors";
export type { ApiErrorDetails } from "./errors";
/** The client's options and their defaults, and the options of one call. */
export { DEFAULT_CLIENT_OPTIONS, withoutUndefined } from "./request";
export type { CallOptions, ClientOptions, RetryEvent } from "./request";
/** The request budget of one API key, which every request waits for: the pacing by the API's hints and refusals. */
export { BudgetDeadlineError, DEFAULT_BUDGET_OPTIONS, RequestBudget } from "./budget";
export type { BudgetOptions, BudgetSummary, Permit, PermitRequest, RequestPriority } from "./budget";
/** The time every wait and deadline is judged by; tests pass a simulated one. */
export { realClock } from "./clock";
export type { Clock } from "./clock";
/** One request as it is, through the client's dispatcher: the contract check's raw probe. */
export { sendRaw } from "./raw";
export type { RawAnswer, RawRequest } from "./raw";
/** What the client tells a tracer of each call, its attempts, waits and back-offs. */
export type { CallOutcome, CallTrace, CallTracer } from "./trace";
/** This package's version, as the `User-Agent` names it. */
export { VERSION } from "./version";
