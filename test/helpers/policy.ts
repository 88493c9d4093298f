/**
 * Running the package's policy pack with the Pulumi CLI built on this project's machines. A released CLI runs a
 * Node.js pack folder through its Node.js language host's RunPlugin, which runs `@pulumi/pulumi/cmd/run-policy-pack`
 * in the pack's folder. The only Node.js host that can be built here (sdk/v3 v3.68.0) answers RunPlugin with "not
 * supported", and the current engine (3.274) no longer falls back to a `pulumi-analyzer-policy-nodejs` launcher when
 * it finds no host. It does run a pack given as an executable file (a "binary analyzer", pkg/resource/plugin/
 * analyzer_plugin.go): so the tests give `--policy-pack` a small executable that runs that same module in the pack's
 * folder, as a released host would. The pack, its policies, the engine and the program are the real ones.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pulumiBinary, REPO_ROOT } from "./pulumi";

/** The ready policy pack as users reach it: `node_modules/pulumi-proxy/policy-pack`. */
export const POLICY_PACK = join(REPO_ROOT, "node_modules", "pulumi-proxy", "policy-pack");

/** An executable that runs {@link POLICY_PACK} as the engine's analyzer: give its path to `--policy-pack`. */
export function policyPackExecutable(): string {
  const folder = join(dirname(dirname(pulumiBinary())), "policy-launcher");
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "pulumi-proxy-spend-guard");
  writeFileSync(
    file,
    `#!/bin/sh
# Runs the pack as a Node.js language host's RunPlugin would: run-policy-pack <engine address> . in the pack's folder.
cd '${POLICY_PACK}' || exit 1
exec node "$(node -p "require.resolve('@pulumi/pulumi/cmd/run-policy-pack')")" "$1" .
`,
  );
  chmodSync(file, 0o755);
  return file;
}
