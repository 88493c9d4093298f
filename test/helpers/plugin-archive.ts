/**
 * The plugin as users install it: the linux-amd64 archive `npm run dist` makes (a single executable, no Node.js
 * needed), built once per test run by the global setup, and installed into a program's plugin cache with
 * `pulumi plugin install resource proxy <version> --file <archive>`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { VERSION } from "../../client/version";
import { pulumiBinary, REPO_ROOT, type PulumiProgram } from "./pulumi";

/** Where the tests' archive is built (ignored by git, like every build output). */
export const TEST_DIST = join(REPO_ROOT, "build", "test-dist");

/** The archive's path. */
export function pluginArchive(): string {
  return join(TEST_DIST, `pulumi-resource-proxy-v${VERSION}-linux-amd64.tar.gz`);
}

/** Builds the archive unless it is newer than everything in dist/ (which `npm test` has just built). */
export function buildPluginArchive(): void {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  if (existsSync(pluginArchive()) && statSync(pluginArchive()).mtimeMs > newest(join(REPO_ROOT, "dist"))) return;
  execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "dist.mjs")], {
    env: { ...process.env, DIST_OUT: TEST_DIST, DIST_TARGETS: "linux-amd64", DIST_PARTS: "plugin", DIST_NO_BUILD: "1" },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Installs the plugin from the archive into the program's own plugin cache, as a user would. */
export async function installPlugin(program: PulumiProgram): Promise<void> {
  await program.run(["plugin", "install", "resource", "proxy", VERSION, "--file", pluginArchive()]);
}

/** Installs the plugin for `program` and leaves it a PATH without Node.js: how a YAML or Go user runs it. */
export async function installPluginWithoutNode(program: PulumiProgram): Promise<void> {
  await installPlugin(program);
  program.env.PATH = pathWithoutNode();
}

/**
 * A PATH of the given folders, the language hosts and the Pulumi CLI only: no Node.js (on these machines /bin is
 * /usr/bin, where node lives, so the system folders cannot be on it). Throws if a `node` is found on it anyway.
 */
export function pathWithoutNode(...folders: string[]): string {
  const path = [...folders, process.env.PULUMI_LANGUAGE_HOSTS, dirname(pulumiBinary())].filter(Boolean).join(":");
  if (spawnSync("node", ["--version"], { env: { PATH: path } }).error === undefined) {
    throw new Error(`a node is on ${path}; the test means to run without one`);
  }
  return path;
}
