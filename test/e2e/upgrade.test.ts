/**
 * Quiet upgrades, with the real CLI: a stack made by each earlier release (its real code, packed: before renewal and
 * fleets, with them, the last before orders recorded their API, and the last before health checks), upgraded to this
 * tree with `npm install` as a user does. The preview plans nothing (`--expect-no-changes` passes), a refresh shows no drift and
 * leaves the preview clean, and `up` buys and rewrites nothing.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packThisTree, REPO_ROOT, type JsonSummary } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "previous-release");

/** Earlier releases, packed (test/fixtures/previous-release/README.md). */
const RELEASES = [
  { commit: "92b0c2b", what: "before renewal and fleets" },
  { commit: "181b51f", what: "with renewal and fleets, before orders recorded their API" },
  { commit: "0a11d9d", what: "the last before orders recorded their API" },
  { commit: "023774e", what: "the last before health checks" },
];

/** This tree, packed as npm publishes it, once for every release's stack. */
let outside = "";
let current = "";
beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), "pulumi-proxy-upgrade-"));
  current = packThisTree(outside).tarball;
}, 300_000);
afterAll(() => rmSync(outside, { recursive: true, force: true }));

/** The operations on the proxy resources (not the stack, providers or functions). */
const proxyOps = (result: JsonSummary) => (result.steps ?? []).filter((s) => /Proxy(Order|Fleet)/.test(s.urn)).map((s) => s.op);

for (const release of RELEASES) {
  describe(`a stack of ${release.commit} (${release.what}), upgraded with npm install (real CLI)`, () => {
    const stack = useStack("examples/quickstart", {
      stack: `upgraded-${release.commit}`,
      sandbox: { provisioningMs: 500 },
      installedDir: () => {
        // The quick start where a user keeps it, as it was then (the same program in each of these releases).
        const dir = join(mkdtempSync(join(outside, `${release.commit}-`)), "quickstart");
        cpSync(join(REPO_ROOT, "examples", "quickstart"), dir, { recursive: true });
        cpSync(join(FIXTURES, "quickstart-index.ts"), join(dir, "index.ts"));
        execFileSync("npm", ["install", "--no-audit", "--no-fund", join(FIXTURES, `pulumi-proxy-0.1.0-${release.commit}.tgz`)], { cwd: dir, stdio: "pipe" });
        return dir;
      },
    });

    it("previews clean, refreshes without drift, and up buys and rewrites nothing", async () => {
      const { program, sandbox } = stack;
      await program.up();
      const before = await program.exportState();
      const orders = before.resources.filter((r) => r.type.endsWith("ProxyOrder")).map((r) => String(r.id));
      expect(orders).toHaveLength(1);
      execFileSync("npm", ["install", "--no-audit", "--no-fund", current], { cwd: program.dir, stdio: "pipe" });
      await program.preview("--expect-no-changes");
      const refresh = await program.refresh();
      expect(Object.keys(refresh.changeSummary ?? {})).toEqual(["same"]);
      await program.preview("--expect-no-changes");
      const up = await program.up();
      expect(proxyOps(up).every((op) => op === "same")).toBe(true);
      const after = await program.exportState();
      expect(after.resources.filter((r) => r.type.endsWith("ProxyOrder")).map((r) => String(r.id))).toEqual(orders);
      expect(sandbox.createdOrders).toHaveLength(1);
    }, 600_000);
  });
}
