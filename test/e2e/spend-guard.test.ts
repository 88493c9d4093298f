/**
 * The spend guard with the real CLI and @pulumi/policy: the package's ready pack (node_modules/pulumi-proxy/
 * policy-pack) over a YAML program of three ProxyOrders through the plugin. Over the cap or on a plan not allowed,
 * preview and `pulumi up --yes` are refused with no request to the API; `--skip-preview` buys no more than the cap; a
 * stack within the limits buys as usual; a bad config is refused. (Why a YAML program: test/helpers/policy.ts.)
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { installPlugin, testDist } from "../helpers/plugin-archive";
import { policyPackExecutable } from "../helpers/policy";
import type { PulumiProgram } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

/** Writes a policy config into the program's folder; returns the flags that apply the pack with it. */
function guard(program: PulumiProgram, config: object): string[] {
  const file = join(program.dir, "policy-config.json");
  writeFileSync(file, JSON.stringify(config));
  return ["--policy-pack", policyPackExecutable(), "--policy-pack-config", file];
}

describe("the spend guard on a YAML program through the plugin (real CLI, @pulumi/policy)", () => {
  const stack = useStack("test/e2e/programs/plugin-guarded", {
    stack: "guarded",
    sandbox: { provisioningMs: 1000 },
    prepare: (program) => installPlugin(program),
  });
  // Nothing bought, and no order read: the one `GET /v1/usage` of each run's check of the key is all the API sees.
  const apiRequests = () => stack.sandbox.requests.filter((r) => r.path.startsWith("/v1/") && r.path !== "/v1/usage").length;

  it("refuses a stack over the cap at preview and at up --yes, with no purchase or read of an order", async () => {
    const { program } = stack;
    const flags = guard(program, { "proxy-max-orders": { maximum: 2 } });
    const preview = await program.run(["preview", ...flags], { allowFailure: true });
    expect(preview.code).not.toBe(0);
    // The YAML host registers the three in no fixed order: whichever comes third is refused.
    expect(preview.stdout + preview.stderr).toMatch(
      /proxy-max-orders[\s\S]*ProxyOrder "(first|second|third)" would bring the stack to 3 order\(s\), over the maximum of 2 .*\(2 counted before it\)/,
    );
    const up = await program.run(["up", "--yes", ...flags], { allowFailure: true });
    expect(up.code).not.toBe(0);
    expect(up.stdout + up.stderr).toContain("over the maximum of 2");
    expect(apiRequests()).toBe(0);
  });

  it("refuses a plan not allowed, naming the plan and the fix, with no purchase or read of an order", async () => {
    const { program } = stack;
    const flags = guard(program, { "proxy-allowed-plans": { plans: ["isp-*", "res-de-2"] } });
    const up = await program.run(["up", "--yes", ...flags], { allowFailure: true });
    expect(up.code).not.toBe(0);
    expect(up.stdout + up.stderr).toMatch(
      /ProxyOrder "(first|second|third)" buys plan "dc-us-5", which proxy-allowed-plans does not allow \(allowed: isp-\*, res-de-2\)/,
    );
    expect(apiRequests()).toBe(0);
  });

  it("refuses a malformed config before anything runs", async () => {
    const { program } = stack;
    const preview = await program.run(["preview", ...guard(program, { "proxy-max-orders": { maximum: "fifty" } })], { allowFailure: true });
    expect(preview.code).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(/proxy-max-orders[\s\S]*maximum/);
    expect(apiRequests()).toBe(0);
  });

  it("with --skip-preview, buys no more than the cap", async () => {
    const { program, sandbox } = stack;
    const flags = guard(program, { "proxy-max-orders": { maximum: 2 } });
    const up = await program.run(["up", "--yes", "--skip-preview", ...flags], { allowFailure: true });
    expect(up.code).not.toBe(0);
    expect(up.stdout).toContain("over the maximum of 2");
    expect(sandbox.createdOrders.length).toBeLessThanOrEqual(2);
    // Every order bought is in the state: the guard stopped a purchase, not the recording of one.
    const held = (await program.exportState()).resources.filter((r) => r.type === "proxy:index:ProxyOrder");
    expect(held.map((r) => r.id).sort()).toEqual(sandbox.createdOrders.map((o) => o.id).sort());
  });

  it("lets a stack within the limits preview and buy as usual, with advice to renew", async () => {
    const { program, sandbox } = stack;
    const flags = guard(program, { "proxy-max-orders": { maximum: 3 }, "proxy-allowed-plans": { plans: ["dc-us-*"] } });
    const preview = await program.run(["preview", ...flags]);
    expect(preview.stdout).toContain("proxy-require-renewal");
    await program.run(["up", "--yes", ...flags]);
    expect(new Set(sandbox.createdOrders.map((o) => o.id)).size).toBe(3);
    expect((await program.exportState()).resources.filter((r) => r.type === "proxy:index:ProxyOrder")).toHaveLength(3);
    await program.run(["destroy", "--yes"]);
  });
});
