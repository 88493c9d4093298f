/**
 * pulumi-proxy: buy and manage proxies from Pulumi programs. This module is the package's whole public surface.
 */
export { ProxyOrder } from "./proxy-order";
export type { ProxyOrderArgs } from "./proxy-order";
export { ProxyFleet } from "./proxy-fleet";
export type { ProxyFleetArgs } from "./proxy-fleet";
export type { FleetMember, FleetProxy, FleetCredential } from "../provider";
export { getProxies, getProxiesOutput } from "./get-proxies";
export type { GetProxiesArgs, GetProxiesOutputArgs, GetProxiesResult } from "./get-proxies";
export { getProxyHealth, getProxyHealthOutput } from "./get-proxy-health";
export type { GetProxyHealthArgs, GetProxyHealthOutputArgs, GetProxyHealthResult } from "./get-proxy-health";
export { getUsage, getUsageOutput } from "./get-usage";
export type { GetUsageResult } from "./get-usage";
export type { FunctionOutputOptions } from "./program-client";
export type { ProxyInfo, ProxyCredential } from "../provider";
export type { HealthCheckInput as HealthCheck, HealthOutput as HealthReport, ProxyHealth } from "../provider";
export type { ProxyRecord, Usage, Order, StatusReason, ProxyPage } from "../contract";
export { ProxyApiClient } from "../client";
export type { ProxyFilters, CreateOrderResult, GetOrderResult } from "../client";
export { DEFAULT_CLIENT_OPTIONS } from "../client";
export { RequestBudget, BudgetDeadlineError, DEFAULT_BUDGET_OPTIONS } from "../client";
export type { Clock } from "../client";
export type { BudgetOptions, BudgetSummary, Permit, PermitRequest, RequestPriority } from "../client";
export type { ClientOptions, CallOptions, RetryEvent } from "../client";
export type { CallTracer, CallTrace, CallOutcome } from "../client";
export {
  ProxyError,
  ProxyApiError,
  InvalidRequestError,
  AuthenticationError,
  InsufficientBalanceError,
  PermissionError,
  NotFoundError,
  IdempotencyError,
  PlanNotFoundError,
  RateLimitError,
  ServerError,
  ConnectionError,
  UnexpectedResponseError,
  UnreadableOrderError,
} from "../client";
export type { ApiErrorDetails } from "../client";
export { ConfigurationError } from "../provider";
export { OrderAbsenceUnconfirmedError } from "../provider";
export { OrderFailedError, OrderWaitTimeoutError, UnexpectedOrderStateError, OrderWaitCancelledError } from "../provider";
export { PartialOrderError } from "../provider";
