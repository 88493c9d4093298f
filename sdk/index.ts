/**
 * pulumi-proxy: buy and manage proxies from Pulumi programs.
 */
export { ProxyOrder } from "./proxy-order";
export type { ProxyOrderArgs } from "./proxy-order";
export { getProxies, getProxiesOutput } from "./get-proxies";
export type { GetProxiesArgs, GetProxiesOutputArgs, GetProxiesResult } from "./get-proxies";
export { getUsage, getUsageOutput } from "./get-usage";
export type { GetUsageResult } from "./get-usage";
export type { ProxyInfo, ProxyCredential } from "../provider/order-state";
export type { Proxy, Usage, Order } from "../provider/api/schemas";
export { ProxyApiClient } from "../provider/api/client";
export type { ProxyFilters, CreateOrderResult, GetOrderResult } from "../provider/api/client";
export { DEFAULT_CLIENT_OPTIONS } from "../provider/api/request";
export type { ClientOptions, RetryEvent } from "../provider/api/request";
export {
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
  ConfigurationError,
} from "../provider/api/errors";
