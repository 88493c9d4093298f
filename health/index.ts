/**
 * Health checks of proxies through themselves: HTTP `CONNECT` or SOCKS5 with each proxy's credentials, to a target
 * the user names. It depends on Node alone; the provider runs it for getProxyHealth and a resource's `healthCheck`.
 */
export { checkProxies } from "./check";
export { probeTarget } from "./probe";
export { DEFAULT_HEALTH_CHECK } from "./types";
export type { HealthCheckOptions, HealthFailure, HealthReport, HealthResult, ProxyToCheck } from "./types";
