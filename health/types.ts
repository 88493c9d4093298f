/**
 * What a health check of proxies takes and gives: the proxy to check (with its credentials, which go no further than
 * the handshake), the target, and one result per proxy, which never holds a credential.
 */

/** A proxy to check: where it listens, how it speaks, and the credentials it requires. */
export interface ProxyToCheck {
  ip: string;
  port: number;
  /** `http` (HTTP `CONNECT`) or `socks5`; absent is taken as `http`, the protocol most proxies speak. */
  protocol?: string;
  username?: string;
  password?: string;
  /** Carried into the result, to name the proxy. */
  id?: string;
  /** Carried into the result, to name the order it belongs to. */
  orderId?: string;
  /** The country it was sold for (ISO 3166-1 alpha-2): a target that names the caller's country is held to it. */
  country?: string;
}

/**
 * Why a proxy failed its check. `refused`: nothing listens at its address (or a firewall said no). `timeout`: no answer
 * within the timeout. `closed`: it closed the connection without answering. `credentials_rejected`: it refused the
 * username and password (`407`, or SOCKS5's authentication failure). `target_unreachable`: it could not reach the
 * target. `target_status`: the target answered through it with a status of 400 or more. `wrong_country`: the target
 * named a country other than the proxy's `country`. `protocol_error`: it answered something that is not the protocol.
 * `unsupported_protocol`: the proxy's protocol is none of `http`, `https`, `socks5` and `socks5h`.
 */
export type HealthFailure =
  | "refused"
  | "timeout"
  | "closed"
  | "credentials_rejected"
  | "target_unreachable"
  | "target_status"
  | "wrong_country"
  | "protocol_error"
  | "unsupported_protocol";

/** The outcome of checking one proxy. Never holds a credential. */
export interface HealthResult {
  ip: string;
  port: number;
  id?: string;
  orderId?: string;
  /** True when the target answered through the proxy with a status below 400 (and from the proxy's country, when it says). */
  healthy: boolean;
  /** Milliseconds from the start of the check to the target's status line (present once the target answered). */
  latencyMs?: number;
  /** The status the target answered. */
  targetStatus?: number;
  /** The address the target saw the request come from, when the target reports it (a URL that echoes the caller). */
  exitIp?: string;
  /** The country the target says the request came from (ISO 3166-1 alpha-2), when it says one. */
  exitCountry?: string;
  /** Why it failed, when it did. */
  failure?: HealthFailure;
  /** What happened, for people; never a credential. */
  message?: string;
}

/** How to check. */
export interface HealthCheckOptions {
  /** The URL requested through each proxy (`http://` or `https://`); one that echoes the caller gives `exitIp`. */
  target: string;
  /** The most one proxy's check takes, connection to answer. @default 10_000 */
  timeoutMs?: number;
  /** The most proxies checked at once. @default 50 */
  concurrency?: number;
  /** Stops the checks not yet finished, and those not yet begun: they count as `timeout`, with a message that says so. */
  signal?: AbortSignal;
}

/** The defaults of {@link HealthCheckOptions}: at worst, N proxies take about N / concurrency × timeout. */
export const DEFAULT_HEALTH_CHECK = { timeoutMs: 10_000, concurrency: 50 } as const;

/** Every proxy's result, in the order given, and how many are healthy. */
export interface HealthReport {
  target: string;
  /** When the checks began (RFC 3339). */
  checkedAt: string;
  healthy: number;
  total: number;
  results: HealthResult[];
}
