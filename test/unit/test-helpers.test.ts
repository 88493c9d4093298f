import { mkdtempSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSymlink } from "../helpers/pulumi";

describe("ensureSymlink (the e2e helper that links the working tree)", () => {
  const dir = mkdtempSync(join(tmpdir(), "links-"));
  afterEach(() => rmSync(join(dir, "link"), { force: true }));

  it("replaces a link that exists but dangles, where checking existence first threw EEXIST", () => {
    symlinkSync(join(dir, "missing"), join(dir, "link"));
    ensureSymlink("..", join(dir, "link"));
    expect(readlinkSync(join(dir, "link"))).toBe("..");
  });

  it("is a no-op when the link is already right, however often it runs", () => {
    for (let i = 0; i < 3; i++) ensureSymlink("..", join(dir, "link"));
    expect(readlinkSync(join(dir, "link"))).toBe("..");
  });
});
