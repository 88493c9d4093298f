/**
 * The release artifacts of `npm run dist`, used the way Pulumi users use a provider's release: the plugin archives
 * (checked for their platform, and the linux-amd64 one run with no Node.js anywhere on PATH; darwin-arm64's, made by
 * Bun, checked as Apple Silicon checks it, and the same script compiled by Bun for this machine run), the plugin installed with
 * `pulumi plugin install --file`, the Python SDK installed from the built wheel, and the engine downloading the plugin
 * by itself from the SDK's `pluginDownloadURL`.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import * as grpc from "@grpc/grpc-js";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../client/version";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram, REPO_ROOT } from "../helpers/pulumi";
import { pathWithoutNode, TEST_DIST, testDist } from "../helpers/plugin-archive";
import { readMachO } from "../helpers/macho";
import { pythonEnvironment } from "../helpers/python";

const ORDER_TYPE = "proxy:index:ProxyOrder";
const PLATFORMS = ["linux-amd64", "linux-arm64", "darwin-amd64", "darwin-arm64", "windows-amd64"];
/** Words of the plugin's own code (provider/core/provider-core.ts), which every platform's executable carries. */
const PLUGIN_CODE = "Pulumi runs the provider with the stack configuration stored in the";

/** What scripts/dist.mjs exports for the tests: its bundle, and Bun's compile of it. */
interface DistScript {
  bundle(work: string): Promise<string>;
  bunExecutable(script: string, bunTarget: string, runtimePackage: string, binary: string): void;
}
const archiveName = (platform: string) => `pulumi-resource-proxy-v${VERSION}-${platform}.tar.gz`;

/** Runs `npm run dist`'s script into `out` with the given settings. */
function dist(out: string, env: Record<string, string> = {}): void {
  execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "dist.mjs")], {
    cwd: REPO_ROOT,
    env: { ...process.env, DIST_OUT: out, DIST_NO_BUILD: "1", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** The Python example with the given virtualenv, pointed at the sandbox, with no plugin named (it must be installed). */
async function pythonProgram(sandbox: Sandbox, venv: string, stack: string): Promise<PulumiProgram> {
  const program = await PulumiProgram.create("examples/plugin-python", stack);
  symlinkSync(venv, join(program.dir, "venv"));
  program.env.PATH = pathWithoutNode(join(venv, "bin"));
  await program.useApi(sandbox);
  return program;
}

// What `npm run dist` made for this run, once (test/helpers/plugin-archive.ts); what the tests unpack goes to a folder
// of their own, so the artifacts are checked as they were written.
const out = TEST_DIST;
const scratch = mkdtempSync(join(tmpdir(), "pulumi-proxy-dist-test-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// A hang guard, not a timing: on a machine with an empty cache, the build also fetches every platform's runtime.
beforeAll(() => testDist(), 1_800_000);

describe("npm run dist", () => {

  it("writes every artifact, in Pulumi's naming, with SHA-256 sums that match", () => {
    const names = readdirSync(out).sort();
    expect(names).toEqual(
      [
        ...PLATFORMS.map(archiveName),
        "SHA256SUMS",
        "go",
        `pulumi-proxy-${VERSION}.tgz`,
        `pulumi-proxy-proxy-${VERSION}.tgz`,
        `pulumi_proxy-${VERSION}-py3-none-any.whl`,
        `pulumi_proxy-${VERSION}.tar.gz`,
      ].sort(),
    );
    const sums = readFileSync(join(out, "SHA256SUMS"), "utf8").trim().split("\n");
    expect(sums.length).toBeGreaterThanOrEqual(names.length);
    for (const line of sums) {
      const [sum, file] = line.split(/\s+/);
      expect(createHash("sha256").update(readFileSync(join(out, file!))).digest("hex"), file).toBe(sum);
    }
    expect(existsSync(join(out, "go", "github.com", "pulumi-proxy", "pulumi-proxy", "sdk", "@v", `v${VERSION}.zip`))).toBe(true);
  });

  it("each archive holds one executable of its platform, with the plugin embedded", () => {
    const expected: Record<string, (head: Buffer) => boolean> = {
      // ELF, x86-64 / AArch64 (e_machine at offset 18).
      "linux-amd64": (h) => h.readUInt32BE(0) === 0x7f454c46 && h.readUInt16LE(18) === 0x3e,
      "linux-arm64": (h) => h.readUInt32BE(0) === 0x7f454c46 && h.readUInt16LE(18) === 0xb7,
      // Mach-O 64-bit, CPU type x86-64.
      "darwin-amd64": (h) => h.readUInt32LE(0) === 0xfeedfacf && h.readUInt32LE(4) === 0x01000007,
      // Mach-O 64-bit, CPU type ARM64.
      "darwin-arm64": (h) => h.readUInt32LE(0) === 0xfeedfacf && h.readUInt32LE(4) === 0x0100000c,
      // PE: "MZ", then at e_lfanew "PE\0\0" and machine AMD64.
      "windows-amd64": (h) => h.toString("latin1", 0, 2) === "MZ" && h.readUInt16LE(h.readUInt32LE(0x3c) + 4) === 0x8664,
    };
    for (const platform of PLATFORMS) {
      const dir = mkdtempSync(join(scratch, `unpacked-${platform}-`));
      try {
        execFileSync("tar", ["-xzf", join(out, archiveName(platform)), "-C", dir]);
        const exe = platform.startsWith("windows") ? "pulumi-resource-proxy.exe" : "pulumi-resource-proxy";
        expect(readdirSync(dir).sort(), platform).toEqual(["LICENSE", "README.md", exe]);
        const binary = readFileSync(join(dir, exe));
        expect(expected[platform]!(binary.subarray(0, 4096)), `${platform}: executable format`).toBe(true);
        if (platform === "darwin-arm64") {
          // Bun's compiler puts the script in a segment of its own.
          expect(readMachO(binary).segments, `${platform}: script embedded`).toContain("__BUN");
        } else {
          // postject flips Node's fuse when it injects a single-executable blob.
          expect(binary.includes("NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2:1"), `${platform}: blob injected`).toBe(true);
        }
        // Bun keeps a script with characters beyond Latin-1 as UTF-16.
        const carried = binary.includes(PLUGIN_CODE) || binary.includes(Buffer.from(PLUGIN_CODE, "utf16le"));
        expect(carried, `${platform}: the plugin's code`).toBe(true);
        // A runtime and the bundle: far more than a launcher, far less than a runtime with its own node_modules.
        expect(binary.length, `${platform}: size`).toBeGreaterThan(40 * 1024 ** 2);
        expect(binary.length, `${platform}: size`).toBeLessThan(200 * 1024 ** 2);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it("the darwin-arm64 executable is signed ad hoc, with the hash of every page matching (Apple Silicon runs nothing less)", () => {
    const dir = mkdtempSync(join(scratch, "unpacked-signature-"));
    try {
      execFileSync("tar", ["-xzf", join(out, archiveName("darwin-arm64")), "-C", dir]);
      const { signature } = readMachO(readFileSync(join(dir, "pulumi-resource-proxy")));
      expect(signature).toMatchObject({ adhoc: true, hashType: 2, badPages: [] });
      expect(signature?.pages).toBeGreaterThan(1000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("the linux-amd64 executable serves the plugin (version, schema) and the sandbox, with no node on PATH", async () => {
    const dir = mkdtempSync(join(scratch, "run-"));
    execFileSync("tar", ["-xzf", join(out, archiveName("linux-amd64")), "-C", dir]);
    const exe = join(dir, "pulumi-resource-proxy");
    const start = (args: string[]) => {
      const child = spawn(exe, args, { env: { PATH: "/nonexistent" } });
      const firstLine = new Promise<string>((resolve, reject) => {
        child.stdout.once("data", (d: Buffer) => resolve(d.toString().split("\n")[0]!));
        child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)));
      });
      return { child, firstLine };
    };
    const plugin = start(["127.0.0.1:1"]);
    const sandbox = start(["sandbox", "--port", "0"]);
    try {
      const client = new ResourceProviderClient(`127.0.0.1:${await plugin.firstLine}`, grpc.credentials.createInsecure());
      const info = await new Promise<PluginInfo>((resolve, reject) => client.getPluginInfo(new Empty(), (e, r) => (e ? reject(e) : resolve(r))));
      expect(info.getVersion()).toBe(VERSION);
      const schema = await new Promise<rpc.GetSchemaResponse>((resolve, reject) =>
        client.getSchema(new rpc.GetSchemaRequest(), (e, r) => (e ? reject(e) : resolve(r))),
      );
      expect(JSON.parse(schema.getSchema())).toMatchObject({ name: "proxy", version: VERSION, pluginDownloadURL: expect.any(String) });
      client.close();
      const url = await sandbox.firstLine;
      expect((await fetch(`${url}/v1/usage`)).status).toBe(401);
    } finally {
      plugin.child.kill();
      sandbox.child.kill();
    }
  });

  it("the Node.js SDK's tarball is the compiled @pulumi-proxy/proxy at this version", () => {
    const listed = execFileSync("tar", ["-tzf", join(out, `pulumi-proxy-proxy-${VERSION}.tgz`)], { encoding: "utf8" }).split("\n");
    expect(listed).toEqual(expect.arrayContaining(["package/package.json", "package/index.js", "package/index.d.ts", "package/proxyOrder.js"]));
    const manifest = JSON.parse(execFileSync("tar", ["-xzOf", join(out, `pulumi-proxy-proxy-${VERSION}.tgz`), "package/package.json"], { encoding: "utf8" }));
    expect(manifest).toMatchObject({ name: "@pulumi-proxy/proxy", version: VERSION, pulumi: { resource: true, name: "proxy", version: VERSION } });
  });

  it("the Go SDK's module folder serves the module: the README's Go quick start builds from it, no replace", async () => {
    const run = promisify(execFile);
    const dir = mkdtempSync(join(scratch, "go-program-"));
    const program = /```go\n([\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, "README.md"), "utf8"))?.[1] ?? "";
    const pulumiSdk = /github\.com\/pulumi\/pulumi\/sdk\/v3 (v\S+)/.exec(readFileSync(join(REPO_ROOT, "sdk", "go.mod"), "utf8"))?.[1];
    writeFileSync(
      join(dir, "go.mod"),
      `module example.com/proxy-quickstart\n\ngo 1.24\n\nrequire (\n\tgithub.com/pulumi-proxy/pulumi-proxy/sdk v${VERSION}\n\tgithub.com/pulumi/pulumi/sdk/v3 ${pulumiSdk}\n)\n`,
    );
    writeFileSync(join(dir, "go.sum"), readFileSync(join(REPO_ROOT, "sdk", "go.sum")));
    writeFileSync(join(dir, "main.go"), program);
    const { stdout: upstream } = await run("go", ["env", "GOPROXY"]);
    const env = {
      ...process.env,
      GOPROXY: `file://${join(out, "go")},${upstream.trim()}`,
      // The module is not in the public checksum database (it is not published): its sum comes from the zip here.
      GONOSUMDB: "github.com/pulumi-proxy",
      GOFLAGS: "-mod=mod",
      GOTOOLCHAIN: "local",
      CGO_ENABLED: "0",
    };
    await run("go", ["mod", "tidy"], { cwd: dir, env });
    await run("go", ["vet", "./..."], { cwd: dir, env });
    expect(readFileSync(join(dir, "go.sum"), "utf8")).toContain(`github.com/pulumi-proxy/pulumi-proxy/sdk v${VERSION} h1:`);
  }, 600_000);

  describe("a Python program, with the plugin from `pulumi plugin install --file` and the SDK from the built wheel", () => {
    let sandbox: Sandbox;
    let program: PulumiProgram;
    beforeAll(async () => {
      sandbox = await startSandbox({ provisioningMs: 500 });
      const venv = pythonEnvironment({ sdk: join(out, `pulumi_proxy-${VERSION}-py3-none-any.whl`), name: "wheel" });
      program = await pythonProgram(sandbox, venv, "installed");
      await program.run(["plugin", "install", "resource", "proxy", VERSION, "--file", join(out, archiveName("linux-amd64"))]);
    }, 600_000);
    afterAll(async () => {
      program?.cleanup();
      await sandbox?.stop();
    });

    it("buys, refreshes and destroys, with no Node.js on PATH", async () => {
      expect((await program.up()).changeSummary).toEqual({ create: 2 });
      expect(await program.outputs()).toMatchObject({ orderId: sandbox.createdOrders[0]?.id, status: "active", credentials: "[secret]" });
      expect((await program.refresh()).changeSummary).toEqual({ same: 2 });
      await program.destroy();
      expect(sandbox.createdOrders).toHaveLength(1);
    }, 300_000);
  });
});

describe("automatic plugin download from the SDK's pluginDownloadURL", () => {
  const served = join(scratch, "served");
  const asked: string[] = [];
  let server: Server;
  let sandbox: Sandbox;
  let program: PulumiProgram;

  beforeAll(async () => {
    mkdirSync(served, { recursive: true });
    // A release page on loopback: it serves the archive built for this run, and the Python SDK below names it.
    server = createServer((req, res) => {
      asked.push(req.url ?? "");
      const file = join(served, decodeURIComponent((req.url ?? "").replace(/^\/+/, "")));
      if (!existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      // The engine checks what it copied against Content-Length, as release servers send it.
      res.writeHead(200, { "content-type": "application/gzip", "content-length": String(statSync(file).size) });
      createReadStream(file).pipe(res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/releases/v\${VERSION}`;
    // Only the SDKs name the URL; the archive is the one already built.
    dist(served, { PLUGIN_DOWNLOAD_URL: url, DIST_PARTS: "python" });
    mkdirSync(join(served, "releases", `v${VERSION}`), { recursive: true });
    execFileSync("cp", [join(out, archiveName("linux-amd64")), join(served, "releases", `v${VERSION}`)]);

    sandbox = await startSandbox({ provisioningMs: 500 });
    const venv = pythonEnvironment({ sdk: join(served, `pulumi_proxy-${VERSION}-py3-none-any.whl`), name: "download" });
    program = await pythonProgram(sandbox, venv, "downloaded");
    delete program.env.PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION;
  }, 900_000);
  afterAll(async () => {
    program?.cleanup();
    await sandbox?.stop();
    server?.close();
  });

  it("an empty plugin cache: the engine fetches the archive from the URL, runs the plugin and buys", async () => {
    expect(existsSync(join(program.env.PULUMI_HOME!, "plugins", `resource-proxy-v${VERSION}`))).toBe(false);
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(asked).toContain(`/releases/v${VERSION}/${archiveName("linux-amd64")}`);
    expect(existsSync(join(program.env.PULUMI_HOME!, "plugins", `resource-proxy-v${VERSION}`, "pulumi-resource-proxy"))).toBe(true);
    expect(sandbox.createdOrders).toHaveLength(1);
    const state = await program.exportState();
    expect(state.resources.find((r) => r.type === ORDER_TYPE)?.id).toBe(sandbox.createdOrders[0]?.id);
    await program.destroy();
  }, 300_000);
});

describe("the plugin compiled by Bun, as darwin-arm64's is, for this machine (linux-x64)", () => {
  let sandbox: Sandbox;
  let program: PulumiProgram;

  beforeAll(async () => {
    const { bundle, bunExecutable } = (await import(join(REPO_ROOT, "scripts", "dist.mjs"))) as DistScript;
    const work = mkdtempSync(join(scratch, "bun-"));
    const folder = join(work, "archive");
    mkdirSync(folder);
    bunExecutable(await bundle(work), "bun-linux-x64", "@oven/bun-linux-x64", join(folder, "pulumi-resource-proxy"));
    const archive = join(work, archiveName("linux-amd64"));
    execFileSync("tar", ["-czf", archive, "-C", folder, "pulumi-resource-proxy"]);
    sandbox = await startSandbox({ provisioningMs: 500 });
    program = await PulumiProgram.create("examples/plugin-yaml", "bun");
    await program.useApi(sandbox);
    await program.run(["plugin", "install", "resource", "proxy", VERSION, "--file", archive]);
    program.env.PATH = pathWithoutNode();
  }, 600_000);
  afterAll(async () => {
    program?.cleanup();
    await sandbox?.stop();
  });

  it("buys, previews no change, refreshes and destroys a YAML program's order, with no Node.js on PATH", async () => {
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(await program.outputs()).toMatchObject({ orderId: sandbox.createdOrders[0]?.id, status: "active", credentials: "[secret]" });
    await program.preview("--expect-no-changes");
    expect((await program.refresh()).changeSummary).toEqual({ same: 2 });
    const destroy = await program.destroy();
    expect(destroy.diagnostics?.some((d) => d.message.includes("the purchase stays active"))).toBe(true);
    expect(sandbox.createdOrders).toHaveLength(1);
  }, 300_000);
});
