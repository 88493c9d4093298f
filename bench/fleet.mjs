// Fleets under the API's rate limit: `pulumi up --parallel P` of N ProxyOrders against a sandbox that enforces R
// requests a second per key (a token bucket of one second's worth), each order ready T after its purchase; and the
// same N no-op resources whose create just waits T, with the same CLI, backend and P.
//
// Floors: every order needs one POST and one GET after it is ready, through one budget, so at least 2N/R and T + N/R
// (the issue's floor); and the engine runs at most P creates at once, each lasting at least T, so at least
// ceil(N/P) x T. The ratio is taken against the largest of the three.
import { apiShape } from "./api-shape.mjs";
import { benchWorkspace } from "./workspace.mjs";

/** N ProxyOrders, N from the config's `count`. */
export const ORDERS_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const { ProxyOrder } = require("pulumi-proxy");
const count = new pulumi.Config().getNumber("count") ?? 1;
for (let i = 0; i < count; i++) new ProxyOrder("order-" + i, { planId: "dc-us-5", readyTimeout: "20m" });
`;

const SLEEPING_NOOP_PROGRAM = `const pulumi = require("@pulumi/pulumi");
const provider = {
  async create(inputs) {
    await new Promise((resolve) => setTimeout(resolve, Number(inputs.sleepMs)));
    return { id: "noop-" + inputs.name, outs: inputs };
  },
};
const config = new pulumi.Config();
const count = config.getNumber("count") ?? 1;
const sleepMs = config.getNumber("sleepMs") ?? 0;
for (let i = 0; i < count; i++) new pulumi.dynamic.Resource(provider, "noop-" + i, { name: String(i), sleepMs }, {});
`;

/**
 * `BENCH_FLEET_CASES`: N:P:R:T (T in seconds), comma separated, each optionally followed by flags that make the
 * sandbox less kind (api-shape.mjs): `:on-429`, `:never`, `:no-estimates`, `:latency=<ms>`, `:window=<s>`, `:real`.
 */
export const DEFAULT_FLEET_CASES =
  "50:16:10:20,200:64:20:20,500:64:20:20,100:100:5:5,200:64:20:20:never,100:100:5:5:never,200:200:10:20:on-429,200:200:10:20:never";

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** N ProxyOrders' up at --parallel P against the sandbox: its time, its requests' 429s and span, what it bought. */
async function ordersUp(workspace, program, sandbox, { n, p, label }) {
  const api = { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey };
  await workspace.cli(program, ["config", "set", "count", String(n)]);
  let ok = true;
  const started = performance.now();
  const startedAt = Date.now();
  try {
    await workspace.cli(program, ["up", "--yes", "--skip-preview", "--parallel", String(p)], api);
  } catch (error) {
    ok = false;
    console.error(`bench: fleet ${label}: up failed: ${String(error.message).slice(-2000)}`);
  }
  const wall = performance.now() - started;
  const calls = sandbox.requests.filter((q) => q.path.startsWith("/v1/"));
  const throttled = calls.filter((q) => q.status === 429).length;
  // The requests' own span, from the first to the last arrival: the wall time less the engine's start (its program
  // registering N resources before any create runs) and its end.
  const firstAt = Math.min(...calls.map((q) => q.at));
  const span = Math.max(...calls.map((q) => q.at)) - firstAt;
  const bought = sandbox.createdOrders.length;
  await workspace.cli(program, ["destroy", "--yes", "--skip-preview"], api);
  return { ok, wall, calls: calls.length, throttled, span, firstAfter: firstAt - startedAt, bought };
}

/** The anchor: N no-op resources whose create waits T, at the same --parallel. */
async function noopUp(workspace, program, { n, p, tMs }) {
  await workspace.cli(program, ["config", "set", "count", String(n)]);
  await workspace.cli(program, ["config", "set", "sleepMs", String(tMs)]);
  const started = performance.now();
  await workspace.cli(program, ["up", "--yes", "--skip-preview", "--parallel", String(p)]);
  const noop = performance.now() - started;
  await workspace.cli(program, ["destroy", "--yes", "--skip-preview"]);
  return noop;
}

/** One case, N:P:R:T with the API's shape: the orders' up against its floor and against the no-op anchor. */
async function fleetCase(workspace, programs, startSandbox, spec) {
  const [n, p, r, t] = spec.split(":").slice(0, 4).map(Number);
  const shape = apiShape(spec, r, t * 1000);
  const tMs = t * 1000;
  const issueFloor = Math.max(tMs + (n / r) * 1000, ((2 * n) / r) * 1000);
  const floor = Math.max(issueFloor, Math.ceil(n / p) * tMs);
  const label = `N = ${n}, --parallel ${p}, R = ${r}/s, T = ${t} s${shape.label}`;
  const sandbox = await startSandbox(shape.options);
  const up = await ordersUp(workspace, programs.orders, sandbox, { n, p, label });
  await sandbox.stop();
  const noop = await noopUp(workspace, programs.noop, { n, p, tMs });
  const share = up.calls > 0 ? up.throttled / up.calls : 0;
  return [
    [
      "fleet",
      `${label}: first up ${up.ok ? "succeeded" : "FAILED"}, ${up.bought} purchases, ${up.throttled} of ${up.calls} requests answered 429, ${(up.calls / n).toFixed(2)} requests per order`,
      `${(share * 100).toFixed(1)}%`,
      `one up, ${n} purchases, <= 2%`,
      up.ok && up.bought === n && share <= 0.02 ? "met" : "missed",
    ],
    [
      "fleet",
      `${label}: up ${seconds(up.wall)} vs floor ${seconds(floor)} (the issue's max(T + N/R, 2N/R) is ${seconds(issueFloor)})`,
      `${(up.wall / floor).toFixed(2)}x`,
      "<= 1.25x",
      up.wall / floor <= 1.25 ? "met" : "missed",
    ],
    [
      "fleet, anchor",
      `${label}: the first request ${seconds(up.firstAfter)} after the up began; the requests spanned ${seconds(up.span)} vs floor ${seconds(floor)}`,
      `${(up.span / floor).toFixed(2)}x`,
      "for comparison",
      "",
    ],
    ["fleet, anchor", `${label}: no-op resources whose create waits T: up ${seconds(noop)}; ours against it`, `${(up.wall / noop).toFixed(2)}x`, "for comparison", ""],
  ];
}

/** The fleet-of-orders rows of the bench: N ProxyOrders per case, as [part, what, figure, goal, verdict]. */
export async function fleetFigures(root, startSandbox, cases = DEFAULT_FLEET_CASES) {
  const workspace = await benchWorkspace(root);
  const programs = {
    orders: await workspace.program("fleet-orders", ORDERS_PROGRAM),
    noop: await workspace.program("fleet-noop", SLEEPING_NOOP_PROGRAM),
  };
  const figures = [];
  try {
    for (const spec of cases.split(",")) figures.push(...(await fleetCase(workspace, programs, startSandbox, spec)));
  } finally {
    workspace.cleanup();
  }
  return figures;
}
