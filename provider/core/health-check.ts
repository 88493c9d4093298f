/**
 * Checking a resource's proxies through themselves (health/ does the checking): the check of an order's or a fleet's
 * proxies with their credentials, within the engine's cancel and the operation's deadline, and the verdict against
 * `minHealthy` said in the log.
 */
import type { Clock } from "../../client";
import { checkProxies, type ProxyToCheck } from "../../health";
import { formatDuration } from "../shared/duration";
import { healthSettings, meetsMinimum, requiredHealthy, type HealthCheckInput, type HealthOutput, type HealthSettings } from "../schema/health-input";
import { healthBelowMinimum, healthCancelled, healthChecked } from "../shared/messages";

/** A proxy and its credentials, in the same position of an output's `proxies` and `credentials`. */
export interface HeldProxies {
  proxies: ReadonlyArray<{ ip: string; port: number; protocol?: string; id?: string; orderId?: string; country?: string }>;
  credentials: ReadonlyArray<{ username?: string; password?: string }>;
}

/**
 * What may cut a create's or an update's check short: the engine's cancel (a plugin's `Cancel`) and the operation's
 * deadline (`readyTimeout`, or a plugin's `customTimeouts`), which the check's time counts within. Proxies not
 * checked by the deadline fail as `timeout`; a cancelled check records no report. Either way every order stays.
 */
export interface CheckLimits {
  signal?: AbortSignal;
  /** Epoch milliseconds on `clock`. */
  deadline: number;
  clock: Pick<Clock, "now">;
}

/**
 * A signal that aborts with the limits' signal, or once what is left of their deadline has passed. What is left is
 * read on the limits' clock, and passes in real time, as the check's sockets do (whole milliseconds: a simulated clock
 * may give a fraction, which AbortSignal.timeout refuses).
 */
function limitSignal(limits: CheckLimits): AbortSignal {
  const outOfTime = AbortSignal.timeout(Math.max(0, Math.ceil(limits.deadline - limits.clock.now())));
  return limits.signal ? AbortSignal.any([limits.signal, outOfTime]) : outOfTime;
}

/** Checks the proxies (each with its credentials) and gives the report as the `health` output. */
export async function checkHeld(held: HeldProxies, settings: HealthSettings, orderId?: string, limits?: CheckLimits): Promise<HealthOutput> {
  const proxies: ProxyToCheck[] = held.proxies.map((proxy, i) => ({
    ...proxy,
    ...(orderId && !proxy.orderId ? { orderId } : {}),
    username: held.credentials[i]?.username,
    password: held.credentials[i]?.password,
  }));
  return checkProxies(proxies, { target: settings.target, timeoutMs: settings.timeoutMs, concurrency: settings.concurrency, signal: limits && limitSignal(limits) });
}

/** What a resource's check found: the `health` output, and the error message when it is below `minHealthy`. */
export interface HealthVerdict {
  /** Null when the check was cancelled: the proxies were not all asked, and the next update checks again. */
  health: HealthOutput | null;
  /** Set when fewer proxies answered than `minHealthy` asks for, or the check was cancelled. */
  shortfall?: string;
}

/**
 * Checks a resource's proxies by its `healthCheck` and says what it found in the log: a line, a warning when any
 * failed. `what` names the resource in messages; `orderId` is the order of proxies that do not name one.
 */
export async function checkResource(
  log: { info(message: string): void; warn(message: string): void },
  what: string,
  held: HeldProxies,
  healthCheck: HealthCheckInput,
  orderId?: string,
  limits?: CheckLimits,
): Promise<HealthVerdict> {
  const settings = healthSettings(healthCheck);
  const health = await checkHeld(held, settings, orderId, limits);
  if (limits?.signal?.aborted) return { health: null, shortfall: healthCancelled(what, health) };
  if (health.healthy < health.total) log.warn(healthChecked(what, health));
  else log.info(healthChecked(what, health));
  if (meetsMinimum(health, settings)) return { health };
  return { health, shortfall: healthBelowMinimum(what, health, requiredHealthy(settings.minHealthy, health.total), formatDuration(settings.timeoutMs)) };
}
