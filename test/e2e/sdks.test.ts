/**
 * The SDKs generated for the provider plugin: in step with plugin/schema.json, and the Go and Node.js ones compile.
 * (Python's is installed and run by plugin.test.ts; .NET's cannot be built here, see docs/contributing/plugin.md.)
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/pulumi";

const run = promisify(execFile);
const LANGUAGES = ["nodejs", "python", "go", "dotnet"];

/** Every file under `dir`, by path relative to it, with its content. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, "latin1"));
    }
  };
  walk(dir);
  return files;
}

describe("the generated SDKs", () => {
  const scratch = mkdtempSync(join(tmpdir(), "pulumi-proxy-gen-sdk-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("are what scripts/gen-sdk/run makes of plugin/schema.json today (run `npm run gen` after changing it)", async () => {
    await run(join(REPO_ROOT, "scripts", "gen-sdk", "run"), [scratch], { maxBuffer: 16 * 1024 * 1024 });
    for (const language of LANGUAGES) {
      const fresh = tree(join(scratch, language));
      const committed = tree(join(REPO_ROOT, "sdk", language));
      expect([...committed.keys()].sort(), `files of sdk/${language}`).toEqual([...fresh.keys()].sort());
      const differing = [...fresh].filter(([path, text]) => committed.get(path) !== text).map(([path]) => `sdk/${language}/${path}`);
      expect(differing, "files that differ from a fresh generation").toEqual([]);
    }
  }, 600_000);

  const goEnv = { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", CGO_ENABLED: "0", PATH: `${process.env.PATH}:/usr/local/go/bin` };

  it("Go: the SDK builds and passes go vet", async () => {
    await run("go", ["build", "./..."], { cwd: join(REPO_ROOT, "sdk"), env: goEnv });
    await run("go", ["vet", "./..."], { cwd: join(REPO_ROOT, "sdk"), env: goEnv });
  }, 600_000);

  it("Go: the README's Go quick start compiles against the SDK and passes go vet", async () => {
    const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
    const program = /```go\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(program, "README has a ```go block").toBeDefined();
    const dir = mkdtempSync(join(scratch, "go-program-"));
    const sdkModule = readFileSync(join(REPO_ROOT, "sdk", "go.mod"), "utf8");
    const pulumiSdk = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(sdkModule)?.[1];
    writeFileSync(
      join(dir, "go.mod"),
      `module example.com/proxy-quickstart\n\ngo 1.24\n\nrequire (\n\tgithub.com/pulumi-proxy/pulumi-proxy/sdk v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 ${pulumiSdk}\n)\n\n` +
        `replace github.com/pulumi-proxy/pulumi-proxy/sdk => ${join(REPO_ROOT, "sdk")}\n`,
    );
    writeFileSync(join(dir, "go.sum"), readFileSync(join(REPO_ROOT, "sdk", "go.sum")));
    writeFileSync(join(dir, "main.go"), program ?? "");
    await run("go", ["mod", "tidy"], { cwd: dir, env: goEnv });
    await run("go", ["vet", "./..."], { cwd: dir, env: goEnv });
  }, 600_000);

  it("Node.js: the SDK type-checks with its own tsconfig", async () => {
    await run(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", join(REPO_ROOT, "sdk", "nodejs")]);
  }, 120_000);
});
