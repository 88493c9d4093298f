/**
 * The package as users get it: `npm pack` of this tree, its contents, the ecosystem's own checks (publint and
 * are-the-types-wrong), and a user program type-checked against it under the old and the current Pulumi TypeScript
 * template settings.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packThisTree, REPO_ROOT } from "../helpers/pulumi";

const bin = (name: string) => join(REPO_ROOT, "node_modules", ".bin", name);

/** The tsconfig of Pulumi's TypeScript template before March 2026: node resolution, no esModuleInterop, no skipLibCheck. */
const OLD_TEMPLATE = {
  compilerOptions: {
    strict: true, outDir: "bin", target: "es2020", module: "commonjs", moduleResolution: "node", sourceMap: true,
    experimentalDecorators: true, pretty: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true,
    forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};
/** The current template's settings: Node 16+ resolution (package exports), esModuleInterop. */
const CURRENT_TEMPLATE = {
  compilerOptions: {
    strict: true, outDir: "bin", target: "es2022", module: "node16", moduleResolution: "node16", esModuleInterop: true,
    sourceMap: true, noFallthroughCasesInSwitch: true, noImplicitReturns: true, forceConsistentCasingInFileNames: true,
  },
  files: ["index.ts"],
};

describe("the packed package", () => {
  let dir: string;
  let tarball: string;
  let files: string[];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "pulumi-proxy-pack-"));
    ({ tarball, files } = packThisTree(dir));
    execFileSync("tar", ["xzf", tarball, "-C", dir]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("holds what users need and nothing else", () => {
    const outside = files.filter(
      (f) => !/^dist\/(contract|client|health|tracing|provider|check|dynamic-sdk|sandbox|plugin|policy)\/([\w-]+\/)?[\w.-]+\.(js|d\.ts)$/.test(f),
    );
    expect(outside).toEqual([
      "CHANGELOG.md",
      "LICENSE",
      "README.md",
      "bin/pulumi-resource-proxy",
      "dist/plugin/schema.json",
      "docs/api-contract.md",
      "docs/going-live.md",
      "docs/openapi.json",
      "docs/sandbox.md",
      "package.json",
      "policy-pack/PulumiPolicy.yaml",
      "policy-pack/index.js",
      "policy-pack/package.json",
    ]);
    // A module whose source was moved or removed leaves its output in dist/ unless the build starts clean.
    const sourceless = files.filter((f) => f.startsWith("dist/") && f.endsWith(".js") && !existsSync(join(REPO_ROOT, f.slice("dist/".length).replace(/\.js$/, ".ts"))));
    expect(sourceless).toEqual([]);
    for (const entry of ["dist/dynamic-sdk/index.js", "dist/provider/host.js", "dist/sandbox/index.js", "dist/sandbox/cli.js", "dist/dynamic-sdk/index.d.ts", "dist/plugin/main.js", "dist/check/main.js", "dist/policy/index.js"]) {
      expect(files).toContain(entry);
    }
  });

  it("passes publint", () => {
    const run = spawnSync(bin("publint"), ["--strict", join(dir, "package")], { encoding: "utf8" });
    expect(run.stdout + run.stderr).toContain("All good!");
    expect(run.status).toBe(0);
  });

  it("passes are-the-types-wrong for every entry point and resolution mode", () => {
    const run = spawnSync(bin("attw"), [tarball, "--format", "ascii"], { encoding: "utf8" });
    expect(run.stdout + run.stderr).not.toMatch(/❌|⚠️|🔴|🟡/);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });

  it.each([
    ["the old Pulumi template (moduleResolution node, no esModuleInterop)", OLD_TEMPLATE],
    ["the current Pulumi template (node16 resolution, esModuleInterop)", CURRENT_TEMPLATE],
  ])("type-checks a user program under %s", (_name, tsconfig) => {
    const program = mkdtempSync(join(dir, "program-"));
    const modules = join(program, "node_modules");
    mkdirSync(modules);
    // The program's dependencies: this package from the tarball, the rest as installed here.
    // A copy, not a link: the compiler resolves a package's own imports from its real path, as for an install.
    cpSync(join(dir, "package"), join(modules, "pulumi-proxy"), { recursive: true });
    for (const name of readdirSync(join(REPO_ROOT, "node_modules"))) {
      if (name !== "pulumi-proxy" && name !== ".bin") symlinkSync(join(REPO_ROOT, "node_modules", name), join(modules, name));
    }
    copyFileSync(join(REPO_ROOT, "test", "fixtures", "user-program", "index.ts"), join(program, "index.ts"));
    writeFileSync(join(program, "package.json"), JSON.stringify({ name: "user-program", private: true }));
    writeFileSync(join(program, "tsconfig.json"), JSON.stringify(tsconfig));
    const run = spawnSync(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", program, "--noEmit"], {
      encoding: "utf8",
    });
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
