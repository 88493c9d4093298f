/**
 * What a `healthCheck` input means: its shape, what is wrong with one, the settings it gives, and the verdict of a
 * report against its `minHealthy` (core/health-check.ts runs the check; health/ does the checking).
 *
 * A check never buys and never drops: its result is recorded (`health`), and below `minHealthy` the create or update
 * fails as a partial one, with every order in the state. A refresh records and warns; the update the next diff then
 * plans checks again, and fails if the proxies still do not answer.
 */
import { DEFAULT_HEALTH_CHECK, probeTarget, type HealthReport, type HealthResult } from "../../health";
import { parseDuration } from "../shared/duration";
import { UNKNOWN } from "../shared/pulumi-host";

/** A `healthCheck` input (definitions.ts describes it and holds its HealthCheck type to this). */
export interface HealthCheckInput {
  target: string;
  timeout?: string;
  minHealthy?: string;
  concurrency?: number;
}

/**
 * A `health` output: health/'s report as the state keeps it (definitions.ts holds its HealthReport type to this); a
 * stored `failure` is any text, since a later version may name failures this one does not.
 */
export type HealthOutput = Flat<Omit<HealthReport, "results"> & { results: Array<Flat<Omit<HealthResult, "failure"> & { failure?: string }>> }>;

/** One proxy's result in a `health` output. */
export type ProxyHealth = HealthOutput["results"][number];

type Flat<T> = { [K in keyof T]: T[K] } & {};

/** The fewest proxies that must answer: a count, or a share of those checked. */
export type MinHealthy = { count: number } | { percent: number };

/** A `healthCheck` as the check runs it. */
export interface HealthSettings {
  target: string;
  timeoutMs: number;
  concurrency: number;
  minHealthy?: MinHealthy;
}

/** The longest timeout of one proxy's check, and the most checks at once. */
const MAX_TIMEOUT_MS = 300_000;
const MAX_CONCURRENCY = 500;

/** A field of a `healthCheck` that is not usable, and why, in words that name it and what is allowed. */
export interface HealthCheckProblem {
  field: "target" | "timeout" | "minHealthy" | "concurrency" | "";
  reason: string;
}

/**
 * What is wrong with a `healthCheck` (or getProxyHealth's same-named arguments), the field named under `prefix`;
 * undefined when it is usable. Values the engine does not know yet (preview) pass.
 */
export function healthCheckProblem(value: unknown, prefix = "healthCheck."): HealthCheckProblem | undefined {
  if (value === UNKNOWN || value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    return { field: "", reason: `healthCheck must be an object such as { target: "https://api.ipify.org?format=json", minHealthy: "90%" }.` };
  }
  const { target, timeout, minHealthy, concurrency } = value as Record<string, unknown>;
  const known = (v: unknown) => v === undefined || v === null || v === UNKNOWN;
  if (target !== UNKNOWN) {
    try {
      if (typeof target !== "string") throw new Error("it is missing");
      probeTarget(target);
    } catch (error) {
      return { field: "target", reason: `${prefix}target must be the http:// or https:// URL to request through each proxy (${error instanceof Error ? error.message : String(error)}).` };
    }
  }
  if (!known(timeout) && !(typeof timeout === "string" && validTimeout(timeout))) {
    return { field: "timeout", reason: `${prefix}timeout must be a duration such as "10s" or "1m", from 1s to 5m (got ${JSON.stringify(timeout)}).` };
  }
  if (!known(minHealthy) && parseMinHealthy(minHealthy) === undefined) {
    return { field: "minHealthy", reason: `${prefix}minHealthy must be a count such as "17" or a share such as "85%" (0 to 100%) (got ${JSON.stringify(minHealthy)}).` };
  }
  if (!known(concurrency) && !(Number.isInteger(concurrency) && (concurrency as number) >= 1 && (concurrency as number) <= MAX_CONCURRENCY)) {
    return { field: "concurrency", reason: `${prefix}concurrency must be a whole number from 1 to ${MAX_CONCURRENCY} (got ${JSON.stringify(concurrency)}).` };
  }
  return undefined;
}

function validTimeout(text: string): boolean {
  const ms = parseDuration(text);
  return ms !== undefined && ms >= 1000 && ms <= MAX_TIMEOUT_MS;
}

function parseMinHealthy(value: unknown): MinHealthy | undefined {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string") return undefined;
  const match = /^\s*(\d+)\s*(%?)\s*$/.exec(text);
  if (!match) return undefined;
  const amount = Number(match[1]);
  if (match[2] === "%") return amount <= 100 ? { percent: amount } : undefined;
  return { count: amount };
}

/** The settings of a checked `healthCheck` (defaults filled in). */
export function healthSettings(input: HealthCheckInput): HealthSettings {
  const minHealthy = input.minHealthy === undefined || input.minHealthy === null ? undefined : parseMinHealthy(input.minHealthy);
  return {
    target: input.target,
    timeoutMs: (input.timeout ? parseDuration(input.timeout) : undefined) ?? DEFAULT_HEALTH_CHECK.timeoutMs,
    concurrency: input.concurrency ?? DEFAULT_HEALTH_CHECK.concurrency,
    ...(minHealthy ? { minHealthy } : {}),
  };
}
/** How many proxies of `total` must answer; 0 without `minHealthy`. */
export function requiredHealthy(minHealthy: MinHealthy | undefined, total: number): number {
  if (!minHealthy) return 0;
  return "count" in minHealthy ? minHealthy.count : Math.ceil((minHealthy.percent * total) / 100);
}

/** True when the report meets the settings' `minHealthy`. */
export function meetsMinimum(report: Pick<HealthReport, "healthy" | "total">, settings: HealthSettings): boolean {
  return report.healthy >= requiredHealthy(settings.minHealthy, report.total);
}

/** The ids of the orders with a proxy that failed the report's check. */
export function ordersWithFailures(report: HealthOutput | null | undefined): Set<string> {
  return new Set((report?.results ?? []).filter((r) => !r.healthy && r.orderId).map((r) => r.orderId as string));
}

/**
 * An update must check the proxies again: `healthCheck` is set, the resource has active orders, and its last check is
 * missing (none made yet) or below `minHealthy` (a refresh saw them fail, or a create or update failed on it).
 */
export function healthDue(active: boolean, health: HealthOutput | null | undefined, healthCheck: HealthCheckInput | undefined): boolean {
  if (!healthCheck || (healthCheck as unknown) === UNKNOWN || !active) return false;
  return !health || !meetsMinimum(health, healthSettings(healthCheck));
}
