/**
 * `--help` on every executable the package ships (issue 72): each prints its usage, exits 0 at once, and names every
 * option it accepts, as read from the code that parses them (not from a copied list). Run from the build, as users
 * run them.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CHECK_OPTIONS } from "../../check/cli";
import { HINT_FORMS } from "../../contract/rate-limit";
import { PLUGIN_COMMANDS } from "../../plugin/usage";
import { OPTIONS } from "../../sandbox/cli-options";
import { REPO_ROOT } from "../helpers/pulumi";

/** Runs a built executable with `args`; a hang fails on the timeout, not on the test's. */
function run(script: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, "dist", script), ...args], { encoding: "utf8", timeout: 20_000, stdio: ["ignore", "pipe", "pipe"] });
  return { status: result.status, out: result.stdout, err: result.stderr };
}

describe("--help", () => {
  it("pulumi-proxy-sandbox names every option it parses and every hint form", () => {
    const { status, out } = run("sandbox/cli.js", "--help");
    expect(status).toBe(0);
    for (const name of Object.keys(OPTIONS)) expect(out).toContain(`--${name}`);
    for (const form of HINT_FORMS) expect(out).toContain(form);
  });

  it("pulumi-proxy check-api, and pulumi-proxy alone, name every option with the command's own name", () => {
    for (const args of [["check-api", "--help"], ["--help"], []]) {
      const { status, out } = run("check/main.js", ...args);
      expect(status, args.join(" ")).toBe(0);
      expect(out).toMatch(/^Usage: pulumi-proxy check-api /);
      for (const name of Object.keys(CHECK_OPTIONS)) expect(out).toContain(`--${name}`);
    }
  });

  it("pulumi-resource-proxy names its commands, and its check-api names itself", () => {
    const { status, out } = run("plugin/main.js", "--help");
    expect(status).toBe(0);
    for (const command of Object.keys(PLUGIN_COMMANDS)) expect(out).toContain(`pulumi-resource-proxy ${command}`);
    const check = run("plugin/main.js", "check-api", "--help");
    expect(check.status).toBe(0);
    expect(check.out).toMatch(/^Usage: pulumi-resource-proxy check-api /);
    for (const name of Object.keys(CHECK_OPTIONS)) expect(check.out).toContain(`--${name}`);
  });
});
