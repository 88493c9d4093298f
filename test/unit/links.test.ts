/**
 * Every link into the repository of the README and the docs/ pages (users' and contributors') resolves: to a file or
 * folder of the repository, and, with an anchor, to a heading of that page (GitHub's anchors: lower case, punctuation
 * dropped, spaces as hyphens). The README's links are absolute, since the package's README is read on the registry's
 * page and in node_modules, where the docs it links to are not.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const pagesIn = (folder: string) => readdirSync(join(REPO_ROOT, folder)).filter((f) => f.endsWith(".md")).map((f) => `${folder}/${f}`);
const PAGES = ["README.md", ...pagesIn("docs"), ...pagesIn("docs/contributing")];

/** The repository on GitHub, as package.json names it. */
const REPOSITORY = "https://github.com/pulumi-proxy/pulumi-proxy/";

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
    for (const [, link = ""] of prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      // A link into this repository on GitHub (the README's, which must work on the registry's page too) is checked as
      // the file it names.
      const target = link.startsWith(REPOSITORY) ? link.slice(REPOSITORY.length).replace(/^(blob|tree)\/main\//, "") : link;
      if (/^[a-z]+:/i.test(target)) continue;
      const [path = "", anchor] = target.split("#");
      const resolved = path === "" ? file : link === target ? resolve(dirname(file), path) : join(REPO_ROOT, path);
      if (!existsSync(resolved)) {
        broken.push(`${target}: no ${relative(REPO_ROOT, resolved)}`);
      } else if (anchor && statSync(resolved).isFile() && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) {
        broken.push(`${target}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("the README links to the repository, not relatively: it is read on the registry's page and in node_modules", () => {
    const relativeLinks = [...prose(readFileSync(join(REPO_ROOT, "README.md"), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)]
      .map(([, target = ""]) => target)
      .filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith("#"));
    expect(relativeLinks).toEqual([]);
    const repository = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).repository.url as string;
    expect(repository).toBe(`git+${REPOSITORY.replace(/\/$/, "")}.git`);
  });

  it("the README stays a front page (at most about 12 kB)", () => {
    expect(readFileSync(join(REPO_ROOT, "README.md")).length).toBeLessThanOrEqual(12 * 1024);
  });
});
