/**
 * ProxyFleet from a YAML program through the plugin, with the real CLI and no Node.js on PATH: buy, a quiet preview,
 * refresh, `pulumi import` by order ids after the fleet left the state, and destroy.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { installPluginWithoutNode, testDist } from "../helpers/plugin-archive";
import { useStack } from "../helpers/stack";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

const FLEET_TYPE = "proxy:index:ProxyFleet";

describe("a ProxyFleet from a YAML program through the plugin (real CLI)", () => {
  const stack = useStack("test/e2e/programs/plugin-fleet", {
    stack: "fleet",
    sandbox: { provisioningMs: 1500 },
    prepare: installPluginWithoutNode,
  });

  it("buys, previews quietly, refreshes, is imported back by its order ids without buying, and is destroyed", async () => {
    const { program, sandbox } = stack;
    expect((await program.up()).changeSummary).toEqual({ create: 2 });
    expect(sandbox.createdOrders).toHaveLength(3);
    const outputs = await program.outputs();
    const members = outputs.members as Array<{ slot: number; orderId: string; status: string }>;
    expect(members.map((m) => [m.slot, m.status])).toEqual([[0, "active"], [1, "active"], [2, "active"]]);
    expect(outputs.credentials).toBe("[secret]");
    const state = await program.exportState();
    for (const order of sandbox.state.orders.values()) for (const p of order.proxies) expect(state.text).not.toContain(p.password);

    await program.preview("--expect-no-changes");
    const refresh = await program.refresh();
    expect(Object.keys(refresh.changeSummary ?? {}).filter((op) => op !== "same")).toEqual([]);

    const urn = state.resources.find((r) => r.type === FLEET_TYPE)?.urn ?? "";
    await program.run(["state", "delete", urn, "--yes"]);
    const ids = members.map((m) => m.orderId).join(",");
    await program.run(["import", FLEET_TYPE, "fleet", ids, "--yes", "--protect=false", "--generate-code=false"]);
    const imported = (await program.exportState()).resources.find((r) => r.type === FLEET_TYPE);
    expect((imported?.outputs?.members as Array<{ orderId: string }>).map((m) => m.orderId)).toEqual(members.map((m) => m.orderId));
    await program.preview("--expect-no-changes");
    expect(sandbox.createdOrders).toHaveLength(3);

    const destroy = await program.destroy();
    expect((destroy.diagnostics ?? []).some((d) => d.message.includes("3 order(s) stay active"))).toBe(true);
    expect(sandbox.createdOrders).toHaveLength(3);
  }, 600_000);
});
