/**
 * The examples of each resource (plugin/examples/<Resource>/, embedded in the schema and docs/examples.md), each
 * compiled or run with its language's toolchain: TypeScript type-checked against sdk/nodejs, Go vetted against
 * sdk/go, Python run under Pulumi's mocks with sdk/python installed, YAML previewed by the real CLI through the plugin
 * against the sandbox. C# builds only where the .NET SDK is on the machine (it is not on these; see
 * docs/contributing/plugin.md).
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_TITLES, exampleFolder } from "../../plugin/schema-examples";
import { REPO_ROOT } from "../helpers/pulumi";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { pythonEnvironment } from "../helpers/python";
import { useStack } from "../helpers/stack";

const run = promisify(execFile);
const RESOURCES = Object.keys(EXAMPLE_TITLES);
const scratch = mkdtempSync(join(tmpdir(), "pulumi-proxy-examples-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Whether `command` runs here. */
function onPath(command: string): boolean {
  try {
    execFileSync(command, ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("each resource's example", () => {
  it("TypeScript: type-checks against sdk/nodejs as `@pulumi-proxy/proxy`", async () => {
    const tsconfig = {
      compilerOptions: { strict: true, noEmit: true, module: "commonjs", target: "es2022", moduleResolution: "node", skipLibCheck: true, paths: { "@pulumi-proxy/proxy": [join(REPO_ROOT, "sdk", "nodejs")] } },
      files: RESOURCES.map((resource) => join(exampleFolder(REPO_ROOT, resource), "index.ts")),
    };
    writeFileSync(join(scratch, "tsconfig.json"), JSON.stringify(tsconfig));
    await run(process.execPath, [join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(scratch, "tsconfig.json")]);
  }, 120_000);

  it("Go: each compiles against sdk/go and passes go vet", async () => {
    const dir = join(scratch, "go");
    const pulumiSdk = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(readFileSync(join(REPO_ROOT, "sdk", "go.mod"), "utf8"))?.[1];
    mkdirSync(dir);
    writeFileSync(
      join(dir, "go.mod"),
      `module example.com/proxy-examples\n\ngo 1.24\n\nrequire (\n\tgithub.com/pulumi-proxy/pulumi-proxy/sdk v0.0.0\n\tgithub.com/pulumi/pulumi/sdk/v3 ${pulumiSdk}\n)\n\n` +
        `replace github.com/pulumi-proxy/pulumi-proxy/sdk => ${join(REPO_ROOT, "sdk")}\n`,
    );
    writeFileSync(join(dir, "go.sum"), readFileSync(join(REPO_ROOT, "sdk", "go.sum")));
    for (const resource of RESOURCES) {
      mkdirSync(join(dir, resource));
      cpSync(join(exampleFolder(REPO_ROOT, resource), "main.go"), join(dir, resource, "main.go"));
    }
    const env = { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", CGO_ENABLED: "0", PATH: `${process.env.PATH}:/usr/local/go/bin` };
    await run("go", ["mod", "tidy"], { cwd: dir, env });
    await run("go", ["vet", "./..."], { cwd: dir, env });
  }, 600_000);

  it("Python: each runs under Pulumi's mocks with sdk/python installed, registering its resource", async () => {
    const venv = pythonEnvironment();
    const runner = join(scratch, "run_with_mocks.py");
    writeFileSync(
      runner,
      [
        "import runpy, sys",
        "import pulumi",
        "class Mocks(pulumi.runtime.Mocks):",
        "    def new_resource(self, args):",
        "        print('registered', args.typ, flush=True)",
        "        return [args.name + '-id', args.inputs]",
        "    def call(self, args):",
        "        return {}",
        "pulumi.runtime.set_mocks(Mocks(), preview=False)",
        "# Waits for every registration the program made, as Pulumi's own tests of a program under mocks do.",
        "pulumi.runtime.test(lambda: runpy.run_path(sys.argv[1]) and None)()",
        "",
      ].join("\n"),
    );
    for (const resource of RESOURCES) {
      const { stdout } = await run(join(venv, "bin", "python"), [runner, join(exampleFolder(REPO_ROOT, resource), "__main__.py")]);
      expect(stdout, resource).toContain(`registered proxy:index:${resource}`);
    }
  }, 600_000);

  it.skipIf(!onPath("dotnet"))("C#: each builds against sdk/dotnet", async () => {
    for (const resource of RESOURCES) {
      const dir = join(scratch, `dotnet-${resource}`);
      mkdirSync(dir);
      writeFileSync(
        join(dir, "Example.csproj"),
        `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputType>Exe</OutputType><TargetFramework>net8.0</TargetFramework><Nullable>enable</Nullable></PropertyGroup>` +
          `<ItemGroup><ProjectReference Include="${join(REPO_ROOT, "sdk", "dotnet", "PulumiProxy.Proxy.csproj")}" /></ItemGroup></Project>`,
      );
      cpSync(join(exampleFolder(REPO_ROOT, resource), "Program.cs"), join(dir, "Program.cs"));
      await run("dotnet", ["build", dir]);
    }
  }, 600_000);
});

describe("each resource's YAML example, previewed through the plugin", () => {
  beforeAll(() => testDist(), 1_800_000);
  for (const resource of RESOURCES) {
    describe(resource, () => {
      const stack = useStack(`plugin/examples/${resource}`, { prepare: installPluginWithoutNode });
      it("previews its resource for creation, and nothing is bought", async () => {
        const preview = await stack.program.preview();
        expect(preview.changeSummary).toEqual({ create: 2 });
        expect(stack.sandbox.createdOrders).toEqual([]);
      });
    });
  }
});
