#!/usr/bin/env node
// `npm test`: builds the package, makes sure the Pulumi CLI is there (building it if needed), runs every test, and
// ends with one plain line of totals, `N passed, M failed, K skipped`, which CI reads.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { totalsLine } from "./test-totals.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const run = (command, args, options = {}) => spawnSync(command, args, { cwd: root, stdio: "inherit", ...options });

// The build compiles the package; the type check also covers the tests, which vitest runs without checking types.
const build = run("npm", ["run", "build", "--silent"]);
const typecheck = build.status === 0 ? run("npm", ["run", "typecheck", "--silent"]) : build;
if (build.status !== 0 || typecheck.status !== 0) {
  console.log("0 passed, 1 failed");
  console.error("run-tests: the TypeScript build or type check failed (above); no test ran.");
  process.exit(1);
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

const reportDir = mkdtempSync(join(tmpdir(), "pulumi-proxy-tests-"));
const report = join(reportDir, "report.json");
const vitest = run(
  process.execPath,
  [join(root, "node_modules", "vitest", "vitest.mjs"), "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { env: { ...process.env, PULUMI_BIN: pulumiBin } },
);

let totals;
try {
  totals = totalsLine(JSON.parse(readFileSync(report, "utf8")), vitest.status ?? 1);
} catch {
  console.error("run-tests: vitest wrote no report; counting the run as failed.");
}
rmSync(reportDir, { recursive: true, force: true });
console.log(totals ?? "0 passed, 1 failed");
process.exit(vitest.status === 0 && totals !== undefined ? 0 : 1);
