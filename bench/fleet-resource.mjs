// ProxyFleet: one resource of N orders at the CLI's default --parallel, against a sandbox that enforces R requests a
// second per key, each order ready T after its purchase; beside N ProxyOrders at the same --parallel (cases marked
// `:orders`). The floor is the API's alone, max(T + N/R, 2N/R): a fleet is not bound by the engine's slots.
// Also: what the state entry and the preview weigh, what an `up --refresh` that replaces one member costs, and the
// provider process's peak memory (VmHWM, sampled from /proc while the first up runs).
import { readdirSync, readFileSync } from "node:fs";
import { ORDERS_PROGRAM } from "./fleet.mjs";
import { benchWorkspace } from "./workspace.mjs";

const FLEET_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const { ProxyFleet } = require("pulumi-proxy");
const orders = new pulumi.Config().getNumber("count") ?? 1;
new ProxyFleet("fleet", { planId: "dc-us-5", orders, readyTimeout: "30m" });
`;

/** `BENCH_FLEET_RESOURCE_CASES`: N:R:T (T in seconds), comma separated; `:orders` also runs N ProxyOrders. */
export const DEFAULT_FLEET_RESOURCE_CASES = "200:20:20:orders,1000:20:20";

/** Samples the peak resident memory (VmHWM, MB) of the dynamic provider processes until stopped. */
function providerMemory() {
  let peakMb = 0;
  const sample = () => {
    for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("dynamic-provider")) continue;
        const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
        if (hwm) peakMb = Math.max(peakMb, Number(hwm[1]) / 1024);
      } catch {
        // The process ended between the listing and the read.
      }
    }
  };
  const timer = setInterval(sample, 250);
  return () => {
    clearInterval(timer);
    return peakMb;
  };
}

export async function fleetResourceFigures(root, startSandbox, cases = DEFAULT_FLEET_RESOURCE_CASES) {
  const workspace = await benchWorkspace(root);
  const programs = {
    fleet: await workspace.program("proxy-fleet", FLEET_PROGRAM),
    orders: await workspace.program("proxy-orders", ORDERS_PROGRAM),
  };
  const figures = [];
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const kb = (bytes) => `${Math.round(bytes / 1024)} kB`;
  try {
    for (const spec of cases.split(",")) {
      const [n, r, t] = spec.split(":").slice(0, 3).map(Number);
      const withOrders = spec.endsWith(":orders");
      const tMs = t * 1000;
      const floor = Math.max(tMs + (n / r) * 1000, ((2 * n) / r) * 1000);
      const label = `N = ${n}, default --parallel, R = ${r}/s, T = ${t} s`;

      const sandbox = await startSandbox({ rateLimit: { requestsPerSecond: r, burst: r }, provisioningMs: tMs });
      const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
      const fleet = programs.fleet;
      await workspace.cli(fleet, ["config", "set", "count", String(n)]);
      let ok = true;
      const memory = providerMemory();
      const started = performance.now();
      try {
        await workspace.cli(fleet, ["up", "--yes", "--skip-preview"], api);
      } catch (error) {
        ok = false;
        console.error(`bench: ProxyFleet ${label}: up failed: ${String(error.message).slice(-2000)}`);
      }
      const wall = performance.now() - started;
      const peakMb = memory();
      const calls = sandbox.requests.filter((q) => q.path.startsWith("/v1/"));
      const throttled = calls.filter((q) => q.status === 429).length;
      const bought = sandbox.createdOrders.length;
      const share = calls.length > 0 ? throttled / calls.length : 0;
      figures.push([
        "ProxyFleet",
        `${label}: one fleet, first up ${ok ? "succeeded" : "FAILED"}, ${bought} purchases, ${throttled} of ${calls.length} requests answered 429`,
        `${(share * 100).toFixed(1)}%`,
        `one up, ${n} purchases, <= 2%`,
        ok && bought === n && share <= 0.02 ? "met" : "missed",
      ]);
      figures.push([
        "ProxyFleet",
        `${label}: one fleet, up ${seconds(wall)} vs floor max(T + N/R, 2N/R) ${seconds(floor)}`,
        `${(wall / floor).toFixed(2)}x`,
        "<= 1.25x",
        wall / floor <= 1.25 ? "met" : "missed",
      ]);
      figures.push(["ProxyFleet", `${label}: the provider process's peak memory (VmHWM)`, `${Math.round(peakMb)} MB`, "reported", ""]);

      const exported = await workspace.cli(fleet, ["stack", "export"]);
      const entry = JSON.parse(exported).deployment.resources.find((res) => res.type.endsWith("ProxyFleet"));
      const previewStarted = performance.now();
      const preview = await workspace.cli(fleet, ["preview", "--expect-no-changes"], api);
      const previewMs = performance.now() - previewStarted;
      figures.push([
        "ProxyFleet",
        `${label}: state ${kb(exported.length)} in all, the fleet's entry ${kb(JSON.stringify(entry).length)}; a no-change preview ${seconds(previewMs)}, ${preview.split("\n").length} lines`,
        kb(JSON.stringify(entry).length),
        "reported",
        "",
      ]);

      sandbox.cancelOrder(sandbox.createdOrders[Math.floor(n / 2)].id);
      const before = sandbox.requests.length;
      const changeStarted = performance.now();
      await workspace.cli(fleet, ["up", "--yes", "--skip-preview", "--refresh"], api);
      const changeMs = performance.now() - changeStarted;
      figures.push([
        "ProxyFleet",
        `${label}: up --refresh after one member was cancelled: ${sandbox.createdOrders.length - bought} purchase(s), ${sandbox.requests.length - before} requests (the refresh reads every member)`,
        seconds(changeMs),
        "reported",
        "",
      ]);
      await workspace.cli(fleet, ["destroy", "--yes", "--skip-preview"], api);
      await sandbox.stop();

      if (withOrders) {
        const ordersSandbox = await startSandbox({ rateLimit: { requestsPerSecond: r, burst: r }, provisioningMs: tMs });
        const ordersApi = { PROXY_API_BASE_URL: ordersSandbox.url, PROXY_API_KEY: ordersSandbox.apiKey };
        await workspace.cli(programs.orders, ["config", "set", "count", String(n)]);
        const ordersStarted = performance.now();
        await workspace.cli(programs.orders, ["up", "--yes", "--skip-preview"], ordersApi);
        const ordersWall = performance.now() - ordersStarted;
        figures.push([
          "ProxyFleet, anchor",
          `${label}: ${n} ProxyOrders at the same --parallel: up ${seconds(ordersWall)}; the fleet against it`,
          `${(wall / ordersWall).toFixed(2)}x`,
          "for comparison",
          "",
        ]);
        await workspace.cli(programs.orders, ["destroy", "--yes", "--skip-preview"], ordersApi);
        await ordersSandbox.stop();
      }
    }
  } finally {
    workspace.cleanup();
  }
  return figures;
}
