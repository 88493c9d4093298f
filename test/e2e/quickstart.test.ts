import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram, type CliResult } from "../helpers/pulumi";

const ORDER_TYPE = "pulumi-nodejs:dynamic/proxy:ProxyOrder";

describe("examples/quickstart with the real Pulumi CLI", () => {
  let sandbox: Sandbox;
  let program: PulumiProgram;
  const printed: CliResult[] = [];
  const posts = () => sandbox.requests.filter((r) => r.method === "POST");

  beforeAll(async () => {
    sandbox = await startSandbox({ provisioningMs: 1500 });
    program = await PulumiProgram.create("examples/quickstart");
    await program.useApi(sandbox);
  }, 120_000);
  afterAll(async () => {
    program?.cleanup();
    await sandbox?.stop();
  });

  it("preview shows the purchase and sends no order", async () => {
    const preview = await program.preview();
    printed.push(preview);
    expect(preview.steps?.find((s) => s.urn.includes(ORDER_TYPE))?.op).toBe("create");
    expect(posts()).toEqual([]);
    expect(sandbox.createdOrders).toEqual([]);
  });

  it("up buys one order, waits for it, and exports its proxies; credentials stay secret", async () => {
    const up = await program.up();
    printed.push(up);
    expect(up.changeSummary).toEqual({ create: 2 });
    expect(sandbox.createdOrders).toHaveLength(1);
    const outputs = await program.outputs();
    expect(outputs).toMatchObject({ orderId: sandbox.createdOrders[0]?.id, status: "active", credentials: "[secret]", proxiesInCountry: 5 });
    expect(outputs.proxies).toHaveLength(5);
    expect((outputs.usage as { bandwidth: { usedBytes: number } }).bandwidth.usedBytes).toBeGreaterThanOrEqual(0);
    const secrets = await program.outputs({ showSecrets: true });
    expect((secrets.credentials as Array<{ password: string }>)[0]?.password).toMatch(/^[0-9a-f]{24}$/);
  });

  it("a second preview shows no changes", async () => {
    printed.push(await program.preview("--expect-no-changes"));
  });

  it("refresh finds no drift, and leaves no phantom diff", async () => {
    const refresh = await program.refresh();
    printed.push(refresh);
    expect(refresh.changeSummary).toEqual({ same: 2 });
    printed.push(await program.preview("--expect-no-changes"));
  });

  it("a new plan id shows a replacement in preview, and buys nothing", async () => {
    await program.config("planId", "isp-gb-2");
    const preview = await program.preview("--diff");
    printed.push(preview);
    const step = preview.steps?.find((s) => s.urn.includes(ORDER_TYPE) && s.op === "replace");
    expect(step?.replaceReasons).toContain("planId");
    expect(sandbox.createdOrders).toHaveLength(1);
    await program.run(["config", "rm", "planId"]);
  });

  it("keeps the API key out of the state and the CLI's output; the serialized provider is small", async () => {
    const state = await program.exportState();
    expect(state.text).not.toContain(sandbox.apiKey);
    for (const result of printed) {
      expect(result.stdout + result.stderr).not.toContain(sandbox.apiKey);
    }
    const order = state.resources.find((r) => r.type === ORDER_TYPE);
    const serialized = String(order?.inputs?.__provider ?? "");
    expect(serialized).toContain('require("pulumi-proxy/provider")');
    // A figure for the record, not a limit: the provider is stored with every ProxyOrder.
    console.log(`serialized provider: ${serialized.length} bytes per ProxyOrder`);
    expect(serialized.length).toBeLessThan(8_000);
  });

  it("destroy only forgets the order, and says the purchase stays", async () => {
    const destroy = await program.destroy();
    expect(destroy.changeSummary).toEqual({ delete: 2 });
    // Log lines of a dynamic provider reach the CLI through the provider's stderr, prefixed with their level.
    const messages = destroy.diagnostics?.map((d) => d.message).join("\n") ?? "";
    expect(messages).toMatch(/warning: \[runtime\] proxy: order ord_\w+ .* no longer tracked by Pulumi, but the purchase stays active/);
    const id = sandbox.createdOrders[0]?.id ?? "";
    expect(sandbox.orderStatus(id)).toBe("active");
    expect(posts()).toHaveLength(1);
  });
});
