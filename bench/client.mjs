#!/usr/bin/env node
// `npm run bench`: prints throughput and latency figures of the client against the sandbox on loopback.
// Figures, not assertions: compare runs on the same machine. Every loop is bounded; nothing leaves loopback.
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { startSandbox } = require(join(root, "dist", "sandbox", "index.js"));
const { ProxyApiClient } = require(join(root, "dist", "provider", "api", "client.js"));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure(label, count, concurrency, call) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next += 1;
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(44)} ${String(Math.round(count / seconds)).padStart(7)} calls/s   ` +
      `p50 ${percentile(latencies, 50).toFixed(2)} ms   p99 ${percentile(latencies, 99).toFixed(2)} ms`,
  );
}

const sandbox = await startSandbox({ provisioningMs: 0, rateLimit: false });
const client = new ProxyApiClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey });
try {
  console.log(`node ${process.version}, sandbox at ${sandbox.url}\n`);
  await measure("GET /v1/usage, 1 at a time", 2000, 1, () => client.getUsage());
  await measure("GET /v1/usage, 16 at a time", 4000, 16, () => client.getUsage());
  let n = 0;
  await measure("POST /v1/orders (new key each), 8 at a time", 1000, 8, () =>
    client.createOrder({ planId: "dc-us-5", idempotencyKey: `bench-${n++}` }),
  );
  await measure("POST /v1/orders replay (same key), 8 at a time", 1000, 8, () =>
    client.createOrder({ planId: "dc-us-5", idempotencyKey: "bench-0" }),
  );
  console.log();
  for (const pageSize of [50, 200, 1000]) {
    await measure(`list all ${sandbox.store.activeProxies().length} proxies, pages of ${pageSize}`, 20, 1, () =>
      client.listProxies({ pageSize }),
    );
  }
} finally {
  await client.close();
  await sandbox.stop();
}
