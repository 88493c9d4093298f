/**
 * A ProxyOrder with healthCheck and getProxyHealth from a YAML program through the plugin, with the real CLI and no
 * Node.js on PATH, against a sandbox that serves its proxies; and a fleet's check under way, stopped by Ctrl-C.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { useStack } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

const ORDER_TYPE = "proxy:index:ProxyOrder";
const FLEET_TYPE = "proxy:index:ProxyFleet";

describe("a ProxyOrder with healthCheck from a YAML program through the plugin (real CLI)", () => {
  const stack = useStack("test/e2e/programs/plugin-health", {
    stack: "health",
    sandbox: { provisioningMs: 1000, serveProxies: true },
    prepare: installPluginWithoutNode,
  });

  it("records the check, fails below minHealthy naming the dead proxy and keeps the order, passes again once it answers", async () => {
    const { program, sandbox } = stack;
    await program.config("target", sandbox.proxies?.echoUrl ?? "");
    await program.config("minHealthy", "100%");
    await program.up();
    expect(sandbox.createdOrders).toHaveLength(1);
    const outputs = await program.outputs();
    expect(outputs).toMatchObject({ health: { healthy: 5, total: 5 }, functionHealthy: 5, functionTotal: 5 });
    const orderId = outputs.orderId as string;

    const [dead] = sandbox.state.orders.get(orderId)?.proxies ?? [];
    await sandbox.proxies?.setCondition(dead?.id ?? "", "dead");
    const gate = await program.run(["up", "--yes", "--skip-preview", "--non-interactive", "--refresh"], { allowFailure: true });
    expect(gate.code).not.toBe(0);
    const failure = gate.stdout + gate.stderr;
    expect(failure).toContain(`4 of 5 proxies of order ${orderId} (plan dc-us-5) answered`);
    expect(failure).toContain(`${dead?.ip}:${dead?.port} (order ${orderId}): refused`);
    const kept = (await program.exportState()).resources.find((r) => r.type === ORDER_TYPE);
    expect(kept?.outputs).toMatchObject({ orderId, health: { healthy: 4, total: 5 } });
    expect(sandbox.createdOrders).toHaveLength(1);

    await sandbox.proxies?.setCondition(dead?.id ?? "", "ok");
    await program.up("--refresh");
    expect(await program.outputs()).toMatchObject({ health: { healthy: 5, total: 5 } });
    expect(sandbox.createdOrders).toHaveLength(1);
    const state = await program.exportState();
    for (const p of sandbox.state.orders.get(orderId)?.proxies ?? []) {
      expect(state.text).not.toContain(p.password);
      expect(failure).not.toContain(p.password);
    }
  }, 600_000);
});

describe("Ctrl-C during a fleet's health check through the plugin (test/e2e/programs/plugin-health-cancel)", () => {
  // Every proxy answers ten minutes late; each check may take five: only the plugin's Cancel ends them sooner.
  const stack = useStack("test/e2e/programs/plugin-health-cancel", {
    stack: "health-cancel",
    sandbox: { provisioningMs: 500, serveProxies: { slow: 1, slowMs: 600_000 } },
    prepare: installPluginWithoutNode,
  });

  it("ends the update before any check could end, keeps every order in the state, and the next up checks again", async () => {
    const { program, sandbox } = stack;
    await program.config("target", sandbox.proxies?.echoUrl ?? "");
    // The check begins once every order is active: the three purchases, then a connection to a proxy.
    const { code, printed } = await program.upInterrupted(() => sandbox.createdOrders.length === 3 && (sandbox.proxies?.connections() ?? 0) > 0);
    expect(code).not.toBe(0);
    expect(printed).toMatch(/The check of the proxies of fleet .* was cancelled \(Ctrl-C\) after 0 of 15 answered/);
    const kept = (await program.exportState()).resources.find((r) => r.type === FLEET_TYPE);
    const members = (kept?.outputs as { members?: Array<{ orderId: string }> } | undefined)?.members ?? [];
    expect(members.map((m) => m.orderId).sort()).toEqual(sandbox.createdOrders.map((o) => o.id).sort());

    for (const order of sandbox.state.orders.values()) for (const proxy of order.proxies) await sandbox.proxies?.setCondition(proxy.id, "ok");
    await program.up();
    expect(await program.outputs()).toMatchObject({ health: { healthy: 15, total: 15 } });
    expect(sandbox.createdOrders).toHaveLength(3);
    await program.destroy();
  }, 600_000);
});
