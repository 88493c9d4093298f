/**
 * The release artifacts as `npm run dist` makes them (every platform's plugin archive, the npm, Python, Node.js and Go
 * packages), built once per test run: the plugin's end-to-end tests install its linux-amd64 archive (a single
 * executable, no Node.js needed) with `pulumi plugin install resource proxy <version> --file <archive>`, and
 * test/e2e/dist.test.ts checks every artifact, so nothing is built twice. `npm test` starts the build as soon as dist/
 * is built (scripts/run-tests.mjs), holding {@link TEST_DIST_LOCK}; a test that needs the artifacts waits for it, or
 * builds them itself when it runs without `npm test`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { VERSION } from "../../client/version";
import { pulumiBinary, REPO_ROOT, type PulumiProgram } from "./pulumi";

/** Where the tests' artifacts are built (ignored by git, like every build output). */
export const TEST_DIST = join(REPO_ROOT, "build", "test-dist");

/** A folder that exists while a build of {@link TEST_DIST} is under way (scripts/run-tests.mjs makes it too). */
export const TEST_DIST_LOCK = join(REPO_ROOT, "build", "test-dist.building");

/** A lock this old was left by a run that was killed: no build takes half an hour. */
const STALE_LOCK_MS = 30 * 60_000;

/** The linux-amd64 plugin archive's path (once {@link testDist} has resolved). */
export function pluginArchive(): string {
  return join(TEST_DIST, `pulumi-resource-proxy-v${VERSION}-linux-amd64.tar.gz`);
}

/** Set once {@link TEST_DIST} is known fresh in this process, so later calls read no folder. */
let known = false;

/** Whether {@link TEST_DIST} was built after everything in dist/. */
function fresh(): boolean {
  if (known) return true;
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  const sums = join(TEST_DIST, "SHA256SUMS");
  known = existsSync(sums) && statSync(sums).mtimeMs > newest(join(REPO_ROOT, "dist"));
  return known;
}

/**
 * Resolves once {@link TEST_DIST} is fresh: after the build under way (another process holds the lock), or after
 * running `npm run dist` under the lock itself (none is under way, or the one that was failed).
 */
export async function testDist(): Promise<string> {
  while (!fresh()) {
    if (!takeLock()) {
      await sleep(2000);
      continue;
    }
    try {
      if (fresh()) break;
      execFileSync(process.execPath, [join(REPO_ROOT, "scripts", "dist.mjs")], {
        env: { ...process.env, DIST_OUT: TEST_DIST, DIST_NO_BUILD: "1" },
        stdio: ["ignore", "ignore", "inherit"],
      });
    } finally {
      rmSync(TEST_DIST_LOCK, { recursive: true, force: true });
    }
    if (!fresh()) throw new Error(`npm run dist did not write ${TEST_DIST} (its errors are above)`);
  }
  return TEST_DIST;
}

/** Takes the build's lock; false while another process holds it (a lock left by a killed run is taken back). */
function takeLock(): boolean {
  // Its folder may not exist yet when a file runs alone (npm test makes it); without it the lock could never be taken.
  mkdirSync(dirname(TEST_DIST_LOCK), { recursive: true });
  try {
    mkdirSync(TEST_DIST_LOCK);
    return true;
  } catch {
    if (!existsSync(TEST_DIST_LOCK) || Date.now() - statSync(TEST_DIST_LOCK).mtimeMs < STALE_LOCK_MS) return false;
    rmSync(TEST_DIST_LOCK, { recursive: true, force: true });
    return takeLock();
  }
}

/** Installs the plugin from the archive into the program's own plugin cache, as a user would. */
export async function installPlugin(program: PulumiProgram): Promise<void> {
  await testDist();
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
