/**
 * The repository's own scripts, where they meet the machine: run through a clone reached by a symlink (a linked home
 * or workspace folder), `node scripts/lib/cache-root.mjs` printed nothing, since Node names the module by its real path
 * and `process.argv[1]` keeps the linked one, and scripts/ensure-pulumi then built the CLI into `/`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cacheRoot } from "../../scripts/lib/cache-root.mjs";
import { REPO_ROOT } from "../helpers/pulumi";

describe("scripts run through a symlinked clone", () => {
  const dir = mkdtempSync(join(tmpdir(), "linked-clone-"));
  const clone = join(dir, "clone");
  symlinkSync(REPO_ROOT, clone, "dir");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("cache-root.mjs prints the cache folder, as it does from the real path", () => {
    for (const root of [REPO_ROOT, clone]) {
      const run = spawnSync(process.execPath, [join(root, "scripts", "lib", "cache-root.mjs")], { encoding: "utf8" });
      expect(run.status).toBe(0);
      expect(run.stdout.trim()).toBe(cacheRoot);
    }
  });
});
