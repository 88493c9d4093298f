import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram } from "../helpers/pulumi";

const ORDER_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyOrder";

/** The order ids the stack's state holds. */
async function orderIds(program: PulumiProgram): Promise<string[]> {
  const state = await program.exportState();
  return state.resources.filter((r) => r.type === ORDER_TYPE).map((r) => r.id ?? "").sort();
}

describe("no paid order leaves the state unless its absence is certain (real CLI)", () => {
  let sandbox: Sandbox;
  let program: PulumiProgram;
  const bought = () => sandbox.createdOrders.map((o) => o.id).sort();

  beforeAll(async () => {
    sandbox = await startSandbox({ provisioningMs: 1000 });
    program = await PulumiProgram.create("test/e2e/programs/fleet", "kept");
    await program.useApi(sandbox);
    await program.config("count", "2");
  }, 120_000);
  afterAll(async () => {
    program?.cleanup();
    await sandbox?.stop();
  });

  it("refresh right after a create keeps orders that answer a burst of 404 (its preview too)", async () => {
    await program.config("waitForReady", "false");
    sandbox.faults.notFoundReadsForNewOrders = 3;
    await program.up();
    expect(bought()).toHaveLength(2);
    // With its preview: both of refresh's reads meet the burst.
    const refresh = await program.run(["refresh", "--yes"]);
    expect(refresh.stdout).not.toMatch(/delete/i);
    expect(await orderIds(program)).toEqual(bought());
    sandbox.faults.clear();
    await program.run(["config", "rm", "waitForReady"]);
    await program.up();
  }, 120_000);

  it("a wrong base URL, stored by an up with no changes, makes refresh fail and keeps every order", async () => {
    await program.config("proxy:baseUrl", `${sandbox.url}/api`);
    await program.up();
    await expect(program.refresh()).rejects.toThrow(/answered 404, and GET \/v1\/usage on the same base URL failed too[\s\S]*stays in the state/);
    expect(await orderIds(program)).toEqual(bought());
    await program.config("proxy:baseUrl", sandbox.url);
    await program.up();
  }, 120_000);

  it("a base URL ending in /v1 fails the preview with the fix, before anything is sent", async () => {
    await program.config("proxy:baseUrl", `${sandbox.url}/v1`);
    const requests = sandbox.requests.length;
    const error = (await program.preview().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/contains a version path[\s\S]*the provider adds \/v1 itself/);
    // One clear line on the resource: no stack trace from the provider process.
    expect(error.message).not.toMatch(/\bat resolveSettings\b|ConfigurationError:/);
    expect(sandbox.requests.length).toBe(requests);
    await program.config("proxy:baseUrl", sandbox.url);
  }, 120_000);

  it("after a key change, plain refresh uses the key stored with the last up and says how to apply the new one", async () => {
    await program.config("proxy:apiKey", "sk_old_revoked_key", { secret: true });
    await program.up();
    await program.config("proxy:apiKey", sandbox.apiKey, { secret: true });
    await expect(program.refresh()).rejects.toThrow(/401[\s\S]*stored in the state by the last `pulumi up`[\s\S]*pulumi refresh --run-program/);
    const fixed = await program.refresh("--run-program");
    expect(fixed.changeSummary).toEqual({ same: 3 });
    expect(await orderIds(program)).toEqual(bought());
  }, 120_000);

  it("the preview says that a new plan buys a new order and the old one stays", async () => {
    await program.config("plan0", "isp-gb-2");
    const preview = await program.preview();
    const messages = (preview.diagnostics ?? []).map((d) => d.message).join("\n");
    expect(messages).toMatch(/replacing order ord_\w+ \(plan dc-us-5, active\) buys a new order for plan isp-gb-2\. ord_\w+ is not cancelled/);
    await program.run(["config", "rm", "plan0"]);
    expect(bought()).toHaveLength(2);
  }, 120_000);

  it("a lost state is recovered by adopting the orders, without buying", async () => {
    const ids = await orderIds(program);
    const recovered = await PulumiProgram.create("test/e2e/programs/fleet", "recovered");
    try {
      await recovered.useApi(sandbox);
      await recovered.config("count", "2");
      for (const [i, id] of ids.entries()) await recovered.config(`adopt${i}`, id);
      const up = await recovered.up();
      expect(up.changeSummary).toEqual({ create: 3 });
      expect(await orderIds(recovered)).toEqual(ids);
      await recovered.preview("--expect-no-changes");
      expect(bought()).toEqual(ids);
    } finally {
      recovered.cleanup();
    }
  }, 180_000);
});
