/**
 * Checks many proxies through themselves, at most `concurrency` at once, each within `timeoutMs`: N proxies take about
 * N / concurrency × the slowest answer, and N / concurrency × timeout at worst.
 */
import { probeProxy, probeTarget } from "./probe";
import { DEFAULT_HEALTH_CHECK, type HealthCheckOptions, type HealthReport, type HealthResult, type ProxyToCheck } from "./types";

/** Checks every proxy; results in the order given. A target that is not an http or https URL throws before any check. */
export async function checkProxies(proxies: readonly ProxyToCheck[], options: HealthCheckOptions): Promise<HealthReport> {
  const target = probeTarget(options.target);
  const timeoutMs = options.timeoutMs ?? DEFAULT_HEALTH_CHECK.timeoutMs;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_HEALTH_CHECK.concurrency));
  const checkedAt = new Date().toISOString();
  const results: HealthResult[] = new Array(proxies.length);
  let next = 0;
  const worker = async () => {
    while (next < proxies.length) {
      const index = next++;
      results[index] = await probeProxy(proxies[index] as ProxyToCheck, target, timeoutMs, options.signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, proxies.length) }, worker));
  return { target: options.target, checkedAt, healthy: results.filter((r) => r.healthy).length, total: results.length, results };
}
