/**
 * The examples where users put them: each copied outside this repository, installed with npm from the packed
 * tarball (everything else from the registry, including TypeScript), and run with the real Pulumi CLI; the CI example
 * runs its script from its repository root, exactly as its workflow does.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packThisTree, pulumiBinary, REPO_ROOT } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

let outside: string;
let tarball: string;

/** Copies an example outside the repository and installs it with npm, with this package from the tarball. */
function install(example: string, into = example.split("/").pop() ?? example, programDir = "."): string {
  const dir = join(outside, into);
  cpSync(join(REPO_ROOT, "examples", example), dir, { recursive: true });
  execFileSync("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: join(dir, programDir), stdio: "pipe" });
  return dir;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

const portClosed = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(false)));
    socket.once("error", () => resolve(true));
  });

beforeAll(() => {
  outside = mkdtempSync(join(tmpdir(), "pulumi-proxy-examples-"));
  tarball = packThisTree(outside).tarball;
});
afterAll(() => rmSync(outside, { recursive: true, force: true }));

describe("examples/quickstart, installed outside the repository", () => {
  const stack = useStack("examples/quickstart", { stack: "dev", sandbox: { provisioningMs: 500 }, installedDir: () => install("quickstart") });

  it("compiles with its own TypeScript, buys, shows no drift, and destroys", async () => {
    const { program, sandbox } = stack;
    await program.up();
    expect(await program.outputs()).toMatchObject({ orderId: sandbox.createdOrders[0]?.id, status: "active" });
    await program.preview("--expect-no-changes");
    expect((await program.refresh()).changeSummary).toEqual({ same: 2 });
    await program.destroy();
    expect(sandbox.createdOrders).toHaveLength(1);
  }, 240_000);
});

/** examples/plugin-yaml copied to `dir`, with its plugins section changed by `edit`. */
function pluginYaml(dir: string, edit: (project: string) => string): string {
  cpSync(join(REPO_ROOT, "examples", "plugin-yaml"), dir, { recursive: true });
  const project = join(dir, "Pulumi.yaml");
  writeFileSync(project, edit(readFileSync(project, "utf8")));
  return dir;
}

describe("the provider plugin, installed from the tarball, runs examples/plugin-yaml", () => {
  // The example expects an installed plugin; a project that installs the npm package names the package's bin instead.
  const stack = useStack("examples/plugin-yaml", {
    stack: "dev",
    sandbox: { provisioningMs: 500 },
    installedDir: () => {
      const dir = pluginYaml(join(outside, "plugin-yaml"), (project) =>
        project.replace("runtime: yaml\n", "runtime: yaml\nplugins:\n  providers:\n    - name: proxy\n      path: node_modules/pulumi-proxy/bin\n"),
      );
      execFileSync("npm", ["install", "--no-audit", "--no-fund", tarball], { cwd: dir, stdio: "pipe" });
      return dir;
    },
  });

  it("buys, shows no changes, and destroys, with the plugin from node_modules/pulumi-proxy/bin", async () => {
    const { program, sandbox } = stack;
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(await program.outputs()).toMatchObject({ orderId: sandbox.createdOrders[0]?.id, status: "active" });
    await program.preview("--expect-no-changes");
    await program.destroy();
    expect(sandbox.createdOrders).toHaveLength(1);
  }, 240_000);
});

describe("the provider plugin, installed globally, is found on PATH with no plugins entry in Pulumi.yaml", () => {
  const prefix = () => join(outside, "global");
  const stack = useStack("examples/plugin-yaml", {
    stack: "dev",
    sandbox: { provisioningMs: 500 },
    // `npm install --global` into a prefix of the test's own, as a user's global install would be.
    installedDir: () => {
      execFileSync("npm", ["install", "--global", "--prefix", prefix(), "--no-audit", "--no-fund", tarball], { stdio: "pipe" });
      return pluginYaml(join(outside, "plugin-on-path"), (project) => project);
    },
    prepare: (program) => {
      program.env.PATH = `${join(prefix(), "bin")}:${program.env.PATH}`;
    },
  });

  it("buys and destroys with pulumi-resource-proxy from the global bin folder", async () => {
    const { program, sandbox } = stack;
    expect(readFileSync(join(program.dir, "Pulumi.yaml"), "utf8")).not.toContain("plugins:");
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(sandbox.createdOrders).toHaveLength(1);
    await program.destroy();
  }, 240_000);
});

describe("examples/testing, installed outside the repository", () => {
  // The example installs the newest nock, which needs Node 22.20 or later (as the example's engines say); this
  // repository's own copy of those tests runs on every leg.
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  it.skipIf(major < 22 || (major === 22 && minor < 20))("passes its own unit tests (setMocks and nock)", async () => {
    const dir = install("testing");
    const result = await run("npm", ["test"], { cwd: dir, env: { ...process.env, CI: "true" } });
    expect(result.out).toMatch(/4 passed/);
    expect(result.code).toBe(0);
  }, 240_000);
});

describe("examples/ci-preview, as its workflow runs it for a fork", () => {
  let repo: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    repo = install("ci-preview", "ci-repo", "infra");
    const { PULUMI_BACKEND_URL: _b, PULUMI_ACCESS_TOKEN: _t, PROXY_API_BASE_URL: _u, PROXY_API_KEY: _k, ...inherited } = process.env;
    env = {
      ...inherited,
      PULUMI_STACK: "dev",
      PULUMI_HOME: join(repo, ".pulumi-home"),
      PULUMI_SKIP_UPDATE_CHECK: "true",
      PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      PULUMI_CONFIG_PASSPHRASE: "",
      NO_COLOR: "1",
      PATH: `${dirname(pulumiBinary())}:${process.env.PATH}`,
    };
  }, 240_000);

  it("previews against a sandbox it starts and stops, buying nothing", async () => {
    const result = await run("bash", ["scripts/preview-with-sandbox.sh", "infra"], { cwd: repo, env });
    expect(result.out).toContain("previewing against the local sandbox");
    expect(result.code, result.out).toBe(0);
    expect(result.out).toContain("+ pulumi-nodejs:dynamic/proxy:ProxyOrder: (create)");
    expect(result.out).not.toContain("sk_sandbox_0123456789abcdef");
    const port = Number(/local sandbox at http:\/\/127\.0\.0\.1:(\d+)/.exec(result.out)?.[1]);
    expect(await portClosed(port)).toBe(true);
  }, 240_000);

  it("refuses a committed proxy:baseUrl, which would win over the sandbox, and still stops it", async () => {
    writeFileSync(join(repo, "infra", "Pulumi.dev.yaml"), "config:\n  proxy:baseUrl: https://api.example.com\n");
    const result = await run("bash", ["scripts/preview-with-sandbox.sh", "infra"], { cwd: repo, env });
    expect(result.code).not.toBe(0);
    expect(result.out).toMatch(/the stack's config sets proxy:baseUrl \(https:\/\/api\.example\.com\)/);
    const port = Number(/local sandbox at http:\/\/127\.0\.0\.1:(\d+)/.exec(result.out)?.[1]);
    expect(await portClosed(port)).toBe(true);
    rmSync(join(repo, "infra", "Pulumi.dev.yaml"));
  }, 120_000);

  it("fails loudly with the sandbox's own output when it cannot start", async () => {
    const result = await run("bash", ["scripts/preview-with-sandbox.sh", "infra"], {
      cwd: repo,
      env: { ...env, PATH: `/nonexistent-node-dir:${env.PATH}`, NODE_OPTIONS: "--require=/nonexistent/preload.js" },
    });
    expect(result.code).not.toBe(0);
    expect(result.out).toMatch(/the sandbox exited before it was ready[\s\S]*nonexistent\/preload\.js/);
  }, 120_000);
});
