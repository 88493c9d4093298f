/**
 * pulumi-proxy: buy and manage proxies from Pulumi programs. This module is the package's whole public surface.
 */
export { ProxyOrder } from "./proxy-order";
export type { ProxyOrderArgs } from "./proxy-order";
export { ProxyFleet } from "./proxy-fleet";
export type { ProxyFleetArgs } from "./proxy-fleet";
export type { FleetMember, FleetProxy, FleetCredential } from "../provider/state/fleet-state";
export { getProxies, getProxiesOutput } from "./get-proxies";
export type { GetProxiesArgs, GetProxiesOutputArgs, GetProxiesResult } from "./get-proxies";
export { getProxyHealth, getProxyHealthOutput } from "./get-proxy-health";
export type { GetProxyHealthArgs, GetProxyHealthOutputArgs, GetProxyHealthResult } from "./get-proxy-health";
export { getUsage, getUsageOutput } from "./get-usage";
export type { GetUsageResult } from "./get-usage";
export type { FunctionOutputOptions } from "./program-client";
export type { ProxyInfo, ProxyCredential } from "../provider/state/order-state";
export type { HealthCheckInput as HealthCheck, HealthOutput as HealthReport, ProxyHealth } from "../provider/schema/health-input";
export type { ProxyRecord, Usage, Order, StatusReason, ProxyPage } from "../contract/types";
export { ProxyApiClient } from "../client/client";
export type { ProxyFilters, CreateOrderResult, GetOrderResult } from "../client/client";
export { DEFAULT_CLIENT_OPTIONS } from "../client/request";
export { RequestBudget, BudgetDeadlineError, DEFAULT_BUDGET_OPTIONS } from "../client/budget";
export type { Clock } from "../client/clock";
export type { BudgetOptions, BudgetSummary, Permit, PermitRequest, RequestPriority } from "../client/budget";
export type { ClientOptions, CallOptions, RetryEvent } from "../client/request";
export type { CallTracer, CallTrace, CallOutcome } from "../client/trace";
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
} from "../client/errors";
export type { ApiErrorDetails } from "../client/errors";
export { ConfigurationError } from "../provider/core/config";
export { OrderAbsenceUnconfirmedError } from "../provider/api/absence";
export { OrderFailedError, OrderWaitTimeoutError, UnexpectedOrderStateError, OrderWaitCancelledError } from "../provider/api/wait";
export { PartialOrderError } from "../provider/shared/pulumi-host";
