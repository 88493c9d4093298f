/**
 * The platforms the docs promise are the ones `npm run dist` builds: every list of them, on every page that gives
 * one, is held to scripts/dist.mjs.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const PAGES = ["docs/_index.md", "docs/languages.md", "docs/installation-configuration.md", "docs/contributing/plugin.md"];

describe("the plugin's platforms", () => {
  it("every page that lists them lists exactly the archives npm run dist builds", async () => {
    const { TARGETS } = (await import(join(REPO_ROOT, "scripts", "dist.mjs"))) as { TARGETS: Record<string, unknown> };
    const built = Object.keys(TARGETS).sort();
    expect(built).toContain("darwin-arm64");
    for (const page of PAGES) {
      const text = readFileSync(join(REPO_ROOT, page), "utf8").replace(/\s+/g, " ");
      // A list: platform names separated by commas (and "and"), each perhaps followed by a parenthesis.
      const lists = text.match(/(?:[a-z]+-(?:amd64|arm64)(?: \([^)]*\))?(?:, | and |, and ))+[a-z]+-(?:amd64|arm64)/g) ?? [];
      const full = lists.filter((list) => list.split(/, | and /).length >= 4);
      expect(full.length, `${page}: a list of the platforms`).toBeGreaterThan(0);
      for (const list of full) expect([...list.matchAll(/[a-z]+-(?:amd64|arm64)/g)].map((m) => m[0]).sort(), `${page}: ${list}`).toEqual(built);
    }
  });

  it("the platform table of docs/operating.md has a row for each archive", async () => {
    const { TARGETS } = (await import(join(REPO_ROOT, "scripts", "dist.mjs"))) as { TARGETS: Record<string, unknown> };
    const text = readFileSync(join(REPO_ROOT, "docs", "operating.md"), "utf8");
    const rows = text.split("## Platforms")[1]?.split("\n").filter((line) => /^\| [a-z]+-(amd64|arm64) \|/.test(line)) ?? [];
    expect(rows.map((row) => row.split("|")[1]?.trim()).sort()).toEqual(Object.keys(TARGETS).sort());
  });

  it("`npm run dist -- --local` picks this machine's platform by Pulumi's name, and refuses one it cannot build", async () => {
    const { localTarget, TARGETS } = (await import(join(REPO_ROOT, "scripts", "dist.mjs"))) as {
      localTarget: (platform?: string, arch?: string) => string;
      TARGETS: Record<string, unknown>;
    };
    expect([localTarget("linux", "x64"), localTarget("linux", "arm64"), localTarget("darwin", "arm64"), localTarget("win32", "x64")]).toEqual([
      "linux-amd64",
      "linux-arm64",
      "darwin-arm64",
      "windows-amd64",
    ]);
    expect(Object.keys(TARGETS)).toContain(localTarget());
    expect(() => localTarget("freebsd", "x64")).toThrow(/no executable is built for freebsd-x64/);
  });
});
