/**
 * The release artifacts as `npm run dist` makes them (every platform's plugin archive, the npm, Python, Node.js and Go
 * packages), built once per test run by the global setup: the plugin's end-to-end tests install its linux-amd64
 * archive (a single executable, no Node.js needed) with `pulumi plugin install resource proxy <version> --file
 * <archive>`, and test/e2e/dist.test.ts checks every artifact, so nothing is built twice.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { VERSION } from "../../client/version";
import { pulumiBinary, REPO_ROOT, type PulumiProgram } from "./pulumi";

/** Where the tests' artifacts are built (ignored by git, like every build output). */
export const TEST_DIST = join(REPO_ROOT, "build", "test-dist");

/** The linux-amd64 plugin archive's path. */
export function pluginArchive(): string {
  return join(TEST_DIST, `pulumi-resource-proxy-v${VERSION}-linux-amd64.tar.gz`);
}

/** Runs `npm run dist` into {@link TEST_DIST} unless its sums are newer than everything in dist/ (which `npm test` has just built). */
export function buildTestDist(): void {
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  const sums = join(TEST_DIST, "SHA256SUMS");
  if (existsSync(sums) && statSync(sums).mtimeMs > newest(join(REPO_ROOT, "dist"))) return;
  execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "dist.mjs")], {
    env: { ...process.env, DIST_OUT: TEST_DIST, DIST_NO_BUILD: "1" },
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
