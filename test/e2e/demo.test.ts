/**
 * The README's first command, `npm run demo` (the build, then scripts/demo.mjs), as a user meets it: the real Pulumi
 * CLI against the sandbox, then the same command again, which is what a user does next. It runs in a folder of its
 * own that links to this tree, so that a developer's own `.demo/` and `Pulumi.demo.yaml` are left alone; the leg has
 * built `dist/` already.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_API_KEY } from "../../sandbox";
import { REPO_ROOT } from "../helpers/pulumi";

interface DemoRun {
  status: number | null;
  out: string;
}

/** Runs scripts/demo.mjs with `root` as the repository (the links keep their own paths), no stdin, as CI does. */
function demoIn(root: string, ...args: string[]): DemoRun {
  const env: NodeJS.ProcessEnv = { ...process.env, CI: "true" };
  delete env.PULUMI_CONFIG_PASSPHRASE;
  const result = spawnSync(process.execPath, ["--preserve-symlinks", "--preserve-symlinks-main", join(root, "scripts", "demo.mjs"), ...args], {
    cwd: root,
    env,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 170_000,
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

/** A folder of its own that links to this tree, made before the block's tests and removed after them. */
function demoRoot(): { readonly path: string } {
  const holder = { path: "" };
  beforeAll(() => {
    holder.path = mkdtempSync(join(tmpdir(), "pulumi-proxy-demo-"));
    for (const entry of ["dist", "examples", "node_modules", "scripts", "package.json"]) symlinkSync(join(REPO_ROOT, entry), join(holder.path, entry));
    copyFileSync(join(REPO_ROOT, "Pulumi.yaml"), join(holder.path, "Pulumi.yaml"));
  });
  afterAll(() => rmSync(holder.path, { recursive: true, force: true }));
  return holder;
}

/** The orders the demo's sandbox holds in `root` (it keeps them in .demo/sandbox-state.json between runs); none before the first run. */
function ordersIn(root: string): Array<{ id: string; proxies: Array<{ password?: string }> }> {
  const file = join(root, ".demo", "sandbox-state.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).orders : [];
}

describe("npm run demo, as the README has it", () => {
  const folder = demoRoot();
  const runs: DemoRun[] = [];
  const demo = () => demoIn(folder.path);
  const sandboxOrders = () => ordersIn(folder.path);

  it("buys one plan, shows its proxies and the usage, and finds no drift", () => {
    const run = demo();
    runs.push(run);
    expect(run.status, run.out).toBe(0);
    const orders = sandboxOrders();
    expect(orders).toHaveLength(1);
    expect(run.out).toContain(`== Order ${orders[0]!.id}: active since`);
    expect(run.out).toMatch(/^IP +PORT +PROTOCOL +TYPE +COUNTRY +CITY +EXPIRES *$/m);
    expect(run.out.match(/^127\.0\.0\.1 +\d+ +http /gm)).toHaveLength(5);
    expect(run.out).toMatch(/^== Health: 5 of 5 proxies answered through themselves/m);
    expect(run.out.match(/^127\.0\.0\.1 +\d+ +yes +\d+ ms +127\.0\.0\.1 *$/gm)).toHaveLength(5);
    expect(run.out).toMatch(/^== Usage from /m);
    expect(run.out).toContain("== No drift: the state matches the API.");
  }, 180_000);

  it("buys nothing more when run again, checks the same proxies again, and still finds no drift", () => {
    // Alone (or first), it makes the run it follows.
    if (sandboxOrders().length === 0) runs.push(demo());
    const run = demo();
    runs.push(run);
    expect(run.status, run.out).toBe(0);
    // The same sandbox address as the first run's: the orders are read where they were bought.
    expect(run.out).not.toContain("Nothing will be read");
    expect(run.out).not.toContain("could not listen on");
    expect(sandboxOrders()).toHaveLength(1);
    expect(run.out).toMatch(/^== Health: 5 of 5 proxies answered through themselves/m);
    expect(run.out).toContain("== No drift: the state matches the API.");
  }, 180_000);

  it("prints no secret, and keeps none in plain text in the stack's state", () => {
    // Alone (or first), it makes a run to read.
    if (runs.length === 0) runs.push(demo());
    expect(runs.every((run) => run.status === 0)).toBe(true);
    const passwords = sandboxOrders().flatMap((order) => order.proxies.map((proxy) => proxy.password));
    expect(passwords).toHaveLength(5);
    const stacks = join(folder.path, ".demo", "backend", ".pulumi", "stacks", "pulumi-proxy-demo");
    const states = readdirSync(stacks).filter((name) => name.endsWith(".json"));
    expect(states).not.toEqual([]);
    const texts = [...runs.map((run) => run.out), ...states.map((name) => readFileSync(join(stacks, name), "utf8"))];
    for (const text of texts) {
      expect(text).not.toContain(SANDBOX_API_KEY);
      for (const password of passwords) expect(text).not.toContain(password);
    }
  }, 180_000);
});

describe("npm run demo -- --records minimal: proxies of the seed's four fields, allow-listed by IP", () => {
  const folder = demoRoot();

  it("buys one plan, checks its proxies healthy without credentials, and finds no drift", () => {
    const run = demoIn(folder.path, "--records", "minimal");
    expect(run.status, run.out).toBe(0);
    const orders = ordersIn(folder.path);
    expect(orders).toHaveLength(1);
    expect(orders[0]?.proxies.map((p) => p.password)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(run.out).toContain(`== Order ${orders[0]!.id}: active since`);
    // The seed's four fields: no protocol, city or expiry to show.
    expect(run.out.match(/^127\.0\.0\.1 +\d+ +datacenter +US *$/gm)).toHaveLength(5);
    expect(run.out).toMatch(/^== Health: 5 of 5 proxies answered through themselves/m);
    expect(run.out).toContain("== No drift: the state matches the API.");
  }, 180_000);
});
