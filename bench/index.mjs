#!/usr/bin/env node
// `npm run bench`: every performance figure of issue #9 as a ratio against its floor or goal, all measured in this
// run, on this machine. Prints a markdown table and writes it, with the machine, into docs/contributing/benchmarks.md
// between the markers there. Figures, never assertions: nothing here fails a build.
//
// BENCH_REPEATS (default 3) sets the runs per engine figure (the median is kept); BENCH_SKIP_ENGINE=1 skips the
// Pulumi CLI parts, which take many minutes; BENCH_ENGINE_SIZES (default "1,10,50") sets the engine part's values of
// N; BENCH_FLEET_CASES (default in fleet.mjs) the fleet part's N:P:R:T; BENCH_FLEET_RESOURCE_CASES (default in
// fleet-resource.mjs) the ProxyFleet part's N:R:T, BENCH_STACKS its K stacks on one key, BENCH_LIMITER_CASES (default in
// limiter-stacks.mjs) its K stacks behind express-rate-limit, nginx, HAProxy and a sliding log, BENCH_SHARE_CASES its fleet
// beside an application; BENCH_SHARED_ACCOUNT (default in shared-account.mjs) the shared account's refresh;
// BENCH_API=real makes the sandbox unkind in every case (api-shape.mjs). BENCH_ONLY=main, BENCH_ONLY=fleet,
// BENCH_ONLY=fleet-resource or BENCH_ONLY=health runs that part alone and rewrites only its table in
// docs/contributing/benchmarks.md.
import { execFile, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { anchors, getBudget, lagGoal, simulate, simulateWaiter, SWEEP, sweep } from "./waiter.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// The CLI runs the programs' and the dynamic providers' `node` from PATH: the main test leg's Node line, not whatever
// the machine has (which may be one this package does not support), so that the figures are a supported line's.
const { main: mainLeg } = JSON.parse(readFileSync(join(root, "scripts", "test-legs.json"), "utf8"));
if (process.versions.node !== mainLeg.node) {
  const { withNode } = await import("../scripts/lib/node-line.mjs");
  const env = withNode(mainLeg.node);
  const rerun = spawnSync("node", process.argv.slice(1), { env, stdio: "inherit" });
  process.exit(rerun.status ?? 1);
}
const require = createRequire(import.meta.url);
const { startSandbox, PLANS } = require(join(root, "dist", "sandbox", "index.js"));
const repeats = Number(process.env.BENCH_REPEATS ?? 3);
const only = process.env.BENCH_ONLY;
const fleetOnly = only === "fleet" || only === "fleet-resource" || only === "health";
const rows = [];
const fleetRows = [];
const fleetResourceRows = [];
const healthRows = [];
const row = (area, figure, value, goal, verdict) => {
  const table = area.startsWith("fleet") ? fleetRows : area.startsWith("ProxyFleet") ? fleetResourceRows : area.startsWith("health") ? healthRows : rows;
  table.push({ area, figure, value, goal, verdict });
  console.error(`bench: ${area} | ${figure} | ${value} | ${goal} | ${verdict}`);
};
const fmt = (x, digits = 2) => Number(x).toFixed(digits);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (!fleetOnly) {
  // 1. Readiness detection on a simulated clock.
  const ours = await sweep((t) => simulateWaiter(root, t));
  row("readiness, no hints", "worst lag / (250 ms + T/10), T = 1 s..20 min", fmt(ours.lagRatio), "<= 1", ours.lagRatio <= 1 ? "met" : "missed");
  row("readiness, no hints", "worst GETs / (2 log2(T/250 ms) + T/10 s)", fmt(ours.getRatio), "<= 1", ours.getRatio <= 1 ? "met" : "missed (see below)");
  row("readiness, no hints", "GETs for T = 20 min", String(ours.getsAt20min), `<= ${Math.floor(getBudget(1_200_000))}`, ours.getsAt20min <= getBudget(1_200_000) ? "met" : "missed");
  for (const [name, poller] of Object.entries(anchors)) {
    const a = await sweep(async (t) => simulate(poller, t));
    row("readiness, anchor", `${name}: worst lag ratio, worst GET ratio, GETs at 20 min`, `${fmt(a.lagRatio)}, ${fmt(a.getRatio)}, ${a.getsAt20min}`, "for comparison", "");
  }
  const exact = await sweep((t) => simulateWaiter(root, t, 0));
  row("readiness, exact estimate", "worst lag (ms)", fmt(exact.worstLag.lag, 0), "<= 250", exact.worstLag.lag <= 250 ? "met" : "missed");
  const at40 = await simulateWaiter(root, 40_000, 0);
  row("readiness, exact estimate", "GETs per order at T = 40 s (no hint: " + (await simulateWaiter(root, 40_000)).gets + ")", String(at40.gets), "<= 4", at40.gets <= 4 ? "met" : "missed");
  for (const error of [-0.2, 0.2]) {
    // The lag counts from the later of the ready time and the estimate; the GETs against the same T without a hint.
    let lagRatio = 0;
    let moreGets = 0;
    for (const t of SWEEP) {
      const off = await simulateWaiter(root, t, error);
      const none = await simulateWaiter(root, t);
      lagRatio = Math.max(lagRatio, (off.lag - Math.max(0, error * t)) / lagGoal(t));
      moreGets = Math.max(moreGets, off.gets - none.gets);
    }
    row("readiness, estimate off", `estimate ${error * 100}%: worst lag after the later of ready and estimate / no-hint goal`, fmt(lagRatio), "<= 1", lagRatio <= 1 ? "met" : "missed");
    row("readiness, estimate off", `estimate ${error * 100}%: most GETs over the same T without a hint`, String(moreGets), "<= 0", moreGets <= 0 ? "met" : "missed");
  }

  // 2. Readiness in real time: provider create against the sandbox, which sends no polling hints here and keeps its
  // default rate limit (10 requests/s), so the figures also show that a single order's budget holds nothing back.
  {
    const { createOrderProvider } = require(join(root, "dist", "provider", "index.js"));
    for (const t of [1000, 3000, 10_000]) {
      const sandbox = await startSandbox({ provisioningMs: t, pollingHints: false });
      const provider = createOrderProvider({ log: { info() {}, warn() {} }, testing: { env: { PROXY_API_BASE_URL: sandbox.url, PROXY_API_KEY: sandbox.apiKey } } });
      const { id } = await provider.create({ planId: "dc-us-5", waitForReady: true, readyTimeout: "5m", idempotencyKey: `bench-${t}-${Date.now()}` });
      // T counts from the purchase, as the sandbox recorded it.
      const lag = Date.now() - (sandbox.state.orders.get(id).createdAt + t);
      const gets = sandbox.requests.filter((r) => r.method === "GET").length;
      row("readiness, real time", `T = ${t / 1000} s: lag (ms), GETs`, `${lag}, ${gets}`, `<= ${lagGoal(t)} ms`, lag <= lagGoal(t) ? "met" : "missed");
      await sandbox.stop();
    }
  }

  // 3. Listing 100,000 proxies: getProxies against a raw undici loop over the same pages, each in its own process.
  {
    const sandbox = await startSandbox({ rateLimit: false });
    const plan = PLANS["dc-us-250"];
    for (let i = 0; i < 400; i++) sandbox.state.createOrder(plan, Date.now() - 60_000, { provisioningMs: 0 }, { hiddenReads: 0, fails: false });
    const child = (mode) =>
      new Promise((resolve, reject) =>
        execFile(process.execPath, [join(root, "bench", "listing-child.mjs"), root, mode, sandbox.url, sandbox.apiKey], (error, stdout) =>
          error ? reject(error) : resolve(JSON.parse(stdout)),
        ),
      );
    const runs = { ours: [], raw: [] };
    for (let i = 0; i < repeats; i++) {
      runs.raw.push(await child("raw"));
      runs.ours.push(await child("ours"));
    }
    const t = median(runs.ours.map((r) => r.ms)) / median(runs.raw.map((r) => r.ms));
    const m = median(runs.ours.map((r) => r.maxRssMb)) / median(runs.raw.map((r) => r.maxRssMb));
    row("listing 100,000 proxies", `time: ${fmt(median(runs.ours.map((r) => r.ms)), 0)} ms vs raw ${fmt(median(runs.raw.map((r) => r.ms)), 0)} ms`, `${fmt(t)}x`, "<= 1.5x", t <= 1.5 ? "met" : "missed");
    row("listing 100,000 proxies", `peak memory: ${fmt(median(runs.ours.map((r) => r.maxRssMb)), 0)} MB vs raw ${fmt(median(runs.raw.map((r) => r.maxRssMb)), 0)} MB`, `${fmt(m)}x`, "<= 2x", m <= 2 ? "met" : "missed");
    await sandbox.stop();
  }

  // 4. Engine overhead: N ProxyOrders against N no-op dynamic resources, same CLI and backend.
  if (process.env.BENCH_SKIP_ENGINE !== "1") {
    const { engineFigures } = await import("./engine.mjs");
    const sizes = (process.env.BENCH_ENGINE_SIZES ?? "1,10,50").split(",").map(Number);
    for (const figure of await engineFigures(root, repeats, startSandbox, sizes)) row(...figure);
    const { sharedAccountFigures, DEFAULT_SHARED_ACCOUNT } = await import("./shared-account.mjs");
    for (const figure of await sharedAccountFigures(root, startSandbox, PLANS, process.env.BENCH_SHARED_ACCOUNT ?? DEFAULT_SHARED_ACCOUNT)) row(...figure);
  }
}

// 5. Fleets under the API's rate limit, against their floors and a no-op resource that waits as long.
if (process.env.BENCH_SKIP_ENGINE !== "1" && (!only || only === "fleet")) {
  const { fleetFigures, DEFAULT_FLEET_CASES } = await import("./fleet.mjs");
  for (const figure of await fleetFigures(root, startSandbox, process.env.BENCH_FLEET_CASES ?? DEFAULT_FLEET_CASES)) row(...figure);
}

// 6. ProxyFleet: one resource of N orders, not bound by the engine's slots, against the API's floor.
if (process.env.BENCH_SKIP_ENGINE !== "1" && (!only || only === "fleet-resource")) {
  const { fleetResourceFigures, DEFAULT_FLEET_RESOURCE_CASES, DEFAULT_STACKS_CASES, DEFAULT_SHARE_CASES } = await import("./fleet-resource.mjs");
  const env = process.env;
  const figures = await fleetResourceFigures(
    root,
    startSandbox,
    env.BENCH_FLEET_RESOURCE_CASES ?? DEFAULT_FLEET_RESOURCE_CASES,
    env.BENCH_STACKS ?? DEFAULT_STACKS_CASES,
    env.BENCH_SHARE_CASES ?? DEFAULT_SHARE_CASES,
  );
  for (const figure of figures) row(...figure);
  const { limiterStackFigures, DEFAULT_LIMITER_CASES } = await import("./limiter-stacks.mjs");
  for (const figure of await limiterStackFigures(root, startSandbox, env.BENCH_LIMITER_CASES ?? DEFAULT_LIMITER_CASES)) row(...figure);
}

// 7. Health checks of 1,000 proxies through themselves, against the floor their answers set (no CLI: always run).
if (!only || only === "health") {
  const { healthFigures } = await import("./health.mjs");
  for (const figure of await healthFigures(root, startSandbox)) row(...figure);
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
const tableOf = (list, runs) =>
  [
    `Measured on ${machine}; ${runs}.`,
    "",
    "| Area | Figure | Value | Goal | |",
    "|---|---|---|---|---|",
    ...list.map((r) => `| ${r.area} | ${r.figure} | ${r.value} | ${r.goal} | ${r.verdict} |`),
  ].join("\n");
const docPath = join(root, "docs", "contributing", "benchmarks.md");
let doc = readFileSync(docPath, "utf8");
/** Replaces what stands between the markers `<!-- ${name}:begin -->` and `<!-- ${name}:end -->`. */
const place = (name, table) => {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  doc = doc.slice(0, doc.indexOf(begin) + begin.length) + "\n" + table + "\n" + doc.slice(doc.indexOf(end));
};
if (!fleetOnly) {
  const table = tableOf(rows, `${repeats} run(s) per engine and listing figure, medians`);
  console.log(table);
  place("bench", table);
}
if (fleetRows.length > 0) {
  const table = tableOf(fleetRows, "one run per case");
  console.log(table);
  place("bench-fleet", table);
}
if (fleetResourceRows.length > 0) {
  const table = tableOf(fleetResourceRows, "one run per case");
  console.log(table);
  place("bench-fleet-resource", table);
}
if (healthRows.length > 0) {
  const table = tableOf(healthRows, "one run per case");
  console.log(table);
  place("bench-health", table);
}
writeFileSync(docPath, doc);
