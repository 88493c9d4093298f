// ProxyFleet: one resource of N orders at the CLI's default --parallel, against a sandbox that enforces R requests a
// second per key, each order ready T after its purchase; beside N ProxyOrders at the same --parallel (cases marked
// `:orders`). The floor is the API's alone, max(T + N/R, 2N/R): a fleet is not bound by the engine's slots.
// Also: what the state entry and the preview weigh, what an `up --refresh` that replaces one member costs, and the
// provider process's peak memory (VmHWM, sampled from /proc while the first up runs).
import { readdirSync, readFileSync } from "node:fs";
import { ORDERS_PROGRAM } from "./fleet.mjs";
import { apiShape } from "./api-shape.mjs";
import { sideBySideFloor, ups } from "./side-by-side.mjs";
import { benchWorkspace } from "./workspace.mjs";

export const FLEET_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const { ProxyFleet } = require("pulumi-proxy");
const orders = new pulumi.Config().getNumber("count") ?? 1;
new ProxyFleet("fleet", { planId: "dc-us-5", orders, readyTimeout: "30m" });
`;

/**
 * `BENCH_FLEET_RESOURCE_CASES`: N:R:T (T in seconds), comma separated, each optionally followed by the sandbox's
 * flags (api-shape.mjs: `:on-429`, `:never`, `:no-estimates`, `:latency=<ms>`, `:window=<s>`, `:real`) and `:orders`
 * (also run N ProxyOrders).
 */
export const DEFAULT_FLEET_RESOURCE_CASES =
  "200:20:20:always:orders,200:20:20:on-429,200:20:20:never,200:20:20:on-429:real,200:20:20:always:real,1000:20:20:always,1000:20:20:on-429,1000:20:20:never";

/**
 * `BENCH_STACKS`: K:N:R:T, comma separated: K stacks on one key, each one fleet of N, with the sandbox's flags,
 * `:late=<s>` (the last stack starts that many seconds after the others) and `:share=<percent>` (each stack's
 * `proxy:maxRateShare`). By default issue #52's cases: 2, 4 and 8 stacks, the last 10 s late, against a sandbox that
 * behaves like a real limited API (a token bucket, no estimates, 40 ms of latency), with hints on every answer in each
 * of the four forms, only with 429s, and never; each held to the floor measured side by side (side-by-side.mjs).
 */
const STACK_SIZES = ["2:100", "4:50", "8:25"];
const STACK_HINTS = ["form=contract", "form=ietf-draft", "form=x-ratelimit", "form=x-rate-limit", "on-429", "never"];
export const DEFAULT_STACKS_CASES = STACK_HINTS.flatMap((hints) => STACK_SIZES.map((size) => `${size}:10:20:${hints}:no-estimates:latency=40:late=10`)).join(",");

/**
 * `BENCH_SHARE_CASES`: N:R:T, comma separated: a fleet of N capped at `proxy:maxRateShare` 50 beside an application
 * that sends half the key's R requests a second steadily, with the sandbox's flags.
 */
export const DEFAULT_SHARE_CASES = "100:20:20:on-429";

/** When the first request under /v1 reached the sandbox (epoch ms). */
function firstRequest(sandbox) {
  return Math.min(...sandbox.requests.filter((q) => q.path.startsWith("/v1/")).map((q) => q.at));
}

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

/**
 * An application on the same key: `GET /v1/usage` at `perSecond`, evenly spaced, until stopped; `stop()` resolves to
 * the status of each of its answers.
 */
function steadyApplication(sandbox, perSecond) {
  const statuses = [];
  const pending = [];
  const timer = setInterval(() => {
    pending.push(
      fetch(`${sandbox.url}/v1/usage`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } }).then(
        async (res) => {
          await res.arrayBuffer();
          statuses.push(res.status);
        },
        () => statuses.push(0),
      ),
    );
  }, 1000 / perSecond);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      return statuses;
    },
  };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const kb = (bytes) => `${Math.round(bytes / 1024)} kB`;

/** One fleet's first up: its purchases, its 429s, its time against the floor, the provider's peak memory. */
async function firstFleetUp({ workspace, programs, figures }, sandbox, { n, label, floor }) {
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  await workspace.cli(programs.fleet, ["config", "set", "count", String(n)]);
  let ok = true;
  const memory = providerMemory();
  const started = performance.now();
  try {
    await workspace.cli(programs.fleet, ["up", "--yes", "--skip-preview"], api);
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
  return { wall, bought };
}

/** What follows a fleet's first up: its state's size, a no-change preview, and an up --refresh after a member was cancelled. */
async function fleetAfterUp({ workspace, programs, figures }, sandbox, { n, label, bought }) {
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  const fleet = programs.fleet;
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
}

/** The same N as ProxyOrders at the same --parallel, the anchor a fleet is compared with (a case ending `:orders`). */
async function ordersAnchor({ workspace, programs, figures, startSandbox }, shape, { n, label, wall }) {
  const sandbox = await startSandbox(shape.options);
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  await workspace.cli(programs.orders, ["config", "set", "count", String(n)]);
  const started = performance.now();
  await workspace.cli(programs.orders, ["up", "--yes", "--skip-preview"], api);
  const ordersWall = performance.now() - started;
  figures.push([
    "ProxyFleet, anchor",
    `${label}: ${n} ProxyOrders at the same --parallel: up ${seconds(ordersWall)}; the fleet against it`,
    `${(wall / ordersWall).toFixed(2)}x`,
    "for comparison",
    "",
  ]);
  await workspace.cli(programs.orders, ["destroy", "--yes", "--skip-preview"], api);
  await sandbox.stop();
}

/** One fleet case, N:R:T with the API's shape: the first up, what follows it, and the anchor when asked. */
async function singleFleetCase(bench, spec) {
  const [n, r, t] = spec.split(":").slice(0, 3).map(Number);
  const tMs = t * 1000;
  const shape = apiShape(spec, r, tMs);
  const floor = Math.max(tMs + (n / r) * 1000, ((2 * n) / r) * 1000);
  const label = `N = ${n}, default --parallel, R = ${r}/s, T = ${t} s${shape.label}`;
  const sandbox = await bench.startSandbox(shape.options);
  const { wall, bought } = await firstFleetUp(bench, sandbox, { n, label, floor });
  await fleetAfterUp(bench, sandbox, { n, label, bought });
  await sandbox.stop();
  if (spec.endsWith(":orders")) await ordersAnchor(bench, shape, { n, label, wall });
}

/** K stacks on one key, a fleet each (K:N:R:T): their 429s, and the last up's end against the side-by-side floor. */
async function stacksCase({ workspace, programs, figures, startSandbox }, spec) {
  const [k, n, r, t] = spec.split(":").slice(0, 4).map(Number);
  const lateMs = Number(/:late=(\d+)/.exec(spec)?.[1] ?? 0) * 1000;
  const tMs = t * 1000;
  const shape = apiShape(spec.split(":").slice(1).join(":"), r, tMs);
  const rateShare = /:share=(\d+)/.exec(spec)?.[1];
  const label = `${k} stacks on one key, a fleet of ${n} each${lateMs ? `, the last ${lateMs / 1000} s late` : ", started together"}${rateShare ? `, each at proxy:maxRateShare ${rateShare}` : ""}, ${r > 0 ? `R = ${r}/s` : "no rate limit"}, T = ${t} s${shape.label}`;
  while (programs.stacks.length < k) programs.stacks.push(await workspace.program(`proxy-fleet-${programs.stacks.length}`, FLEET_PROGRAM));
  const stacks = programs.stacks.slice(0, k);
  for (const program of stacks) await workspace.cli(program, ["config", "set", "count", String(n)]);
  const { floor, said } = await sideBySideFloor(workspace, stacks, startSandbox, shape.options, { k, n, r, tMs, lateMs, label });
  const sandbox = await startSandbox(shape.options);
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey, ...(rateShare ? { PROXY_API_MAX_RATE_SHARE: rateShare } : {}) };
  const { walls, startedAt } = await ups(workspace, stacks, api, lateMs, `ProxyFleet ${label}`);
  const { calls, throttled, share, perOrder } = requestFigures(sandbox, k * n);
  const bought = sandbox.createdOrders.length;
  const last = Math.max(...walls);
  // Issue #52's goals: with hints on every answer, 2% and 1.25x; with hints only with 429s or none, 10% and 1.5x.
  const goal = shape.hints === "always" || rateShare ? { refused: 0.02, ratio: 1.25 } : { refused: 0.1, ratio: 1.5 };
  figures.push([
    "ProxyFleet",
    `${label}: ${bought} purchases, ${throttled} of ${calls} requests answered 429, ${perOrder.toFixed(2)} requests per order`,
    `${(share * 100).toFixed(1)}%`,
    `${k * n} purchases, <= ${goal.refused * 100}%`,
    bought === k * n && share <= goal.refused ? "met" : "missed",
  ]);
  figures.push([
    "ProxyFleet",
    `${label}: ups end ${walls.map(seconds).join(", ")} after the first start (the first request ${seconds(firstRequest(sandbox) - startedAt)} after it) vs ${said}`,
    `${(last / floor).toFixed(2)}x`,
    `<= ${goal.ratio}x, the last`,
    last / floor <= goal.ratio ? "met" : "missed",
  ]);
  await Promise.all(stacks.map((program) => workspace.cli(program, ["destroy", "--yes", "--skip-preview"], api)));
  await sandbox.stop();
}

/** A fleet at proxy:maxRateShare 50 beside an application sending half the key's rate (N:R:T). */
async function shareCase({ workspace, programs, figures, startSandbox }, spec) {
  const [n, r, t] = spec.split(":").slice(0, 3).map(Number);
  const tMs = t * 1000;
  const shape = apiShape(spec, r, tMs);
  // The fleet may use half the key's rate: max(T + N/(R/2), 2N/(R/2)).
  const floor = Math.max(tMs + (n / (r / 2)) * 1000, ((2 * n) / (r / 2)) * 1000);
  const label = `a fleet of ${n} at proxy:maxRateShare 50 beside an application sending ${r / 2} of the key's ${r} requests/s, T = ${t} s${shape.label}`;
  const sandbox = await startSandbox(shape.options);
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey, PROXY_API_MAX_RATE_SHARE: "50" };
  await workspace.cli(programs.fleet, ["config", "set", "count", String(n)]);
  const app = steadyApplication(sandbox, r / 2);
  const started = performance.now();
  let ok = true;
  await workspace.cli(programs.fleet, ["up", "--yes", "--skip-preview"], api).catch((error) => {
    ok = false;
    console.error(`bench: ProxyFleet ${label}: up failed: ${String(error.message).slice(-1500)}`);
  });
  const wall = performance.now() - started;
  const answers = await app.stop();
  const appRefused = answers.filter((status) => status === 429).length;
  const fleetCalls = sandbox.requests.filter((q) => q.path.startsWith("/v1/") && q.path !== "/v1/usage");
  figures.push([
    "ProxyFleet",
    `${label}: the application's requests answered 429: ${appRefused} of ${answers.length}; the fleet's: ${fleetCalls.filter((q) => q.status === 429).length} of ${fleetCalls.length}`,
    `${((appRefused / Math.max(1, answers.length)) * 100).toFixed(1)}%`,
    "<= 1% (the application's)",
    ok && appRefused / Math.max(1, answers.length) <= 0.01 ? "met" : "missed",
  ]);
  figures.push([
    "ProxyFleet",
    `${label}: up ${seconds(wall)} vs its floor at half the rate, max(T + 2N/R, 4N/R) ${seconds(floor)}`,
    `${(wall / floor).toFixed(2)}x`,
    "<= 1.25x",
    ok && wall / floor <= 1.25 ? "met" : "missed",
  ]);
  await workspace.cli(programs.fleet, ["destroy", "--yes", "--skip-preview"], api);
  await sandbox.stop();
}

/** The ProxyFleet rows of the bench: each single-fleet, K-stack and share case, as [part, what, figure, goal, verdict]. */
export async function fleetResourceFigures(
  root,
  startSandbox,
  cases = DEFAULT_FLEET_RESOURCE_CASES,
  stackCases = DEFAULT_STACKS_CASES,
  shareCases = DEFAULT_SHARE_CASES,
) {
  const workspace = await benchWorkspace(root);
  const programs = {
    fleet: await workspace.program("proxy-fleet", FLEET_PROGRAM),
    orders: await workspace.program("proxy-orders", ORDERS_PROGRAM),
    stacks: [],
  };
  const bench = { workspace, programs, figures: [], startSandbox };
  const specs = (list) => list.split(",").filter(Boolean);
  try {
    for (const spec of specs(cases)) await singleFleetCase(bench, spec);
    for (const spec of specs(stackCases)) await stacksCase(bench, spec);
    for (const spec of specs(shareCases)) await shareCase(bench, spec);
  } finally {
    workspace.cleanup();
  }
  return bench.figures;
}
