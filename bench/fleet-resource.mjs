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

/**
 * `BENCH_FLEET_RESOURCE_CASES`: N:R:T (T in seconds), comma separated, each optionally followed by the sandbox's
 * `RateLimit-*` hint mode (`:always`, the default, `:on-429` or `:never`) and `:orders` (also run N ProxyOrders).
 */
export const DEFAULT_FLEET_RESOURCE_CASES = "200:20:20:always:orders,200:20:20:on-429,200:20:20:never,1000:20:20:always,1000:20:20:on-429,1000:20:20:never";

/** `BENCH_TWO_STACKS`: N:R:T:hints of the two stacks on one key, each one fleet of N, started together. */
export const DEFAULT_TWO_STACKS_CASES = "100:10:20:on-429,100:10:20:never";

/** The figures every case reports about its requests: how many per order, and the share answered 429. */
function requestFigures(sandbox, orders) {
  const calls = sandbox.requests.filter((q) => q.path.startsWith("/v1/"));
  const throttled = calls.filter((q) => q.status === 429).length;
  return { calls: calls.length, throttled, share: calls.length > 0 ? throttled / calls.length : 0, perOrder: calls.length / orders };
}

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

export async function fleetResourceFigures(root, startSandbox, cases = DEFAULT_FLEET_RESOURCE_CASES, twoStacks = DEFAULT_TWO_STACKS_CASES) {
  const workspace = await benchWorkspace(root);
  const programs = {
    fleet: await workspace.program("proxy-fleet", FLEET_PROGRAM),
    orders: await workspace.program("proxy-orders", ORDERS_PROGRAM),
    second: await workspace.program("proxy-fleet-b", FLEET_PROGRAM),
  };
  const figures = [];
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const kb = (bytes) => `${Math.round(bytes / 1024)} kB`;
  try {
    for (const spec of cases.split(",")) {
      const [n, r, t] = spec.split(":").slice(0, 3).map(Number);
      const withOrders = spec.endsWith(":orders");
      const hints = ["on-429", "never"].find((mode) => spec.includes(`:${mode}`)) ?? "always";
      const tMs = t * 1000;
      const floor = Math.max(tMs + (n / r) * 1000, ((2 * n) / r) * 1000);
      const label = `N = ${n}, default --parallel, R = ${r}/s, T = ${t} s, hints ${hints}`;

      const sandbox = await startSandbox({ rateLimit: { requestsPerSecond: r, burst: r }, rateLimitHints: hints, provisioningMs: tMs });
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
      const { calls, throttled, share, perOrder } = requestFigures(sandbox, n);
      const bought = sandbox.createdOrders.length;
      figures.push([
        "ProxyFleet",
        `${label}: one fleet, first up ${ok ? "succeeded" : "FAILED"}, ${bought} purchases, ${throttled} of ${calls} requests answered 429, ${perOrder.toFixed(2)} requests per order`,
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
        `${label}: up --refresh after one member was cancelled: ${sandbox.createdOrders.length - bought} purchase(s), ${sandbox.requests.length - before} requests (the refresh lists the account, then reads the cancelled member)`,
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
    for (const spec of twoStacks.split(",").filter(Boolean)) {
      const [n, r, t] = spec.split(":").slice(0, 3).map(Number);
      const hints = ["on-429", "never"].find((mode) => spec.includes(`:${mode}`)) ?? "always";
      const tMs = t * 1000;
      // Both stacks' 2N purchases and 2N reads go through one key: max(T + 2N/R, 4N/R).
      const floor = Math.max(tMs + ((2 * n) / r) * 1000, ((4 * n) / r) * 1000);
      const label = `two stacks on one key, a fleet of ${n} each, started together, R = ${r}/s, T = ${t} s, hints ${hints}`;
      const sandbox = await startSandbox({ rateLimit: { requestsPerSecond: r, burst: r }, rateLimitHints: hints, provisioningMs: tMs });
      const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
      const stacks = [programs.fleet, programs.second];
      for (const program of stacks) await workspace.cli(program, ["config", "set", "count", String(n)]);
      const started = performance.now();
      const walls = await Promise.all(
        stacks.map((program) =>
          workspace.cli(program, ["up", "--yes", "--skip-preview"], api).then(
            () => performance.now() - started,
            () => Number.NaN,
          ),
        ),
      );
      const { calls, throttled, share, perOrder } = requestFigures(sandbox, 2 * n);
      const bought = sandbox.createdOrders.length;
      const slower = Math.max(...walls);
      figures.push([
        "ProxyFleet",
        `${label}: ${bought} purchases, ${throttled} of ${calls} requests answered 429, ${perOrder.toFixed(2)} requests per order`,
        `${(share * 100).toFixed(1)}%`,
        `${2 * n} purchases, <= 2%`,
        bought === 2 * n && share <= 0.02 ? "met" : "missed",
      ]);
      figures.push([
        "ProxyFleet",
        `${label}: ups ${walls.map(seconds).join(" and ")} vs floor max(T + 2N/R, 4N/R) ${seconds(floor)}`,
        `${(slower / floor).toFixed(2)}x`,
        "<= 1.25x each",
        slower / floor <= 1.25 ? "met" : "missed",
      ]);
      for (const program of stacks) await workspace.cli(program, ["destroy", "--yes", "--skip-preview"], api);
      await sandbox.stop();
    }
  } finally {
    workspace.cleanup();
  }
  return figures;
}
