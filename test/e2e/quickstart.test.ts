import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ORDER_TYPE, REPO_ROOT, type CliResult } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";

/** Every key path of `value` with the type found there (an array by its first item), sorted. */
function shapeOf(value: unknown, at = ""): string[] {
  if (Array.isArray(value)) return shapeOf(value[0], `${at}[]`);
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([key, inner]) => shapeOf(inner, `${at}.${key}`)).sort();
  return [`${at}: ${value === null ? "null" : typeof value}`];
}

describe("examples/quickstart with the real Pulumi CLI", () => {
  const stack = useStack("examples/quickstart", { sandbox: { provisioningMs: 1500 } });
  const printed: CliResult[] = [];
  const posts = () => stack.sandbox.requests.filter((r) => r.method === "POST");

  it("preview shows the purchase and sends no order", async () => {
    const preview = await stack.program.preview();
    printed.push(preview);
    expect(preview.steps?.find((s) => s.urn.includes(ORDER_TYPE))?.op).toBe("create");
    expect(posts()).toEqual([]);
    expect(stack.sandbox.createdOrders).toEqual([]);
  });

  it("up buys one order, waits for it, and exports its proxies; credentials stay secret", async () => {
    const up = await stack.program.up();
    printed.push(up);
    expect(up.changeSummary).toEqual({ create: 2 });
    expect(stack.sandbox.createdOrders).toHaveLength(1);
    const outputs = await stack.program.outputs();
    expect(outputs).toMatchObject({ orderId: stack.sandbox.createdOrders[0]?.id, status: "active", credentials: "[secret]", proxiesInCountry: 5 });
    expect(outputs.proxies).toHaveLength(5);
    // docs/operating.md shows these outputs: its sample has their shape (every key, at every depth).
    const sample = /## What the stack outputs look like[\s\S]*?```json\n([\s\S]*?)```/.exec(readFileSync(join(REPO_ROOT, "docs", "operating.md"), "utf8"))?.[1];
    expect(shapeOf(JSON.parse(sample ?? "null"))).toEqual(shapeOf(outputs));
    expect((outputs.usage as { bandwidth: { usedBytes: number } }).bandwidth.usedBytes).toBeGreaterThanOrEqual(0);
    const secrets = await stack.program.outputs({ showSecrets: true });
    expect((secrets.credentials as Array<{ password: string }>)[0]?.password).toMatch(/^[0-9a-f]{24}$/);
  });

  it("a second preview shows no changes", async () => {
    printed.push(await stack.program.preview("--expect-no-changes"));
  });

  it("refresh finds no drift, and leaves no phantom diff", async () => {
    const refresh = await stack.program.refresh();
    printed.push(refresh);
    expect(refresh.changeSummary).toEqual({ same: 2 });
    printed.push(await stack.program.preview("--expect-no-changes"));
  });

  it("a new plan id shows a replacement in preview, and buys nothing", async () => {
    await stack.program.config("planId", "isp-gb-2");
    const preview = await stack.program.preview("--diff");
    printed.push(preview);
    const step = preview.steps?.find((s) => s.urn.includes(ORDER_TYPE) && s.op === "replace");
    expect(step?.replaceReasons).toContain("planId");
    expect(stack.sandbox.createdOrders).toHaveLength(1);
    await stack.program.run(["config", "rm", "planId"]);
  });

  it("keeps the API key out of the state and the CLI's output; the stored provider is one line", async () => {
    const state = await stack.program.exportState();
    expect(state.text).not.toContain(stack.sandbox.apiKey);
    for (const result of printed) {
      expect(result.stdout + result.stderr).not.toContain(stack.sandbox.apiKey);
    }
    const order = state.resources.find((r) => r.type === ORDER_TYPE);
    // Stored twice with every ProxyOrder, and rewritten with the whole state after every step.
    expect(order?.inputs?.__provider).toBe('exports.handler = () => require("pulumi-proxy/provider").orderProvider;\n');
    expect(order?.outputs?.__provider).toBe(order?.inputs?.__provider);
  });

  it("destroy only forgets the order, and says the purchase stays", async () => {
    const destroy = await stack.program.destroy();
    expect(destroy.changeSummary).toEqual({ delete: 2 });
    // Log lines of a dynamic provider reach the CLI through the provider's stderr, prefixed with their level.
    const messages = destroy.diagnostics?.map((d) => d.message).join("\n") ?? "";
    expect(messages).toMatch(/warning: \[runtime\] proxy: order ord_\w+ .* no longer tracked by Pulumi, but the purchase stays active/);
    const id = stack.sandbox.createdOrders[0]?.id ?? "";
    expect(stack.sandbox.orderStatus(id)).toBe("active");
    expect(posts()).toHaveLength(1);
  });
});
