/**
 * Running policy packs with the Pulumi CLI built on this project's machines. Its engine (3.248) runs a Node.js pack
 * through the Node.js language host's RunPlugin when that host is found, and the only host that can be built here
 * (sdk/v3 v3.68.0) answers RunPlugin with "not supported". Without a Node.js host beside the CLI, the engine falls
 * back to the launcher `pulumi-analyzer-policy-nodejs` on PATH, which runs `@pulumi/pulumi/cmd/run-policy-pack`
 * from the pack's folder: what released CLIs once shipped. So the tests that need a pack use a second folder holding
 * the same CLI (a hard link) and that launcher, and programs whose language is not Node.js.
 */
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pulumiBinary, REPO_ROOT } from "./pulumi";

/** The launcher Pulumi shipped as `pulumi-analyzer-policy` before its engine ran packs through RunPlugin. */
const LAUNCHER = `#!/bin/sh
PULUMI_RUN_SCRIPT_PATH=$(node -e "try { console.log(require.resolve('@pulumi/pulumi/cmd/run-policy-pack')) } catch (e) { console.error(e.message) }")
if [ ! -z "$PULUMI_RUN_SCRIPT_PATH" ]; then
    node "$PULUMI_RUN_SCRIPT_PATH" "$@"
fi
`;

/** The ready policy pack as users reach it: `node_modules/pulumi-proxy/policy-pack`. */
export const POLICY_PACK = join(REPO_ROOT, "node_modules", "pulumi-proxy", "policy-pack");

/** A folder with the CLI and the launcher and no Node.js language host; put it first on PATH and run its `pulumi`. */
export function policyCliFolder(): string {
  const folder = join(dirname(dirname(pulumiBinary())), "policy-cli");
  mkdirSync(folder, { recursive: true });
  const cli = join(folder, "pulumi");
  if (!existsSync(cli)) {
    try {
      linkSync(pulumiBinary(), cli);
    } catch {
      copyFileSync(pulumiBinary(), cli);
      chmodSync(cli, 0o755);
    }
  }
  writeFileSync(join(folder, "pulumi-analyzer-policy-nodejs"), LAUNCHER);
  chmodSync(join(folder, "pulumi-analyzer-policy-nodejs"), 0o755);
  return folder;
}
