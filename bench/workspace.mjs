// A scratch workspace for the benchmarks that drive the real CLI: this package packed and installed with npm beside
// the @pulumi/pulumi of this working tree (as users get it), a local backend, and programs written into it.
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Sets up the workspace; `program(name, text)` writes a program and makes its stack, `cli(dir, args, env)` runs the
 * CLI, `dir` is the workspace's folder (removed by `cleanup`).
 */
export async function benchWorkspace(root) {
  const pulumi = execFileSync(join(root, "scripts", "ensure-pulumi"), { encoding: "utf8" }).trim().split("\n").pop();
  const state = mkdtempSync(join(tmpdir(), "pulumi-proxy-bench-"));
  const scratch = join(state, "programs");
  mkdirSync(scratch);
  const packed = JSON.parse(execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", state], { cwd: root, encoding: "utf8" }));
  const pulumiVersion = JSON.parse(readFileSync(join(root, "node_modules", "@pulumi", "pulumi", "package.json"), "utf8")).version;
  writeFileSync(join(scratch, "package.json"), `{ "name": "bench-programs", "private": true }\n`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", `@pulumi/pulumi@${pulumiVersion}`, join(state, packed[0].filename)], { cwd: scratch, stdio: "pipe" });
  mkdirSync(join(state, "backend"), { recursive: true });
  const env = {
    ...process.env,
    PULUMI_HOME: join(state, "home"),
    PULUMI_BACKEND_URL: `file://${join(state, "backend")}`,
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
  };
  // Asynchronous: the sandbox answers from this process's event loop.
  const cli = (dir, args, extraEnv = {}) =>
    new Promise((resolve, reject) =>
      execFile(pulumi, [...args, "--non-interactive"], { cwd: dir, env: { ...env, ...extraEnv }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
        error ? reject(new Error(`pulumi ${args.join(" ")} failed:\n${stdout}\n${stderr}`)) : resolve(stdout),
      ),
    );
  const program = async (name, text) => {
    const dir = mkdtempSync(join(scratch, `${name}-`));
    writeFileSync(join(dir, "Pulumi.yaml"), `name: ${name}\nruntime: nodejs\n`);
    writeFileSync(join(dir, "package.json"), `{ "name": "${name}", "private": true, "main": "index.js" }\n`);
    writeFileSync(join(dir, "index.js"), text);
    await cli(dir, ["stack", "init", "bench"]);
    return dir;
  };
  return { cli, program, dir: state, cleanup: () => rmSync(state, { recursive: true, force: true }) };
}
