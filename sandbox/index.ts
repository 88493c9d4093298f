/**
 * The local sandbox of the Proxy Provisioning API, for tests and for trying the provider (`pulumi-proxy/sandbox`).
 */
export { startSandbox } from "./server";
export { SANDBOX_API_KEY, SANDBOX_READ_ONLY_API_KEY } from "./sandbox";
export type { Sandbox, SandboxOptions, RecordedRequest, CreatedOrder } from "./sandbox";
export { Faults } from "./faults";
export type { FailFault, FaultMatch } from "./faults";
export { PLANS, DEFAULT_BALANCE_CENTS } from "./catalogue";
export type { Plan } from "./catalogue";
/** The sandbox's limiter of one key's requests (a token bucket, or fixed windows), for simulations of its own. */
export { RateLimiter } from "./rate-limit";
export type { RateLimitDecision, RateLimitOptions } from "./rate-limit";
export type { HintForm } from "../contract";
export type { SandboxClock } from "./clock";
export type { SandboxRecords, SandboxState, StoredOrder, StoredProxy } from "./state";
export type { ProxyCondition, ProxyServing, ServeProxiesOptions } from "./proxy-serving";
