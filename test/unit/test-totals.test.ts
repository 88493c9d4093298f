import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script of the test runner, without type declarations
import { totalsLine } from "../../scripts/test-totals.mjs";
import { REPO_ROOT } from "../helpers/pulumi";

const fixture = join(REPO_ROOT, "test", "fixtures", "failing-hook");
const total = totalsLine as (report: unknown, exitCode: number) => string;

describe("the totals line of npm test", () => {
  it("counts a file whose beforeAll failed as a failure, from a real vitest report", () => {
    const dir = mkdtempSync(join(tmpdir(), "totals-"));
    try {
      const out = join(dir, "report.json");
      const run = spawnSync(
        process.execPath,
        [
          join(REPO_ROOT, "node_modules", "vitest", "vitest.mjs"),
          "run",
          "--root",
          fixture,
          "--config",
          join(fixture, "vitest.config.mjs"),
          "--reporter=json",
          `--outputFile.json=${out}`,
        ],
        { encoding: "utf8" },
      );
      expect(run.status).not.toBe(0);
      expect(total(JSON.parse(readFileSync(out, "utf8")), run.status ?? 1)).toBe("0 passed, 1 failed, 1 skipped");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("never says 0 failed when vitest exited non-zero", () => {
    const empty = { numPassedTests: 3, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0, testResults: [] };
    expect(total(empty, 1)).toBe("3 passed, 1 failed");
    expect(total(empty, 0)).toBe("3 passed, 0 failed");
  });
});
