#!/usr/bin/env node
// `npm run demo`: buys a proxy plan from the local sandbox with the real Pulumi CLI and shows the result.
//
// It makes sure the CLI is there, starts the sandbox on a free port (keeping its orders in .demo/), uses a local
// backend in .demo/, creates or selects the stack `demo`, sets the config (the key as a secret), runs `pulumi up`,
// prints the proxies, their health (each checked through itself: the sandbox serves its proxies) and the usage as
// tables, refreshes to show there is no drift, and stops the sandbox. `npm run demo -- --records minimal` runs it
// against proxies of the seed's four fields, allow-listed by IP (no credentials).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const demoDir = join(root, ".demo");
const require = createRequire(import.meta.url);
const { startSandbox, SANDBOX_API_KEY } = require(join(root, "dist", "sandbox", "index.js"));

const say = (text) => console.log(`\n== ${text}`);

function ensurePulumi() {
  const result = spawnSync(join(root, "scripts", "ensure-pulumi"), [], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  if (result.status !== 0) process.exit(1);
  return result.stdout.trim().split("\n").pop();
}

const pulumiBin = ensurePulumi();
const env = {
  ...process.env,
  PULUMI_HOME: join(demoDir, "home"),
  PULUMI_BACKEND_URL: `file://${join(demoDir, "backend")}`,
  PULUMI_CONFIG_PASSPHRASE: process.env.PULUMI_CONFIG_PASSPHRASE ?? "demo",
  PULUMI_SKIP_UPDATE_CHECK: "true",
};

/** Runs pulumi without blocking the sandbox in this process; resolves with its stdout when `capture` is set. */
function pulumi(args, { capture = false, allowFailure = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(pulumiBin, [...args, "--non-interactive"], {
      cwd: root,
      env,
      stdio: ["ignore", capture ? "pipe" : "inherit", "inherit"],
    });
    let out = "";
    child.stdout?.on("data", (chunk) => (out += chunk));
    child.on("close", (code) => {
      if (code === 0 || allowFailure) resolve({ code, out });
      else reject(new Error(`pulumi ${args.join(" ")} exited with ${code}`));
    });
  });
}

function table(rows, columns) {
  const widths = columns.map(([title, get]) => Math.max(title.length, ...rows.map((r) => String(get(r) ?? "").length)));
  const line = (cells) => cells.map((c, i) => String(c ?? "").padEnd(widths[i])).join("  ");
  console.log(line(columns.map(([title]) => title)));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(columns.map(([, get]) => get(row))));
}

const bytes = (n) => (n === null ? "unlimited" : n >= 1024 ** 3 ? `${(n / 1024 ** 3).toFixed(2)} GiB` : `${(n / 1024 ** 2).toFixed(2)} MiB`);

/**
 * `--records minimal` (after `npm run demo --`): the sandbox sends the least the contract allows, proxies of the seed's
 * four fields without credentials (docs/sandbox.md); `full`, the default, every field.
 */
function recordsOption() {
  const at = process.argv.indexOf("--records");
  const records = at < 0 ? "full" : process.argv[at + 1];
  if (records !== "full" && records !== "minimal") {
    console.error(`demo: --records must be full or minimal (got ${JSON.stringify(records)})`);
    process.exit(1);
  }
  return records;
}

/**
 * The sandbox, on the port of the demo's last run (kept in .demo/sandbox-port): the stack's orders record the URL they
 * were bought at, and are read nowhere else. `moved` names that URL when its port was taken and another was used.
 */
async function startDemoSandbox() {
  const portFile = join(demoDir, "sandbox-port");
  const earlier = existsSync(portFile) ? Number(readFileSync(portFile, "utf8")) : 0;
  const options = { provisioningMs: 4000, stateFile: join(demoDir, "sandbox-state.json"), serveProxies: true, records: recordsOption() };
  let sandbox;
  let moved;
  try {
    sandbox = await startSandbox({ ...options, port: earlier });
  } catch {
    sandbox = await startSandbox({ ...options, port: 0 });
    moved = `http://127.0.0.1:${earlier}`;
  }
  writeFileSync(portFile, String(sandbox.port));
  return { sandbox, moved };
}

/** The stack `demo`, made or selected, pointed at the sandbox. */
async function selectStack(sandbox) {
  const stacks = await pulumi(["stack", "ls", "--json"], { capture: true });
  const exists = JSON.parse(stacks.out || "[]").some((s) => s.name === "demo");
  await pulumi(["stack", exists ? "select" : "init", "demo"]);
  await pulumi(["config", "set", "proxy:baseUrl", sandbox.url]);
  await pulumi(["config", "set", "proxy:apiKey", SANDBOX_API_KEY, "--secret"]);
  await pulumi(["config", "set", "healthTarget", sandbox.proxies.echoUrl]);
}

/** The order's proxies, their health and the account's usage, from the stack's outputs. */
function showOutputs(outputs) {
  say(`Order ${outputs.orderId}: ${outputs.status} since ${outputs.readyAt}`);
  table(outputs.proxies, [
    ["IP", (p) => p.ip],
    ["PORT", (p) => p.port],
    ["PROTOCOL", (p) => p.protocol],
    ["TYPE", (p) => p.type],
    ["COUNTRY", (p) => p.country],
    ["CITY", (p) => p.city],
    ["EXPIRES", (p) => p.expiresAt],
  ]);
  console.log("(credentials are a secret output: pulumi stack output credentials --show-secrets)");

  const h = outputs.health;
  say(`Health: ${h.healthy} of ${h.total} proxies answered through themselves (checked at ${h.checkedAt})`);
  table(h.results, [
    ["IP", (r) => r.ip],
    ["PORT", (r) => r.port],
    ["HEALTHY", (r) => (r.healthy ? "yes" : "no")],
    ["LATENCY", (r) => (r.latencyMs === undefined ? "" : `${r.latencyMs} ms`)],
    ["EXIT IP", (r) => r.exitIp ?? ""],
    ["FAILURE", (r) => r.failure ?? ""],
  ]);

  const u = outputs.usage;
  say(`Usage from ${u.period.start} to ${u.period.end} (as of ${u.asOf})`);
  table(
    [
      { what: "bandwidth", used: bytes(u.bandwidth.usedBytes), limit: bytes(u.bandwidth.limitBytes) },
      { what: "requests", used: u.requests.used, limit: u.requests.limit ?? "unlimited" },
    ],
    [
      ["", (r) => r.what],
      ["USED", (r) => r.used],
      ["LIMIT", (r) => r.limit],
    ],
  );
}

/** Refresh, then a preview that must show no change; `moved` names the URL whose orders could not be read. */
async function checkDrift(moved) {
  say("pulumi refresh (the order as the API sees it now)");
  await pulumi(["refresh", "--yes", "--skip-preview", "--suppress-outputs"]);
  const drift = await pulumi(["preview", "--expect-no-changes"], { capture: true, allowFailure: true });
  say(
    moved
      ? `Drift not checked for the orders bought at ${moved}: start the demo again once that port is free.`
      : drift.code === 0
        ? "No drift: the state matches the API."
        : "Drift found: see `pulumi preview --diff`.",
  );
}

async function main() {
  mkdirSync(join(demoDir, "backend"), { recursive: true });
  // Programs in this repository import `pulumi-proxy`: resolve it to this working tree.
  const link = join(root, "node_modules", "pulumi-proxy");
  if (!existsSync(link)) symlinkSync("..", link, "dir");

  const { sandbox, moved } = await startDemoSandbox();
  say(`Sandbox API running at ${sandbox.url} (orders kept in .demo/sandbox-state.json)`);
  if (moved) {
    say(
      `The sandbox could not listen on ${moved}, where the stack's earlier orders were bought (the port is in use): ` +
        "they are not read at the new address, and the drift check below cannot speak for them.",
    );
  }
  try {
    await selectStack(sandbox);
    say("pulumi up");
    await pulumi(["up", "--yes", "--skip-preview", "--suppress-outputs"]);
    showOutputs(JSON.parse((await pulumi(["stack", "output", "--json"], { capture: true })).out));
    await checkDrift(moved);
  } finally {
    await sandbox.stop();
  }
  console.log(`
The stack \`demo\` is kept. To look at it or remove it:
  export PULUMI_HOME=${env.PULUMI_HOME} PULUMI_BACKEND_URL=${env.PULUMI_BACKEND_URL} PULUMI_CONFIG_PASSPHRASE=${env.PULUMI_CONFIG_PASSPHRASE}
  ${pulumiBin} stack output
  ${pulumiBin} destroy     # forgets the order; the sandbox API has no cancel, like the real one`);
}

main().catch((error) => {
  console.error(`demo: ${error.message}`);
  process.exit(1);
});
