/**
 * Fleets under the API's rate limit, with the real CLI: one `pulumi up` of many orders at a large runner's
 * `--parallel` against a sandbox that enforces a per-key token bucket, and two stacks on one key at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { ORDER_TYPE, PulumiProgram } from "../helpers/pulumi";

const RATE = { requestsPerSecond: 10, burst: 10 };

/** The order ids a stack's state holds. */
async function orderIds(program: PulumiProgram): Promise<string[]> {
  const state = await program.exportState();
  return state.resources.filter((r) => r.type === ORDER_TYPE).map((r) => r.id ?? "");
}

/** A fleet program of `count` orders pointed at the sandbox. */
async function fleet(sandbox: Sandbox, stack: string, count: number): Promise<PulumiProgram> {
  const program = await PulumiProgram.create("test/e2e/programs/fleet", stack);
  await program.useApi(sandbox);
  await program.config("count", String(count));
  await program.config("readyTimeout", "10m");
  return program;
}

/** Every order the sandbox created was bought with its own idempotency key, once. */
function expectOnePurchasePerKey(sandbox: Sandbox, count: number): void {
  expect(sandbox.createdOrders).toHaveLength(count);
  expect(new Set(sandbox.createdOrders.map((o) => o.idempotencyKey)).size).toBe(count);
}

describe("a fleet under the API's rate limit (real CLI)", () => {
  let sandbox: Sandbox;
  const programs: PulumiProgram[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ rateLimit: RATE, provisioningMs: 3000 });
  });
  afterAll(async () => {
    for (const program of programs) program.cleanup();
    await sandbox?.stop();
  });

  it("buys 100 orders in one `pulumi up --parallel 32` against 10 requests/s, each once, all in the state", async () => {
    const program = await fleet(sandbox, "hundred", 100);
    programs.push(program);
    const up = await program.up("--parallel", "32");
    expect(up.stdout + up.stderr).not.toMatch(/failed \(429\)/);
    expectOnePurchasePerKey(sandbox, 100);
    expect((await orderIds(program)).sort()).toEqual(sandbox.createdOrders.map((o) => o.id).sort());
    const outputs = await program.outputs();
    expect(Object.keys(outputs)).toHaveLength(100);

    const again = await program.preview();
    expect(again.changeSummary).toEqual({ same: 101 });

    // Refresh from the list: its preview and its update each list the account once (500 proxies, one page), and
    // read no order by id, since nothing changed.
    const before = sandbox.requests.length;
    await program.refresh();
    const refreshed = sandbox.requests.slice(before).filter((r) => r.path.startsWith("/v1/"));
    expect(refreshed.filter((r) => r.path.startsWith("/v1/orders/"))).toEqual([]);
    expect(refreshed.length).toBeLessThanOrEqual(4);
    await program.destroy();
  }, 600_000);

  it("two stacks on one key at once both succeed, and no order is bought twice", async () => {
    sandbox.reset();
    const [a, b] = await Promise.all([fleet(sandbox, "first", 30), fleet(sandbox, "second", 30)]);
    programs.push(a!, b!);
    await Promise.all([a!.up("--parallel", "32"), b!.up("--parallel", "32")]);
    expectOnePurchasePerKey(sandbox, 60);
    const inState = [...(await orderIds(a!)), ...(await orderIds(b!))].sort();
    expect(inState).toEqual(sandbox.createdOrders.map((o) => o.id).sort());
    await Promise.all([a!.destroy(), b!.destroy()]);
  }, 600_000);
});
