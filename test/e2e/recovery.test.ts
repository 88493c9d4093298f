import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram } from "../helpers/pulumi";

const ORDER_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyOrder";

describe("recovery through the real engine", () => {
  let sandbox: Sandbox;
  let program: PulumiProgram;

  beforeAll(async () => {
    sandbox = await startSandbox({ provisioningMs: 6000 });
    program = await PulumiProgram.create("examples/quickstart", "recovery");
    await program.useApi(sandbox);
  }, 120_000);
  afterAll(async () => {
    program?.cleanup();
    await sandbox?.stop();
  });

  it("a timeout keeps the order in the state, and the next up resumes waiting without buying", async () => {
    await program.config("readyTimeout", "1s");
    await expect(program.up()).rejects.toThrow(/was not ready after[\s\S]*recorded in the state/);
    const state = await program.exportState();
    const recorded = state.resources.find((r) => r.type === ORDER_TYPE);
    const id = sandbox.createdOrders[0]?.id;
    expect(recorded?.id).toBe(id);
    expect(recorded?.outputs?.status).toMatch(/pending|provisioning/);

    await program.config("readyTimeout", "2m");
    await program.up();
    expect(await program.outputs()).toMatchObject({ orderId: id, status: "active" });
    expect(sandbox.createdOrders).toHaveLength(1);
  });

  it("a failed order is reported by id and reason; the next up buys again with a derived key", async () => {
    await program.config("planId", "res-br-out-of-stock");
    await expect(program.up()).rejects.toThrow(/Order ord_\w+ \(plan res-br-out-of-stock\) ended "failed": No residential proxies/);
    expect(sandbox.createdOrders).toHaveLength(2);
    await expect(program.up()).rejects.toThrow(/ended "failed"/);
    expect(sandbox.createdOrders).toHaveLength(3);
    const keys = sandbox.createdOrders.map((o) => o.idempotencyKey);
    expect(new Set(keys).size).toBe(3);
  });

  it("destroy leaves every order in place", async () => {
    await program.run(["config", "rm", "planId"]);
    await program.destroy();
    expect(sandbox.state.orders.size).toBe(3);
  });
});
