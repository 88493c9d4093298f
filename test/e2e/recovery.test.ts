import { describe, expect, it } from "vitest";
import { ORDER_TYPE } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

describe("recovery through the real engine", () => {
  const stack = useStack("examples/quickstart", { stack: "recovery", sandbox: { provisioningMs: 6000 } });

  it("a timeout keeps the order in the state, and the next up resumes waiting without buying", async () => {
    await stack.program.config("readyTimeout", "1s");
    await expect(stack.program.up()).rejects.toThrow(/was not ready after[\s\S]*recorded in the state/);
    const state = await stack.program.exportState();
    const recorded = state.resources.find((r) => r.type === ORDER_TYPE);
    const id = stack.sandbox.createdOrders[0]?.id;
    expect(recorded?.id).toBe(id);
    expect(recorded?.outputs?.status).toMatch(/pending|provisioning/);

    await stack.program.config("readyTimeout", "2m");
    await stack.program.up();
    expect(await stack.program.outputs()).toMatchObject({ orderId: id, status: "active" });
    expect(stack.sandbox.createdOrders).toHaveLength(1);
  });

  it("a failed order is reported by id and reason; the next up buys again with a derived key", async () => {
    await stack.program.config("planId", "res-br-out-of-stock");
    await expect(stack.program.up()).rejects.toThrow(/Order ord_\w+ \(plan res-br-out-of-stock\) ended "failed": No residential proxies/);
    expect(stack.sandbox.createdOrders).toHaveLength(2);
    await expect(stack.program.up()).rejects.toThrow(/ended "failed"/);
    expect(stack.sandbox.createdOrders).toHaveLength(3);
    const keys = stack.sandbox.createdOrders.map((o) => o.idempotencyKey);
    expect(new Set(keys).size).toBe(3);
  });

  it("destroy leaves every order in place", async () => {
    await stack.program.run(["config", "rm", "planId"]);
    await stack.program.destroy();
    expect(stack.sandbox.state.orders.size).toBe(3);
  });
});
