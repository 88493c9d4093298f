import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SERIALIZED_PROVIDER } from "../../provider/shared/pulumi-host";
import { ORDER_TYPE, parseJsonOutput, PulumiProgram, REPO_ROOT } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

/** The order ids the stack's state holds. */
async function orderIds(of: PulumiProgram): Promise<string[]> {
  const state = await of.exportState();
  return state.resources.filter((r) => r.type === ORDER_TYPE).map((r) => r.id ?? "").sort();
}

describe("no paid order leaves the state unless its absence is certain (real CLI)", () => {
  const stack = useStack("test/e2e/programs/fleet", { stack: "kept", sandbox: { provisioningMs: 1000 }, prepare: (p) => p.config("count", "2") });
  const bought = () => stack.sandbox.createdOrders.map((o) => o.id).sort();

  it("refresh right after a create keeps orders that answer a burst of 404 (its preview too)", async () => {
    await stack.program.config("waitForReady", "false");
    stack.sandbox.faults.notFoundReadsForNewOrders = 3;
    await stack.program.up();
    expect(bought()).toHaveLength(2);
    // With its preview: both of refresh's reads meet the burst.
    const refresh = await stack.program.run(["refresh", "--yes"]);
    expect(refresh.stdout).not.toMatch(/delete/i);
    expect(await orderIds(stack.program)).toEqual(bought());
    stack.sandbox.faults.clear();
    await stack.program.run(["config", "rm", "waitForReady"]);
    await stack.program.up();
  }, 120_000);

  it("a wrong base URL, stored by an up with no changes, is not asked for the orders: refresh keeps every one and names both URLs", async () => {
    await stack.program.config("proxy:baseUrl", `${stack.sandbox.url}/api`);
    await stack.program.up();
    const requests = stack.sandbox.requests.length;
    const refresh = await stack.program.refresh();
    expect((refresh.diagnostics ?? []).map((d) => d.message).join("\n")).toContain(`lives at ${stack.sandbox.url}, but proxy:baseUrl (or PROXY_API_BASE_URL) is now ${stack.sandbox.url}/api`);
    expect(stack.sandbox.requests.slice(requests).filter((r) => r.path.includes("/orders/"))).toEqual([]);
    expect(await orderIds(stack.program)).toEqual(bought());
    await stack.program.config("proxy:baseUrl", stack.sandbox.url);
    await stack.program.up();
  }, 120_000);

  it("a key the API refuses fails the preview with the message up gives, and no purchase is ever sent", async () => {
    await stack.program.config("proxy:apiKey", "sk_wrong_key_for_preview", { secret: true });
    const posts = () => stack.sandbox.requests.filter((r) => r.method === "POST").length;
    const before = posts();
    await stack.program.config("count", "3");
    const preview = await stack.program.run(["preview", "--non-interactive"], { allowFailure: true });
    const up = await stack.program.run(["up", "--yes", "--skip-preview", "--non-interactive"], { allowFailure: true });
    for (const run of [preview, up]) {
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr).toMatch(/GET \/v1\/usage failed with 401 unauthenticated[\s\S]*Set a valid API key/);
      expect(run.stdout + run.stderr).not.toContain("sk_wrong_key_for_preview");
    }
    expect(posts()).toBe(before);
    await stack.program.config("count", "2");
    await stack.program.config("proxy:apiKey", stack.sandbox.apiKey, { secret: true });
    // The failed up may have recorded the provider with the wrong key: an up with the right one stores it again.
    await stack.program.up();
    expect(posts()).toBe(before);
  }, 120_000);

  it("a misspelt proxy:baseURL fails the preview naming the setting it may mean, once for both orders", async () => {
    await stack.program.run(["config", "rm", "proxy:baseUrl"]);
    await stack.program.config("proxy:baseURL", stack.sandbox.url);
    const preview = await stack.program.run(["preview", "--json"], { allowFailure: true });
    expect(preview.code).not.toBe(0);
    const errors = (parseJsonOutput(preview.stdout).diagnostics ?? []).filter((d) => d.severity === "error").map((d) => d.message);
    // The engine may stop at the first order's failure or check both: the fix is said once either way.
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(errors.filter((m) => m.includes("`proxy:baseURL` is set, but it is not a setting of this provider: did you mean `proxy:baseUrl`?"))).toHaveLength(1);
    expect(errors.filter((m) => m.includes("not configured"))).toHaveLength(errors.length);
    await stack.program.run(["config", "rm", "proxy:baseURL"]);
    await stack.program.config("proxy:baseUrl", stack.sandbox.url);
  }, 120_000);

  it("a base URL ending in /v1 fails the preview with the fix, before anything is sent", async () => {
    await stack.program.config("proxy:baseUrl", `${stack.sandbox.url}/v1`);
    const requests = stack.sandbox.requests.length;
    const error = (await stack.program.preview().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/contains a version path[\s\S]*the provider adds \/v1 itself/);
    // One clear line on the resource: no stack trace from the provider process.
    expect(error.message).not.toMatch(/\bat resolveSettings\b|ConfigurationError:/);
    expect(stack.sandbox.requests.length).toBe(requests);
    await stack.program.config("proxy:baseUrl", stack.sandbox.url);
  }, 120_000);

  it("after a key change, plain refresh uses the key stored with the last up and says how to apply the new one", async () => {
    // An up with a revoked key fails at its check of the key, but the engine has recorded the stack's config by then:
    // the state now holds the revoked key, as after a rotation.
    await stack.program.config("proxy:apiKey", "sk_old_revoked_key", { secret: true });
    const refused = await stack.program.run(["up", "--yes", "--skip-preview", "--non-interactive"], { allowFailure: true });
    expect(refused.code).not.toBe(0);
    await stack.program.config("proxy:apiKey", stack.sandbox.apiKey, { secret: true });
    await expect(stack.program.refresh()).rejects.toThrow(/401[\s\S]*stored in the state by the last `pulumi up`[\s\S]*pulumi refresh --run-program/);
    const fixed = await stack.program.refresh("--run-program");
    expect(fixed.changeSummary).toEqual({ same: 3 });
    expect(await orderIds(stack.program)).toEqual(bought());
  }, 120_000);

  it("the preview says that a new plan buys a new order and the old one stays", async () => {
    await stack.program.config("plan0", "isp-gb-2");
    const preview = await stack.program.preview();
    const messages = (preview.diagnostics ?? []).map((d) => d.message).join("\n");
    expect(messages).toMatch(/replacing order ord_\w+ \(plan dc-us-5, active\) buys a new order for plan isp-gb-2\. ord_\w+ is not cancelled/);
    await stack.program.run(["config", "rm", "plan0"]);
    expect(bought()).toHaveLength(2);
  }, 120_000);

  it("a lost state is recovered by adopting the orders, without buying", async () => {
    const ids = await orderIds(stack.program);
    const recovered = await PulumiProgram.create("test/e2e/programs/fleet", "recovered");
    try {
      await recovered.useApi(stack.sandbox);
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

describe("a state written by the earlier serialized provider keeps its orders (real CLI)", () => {
  // Before the provider was written by hand, Pulumi's closure serialization wrote seven forwarding functions: this
  // text, as states of that version hold it.
  const closure = readFileSync(join(REPO_ROOT, "test", "fixtures", "serialized-provider-closure.js"), "utf8");
  const stack = useStack("test/e2e/programs/fleet", { stack: "earlier", prepare: (p) => p.config("count", "2") });

  it("previews no change, refreshes, updates nothing, and destroys with the installed version", async () => {
    await stack.program.up();
    const exported = JSON.parse((await stack.program.run(["stack", "export"])).stdout) as {
      deployment: { resources: Array<{ type: string; inputs: Record<string, unknown>; outputs: Record<string, unknown> }> };
    };
    const orders = exported.deployment.resources.filter((r) => r.type === ORDER_TYPE);
    expect(orders.map((r) => r.outputs.__provider)).toEqual([SERIALIZED_PROVIDER, SERIALIZED_PROVIDER]);
    for (const order of orders) order.inputs.__provider = order.outputs.__provider = closure;
    const file = join(stack.program.dir, "earlier.json");
    writeFileSync(file, JSON.stringify(exported));
    await stack.program.run(["stack", "import", "--file", file]);

    await stack.program.preview("--expect-no-changes");
    expect((await stack.program.refresh()).changeSummary).toEqual({ same: 3 });
    expect((await stack.program.up()).changeSummary).toEqual({ same: 3 });
    // Refresh and destroy run the outputs' provider: still the earlier one, so destroy below runs it too.
    const kept = (await stack.program.exportState()).resources.filter((r) => r.type === ORDER_TYPE);
    expect(kept.map((r) => r.outputs?.__provider)).toEqual([closure, closure]);
    expect(await orderIds(stack.program)).toEqual(stack.sandbox.createdOrders.map((o) => o.id).sort());
    const destroy = await stack.program.destroy();
    expect(destroy.changeSummary).toEqual({ delete: 3 });
    const messages = destroy.diagnostics?.map((d) => d.message).join("\n") ?? "";
    expect(messages).toMatch(/no longer tracked by Pulumi, but the purchase stays active/);
    expect(stack.sandbox.createdOrders).toHaveLength(2);
  }, 240_000);
});
