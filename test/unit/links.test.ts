/**
 * Every relative link of the README and the docs/ pages (users' and contributors') resolves: to a file or folder of
 * the repository, and, with an anchor, to a heading of that page (GitHub's anchors: lower case, punctuation dropped,
 * spaces as hyphens).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const pagesIn = (folder: string) => readdirSync(join(REPO_ROOT, folder)).filter((f) => f.endsWith(".md")).map((f) => `${folder}/${f}`);
const PAGES = ["README.md", ...pagesIn("docs"), ...pagesIn("docs/contributing")];

/** The text outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor of a heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function anchors(file: string): Set<string> {
  const headings = prose(readFileSync(file, "utf8")).match(/^#{1,6} .*$/gm) ?? [];
  return new Set(headings.map((h) => anchorOf(h.replace(/^#+ /, ""))));
}

describe("links in the README and docs/", () => {
  it.each(PAGES)("every relative link of %s resolves", (page) => {
    const file = join(REPO_ROOT, page);
    const broken: string[] = [];
    for (const [, target = ""] of prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = "", anchor] = target.split("#");
      const resolved = path === "" ? file : resolve(dirname(file), path);
      if (!existsSync(resolved)) {
        broken.push(`${target}: no ${relative(REPO_ROOT, resolved)}`);
      } else if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README stays a front page (at most about 12 kB)", () => {
    expect(readFileSync(join(REPO_ROOT, "README.md")).length).toBeLessThanOrEqual(12 * 1024);
  });
});
