// Health checks of 1,000 proxies through themselves (health/), at the default concurrency, against the sandbox's
// served proxies, each of which takes `latency` to answer its handshake: the floor is the sum of what each proxy
// must take (its latency, or the timeout for one too slow, nothing for a dead one) over the concurrency.
import { createRequire } from "node:module";
import { join } from "node:path";

/** The cases: latency of every proxy (ms), share dead, share slow past the timeout, timeout (ms). */
const CASES = [
  { latencyMs: 100, dead: 0, slow: 0, timeoutMs: 10_000 },
  { latencyMs: 100, dead: 0.1, slow: 0.1, timeoutMs: 1_000 },
];

export async function healthFigures(root, startSandbox) {
  const require = createRequire(import.meta.url);
  const { checkProxies, DEFAULT_HEALTH_CHECK } = require(join(root, "dist", "health", "index.js"));
  const { ProxyApiClient } = require(join(root, "dist", "client", "index.js"));
  const figures = [];
  for (const c of CASES) {
    const sandbox = await startSandbox({
      rateLimit: false,
      provisioningMs: 0,
      serveProxies: { latencyMs: c.latencyMs, slowMs: c.timeoutMs * 3, dead: c.dead, slow: c.slow },
    });
    const client = new ProxyApiClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
    for (let i = 0; i < 4; i++) await client.createOrder({ planId: "dc-us-250", idempotencyKey: `bench-health-${i}` });
    sandbox.clock.advance(1_000);
    const proxies = await client.listProxies({ pageSize: 1000 });
    const conditions = proxies.map((p) => sandbox.proxies.conditionOf(p.id));
    const concurrency = DEFAULT_HEALTH_CHECK.concurrency;
    const each = conditions.map((condition) => (condition === "dead" ? 0 : condition === "slow" ? c.timeoutMs : c.latencyMs));
    const floorMs = each.reduce((a, b) => a + b, 0) / concurrency;
    const started = performance.now();
    const report = await checkProxies(proxies, { target: sandbox.proxies.echoUrl, timeoutMs: c.timeoutMs });
    const ms = performance.now() - started;
    const expected = conditions.filter((x) => x === "ok").length;
    const ratio = ms / floorMs;
    const what =
      `${report.total} proxies, ${c.latencyMs} ms each` +
      (c.dead || c.slow ? `, ${conditions.filter((x) => x === "dead").length} dead, ${conditions.filter((x) => x === "slow").length} slow past a ${c.timeoutMs} ms timeout` : "") +
      `, concurrency ${concurrency}: ${(ms / 1000).toFixed(2)} s vs floor ${(floorMs / 1000).toFixed(2)} s; ${report.healthy} healthy of ${expected} expected`;
    figures.push(["health checks", what, `${ratio.toFixed(2)}x`, "<= 1.5x", ratio <= 1.5 && report.healthy === expected ? "met" : "missed"]);
    await sandbox.stop();
  }
  return figures;
}
