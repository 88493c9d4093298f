/**
 * The `proxy` provider plugin from YAML, Python and TypeScript programs, with the real Pulumi CLI and its language
 * hosts, against the sandbox over real HTTP: buy, a no-change preview, refresh, import and destroy.
 */
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PulumiProgram, type CliResult } from "../helpers/pulumi";
import { useStack } from "../helpers/stack";
import { installPlugin, installPluginWithoutNode, pathWithoutNode, testDist } from "../helpers/plugin-archive";
import { pythonEnvironment } from "../helpers/python";

// The plugin archive this file installs: built once per run, maybe still under way (a hang guard, not a timing).
beforeAll(() => testDist(), 1_800_000);

const ORDER_TYPE = "proxy:index:ProxyOrder";

/** Nothing but unchanged resources. */
function expectNoChanges(summary: Record<string, number> | undefined): void {
  expect(Object.keys(summary ?? {}).filter((op) => op !== "same")).toEqual([]);
}

/** The passwords of every proxy the sandbox sold: none may appear in plain text anywhere. */
function passwords(sandbox: Sandbox): string[] {
  return [...sandbox.state.orders.values()].flatMap((order) => order.proxies.flatMap((p) => (p.password === undefined ? [] : [p.password])));
}

/** The whole life of one ProxyOrder named `order`, as a user of the plugin lives it. */
function lifecycle(name: string, programPath: string, prepare: (program: PulumiProgram) => Promise<void> | void = () => undefined) {
  describe(`${name} (${programPath}) through the plugin`, () => {
    const stack = useStack(programPath, { sandbox: { provisioningMs: 1500 }, prepare });
    let orderId: string;
    const printed: CliResult[] = [];

    it("up buys one order and waits for it; the credentials and the key stay secret", async () => {
      const up = await stack.program.up();
      printed.push(up);
      expect(up.changeSummary).toEqual({ create: 2 });
      expect(stack.sandbox.createdOrders).toHaveLength(1);
      const outputs = await stack.program.outputs();
      orderId = outputs.orderId as string;
      expect(outputs).toMatchObject({ orderId: stack.sandbox.createdOrders[0]?.id, status: "active", credentials: "[secret]" });
      expect(outputs.proxies).toHaveLength(5);
      expect(JSON.stringify(outputs.proxies)).not.toContain("password");
      expect(outputs.requestsUsed).toEqual(expect.any(Number));
      const secrets = await stack.program.outputs({ showSecrets: true });
      expect((secrets.credentials as Array<{ password: string }>)[0]?.password).toMatch(/^[0-9a-f]{24}$/);
      const state = await stack.program.exportState();
      expect(state.resources.find((r) => r.type === ORDER_TYPE)?.id).toBe(orderId);
      for (const secret of [stack.sandbox.apiKey, ...passwords(stack.sandbox)]) expect(state.text).not.toContain(secret);
    });

    it("a second preview shows no changes, and refresh finds no drift", async () => {
      printed.push(await stack.program.preview("--expect-no-changes"));
      const refresh = await stack.program.refresh();
      printed.push(refresh);
      expectNoChanges(refresh.changeSummary);
      printed.push(await stack.program.preview("--expect-no-changes"));
    });

    it("pulumi import takes the order back by id after it left the state, and buys nothing", async () => {
      const urn = (await stack.program.exportState()).resources.find((r) => r.type === ORDER_TYPE)?.urn ?? "";
      await stack.program.run(["state", "delete", urn, "--yes"]);
      expect((await stack.program.exportState()).resources.some((r) => r.type === ORDER_TYPE)).toBe(false);
      printed.push(await stack.program.run(["import", ORDER_TYPE, "order", orderId, "--yes", "--protect=false", "--generate-code=false"]));
      const imported = (await stack.program.exportState()).resources.find((r) => r.type === ORDER_TYPE);
      expect(imported).toMatchObject({ id: orderId, outputs: { orderId, status: "active" } });
      printed.push(await stack.program.preview("--expect-no-changes"));
      expect(stack.sandbox.createdOrders).toHaveLength(1);
    });

    it("destroy forgets the order (the purchase stays), and nothing secret was ever printed", async () => {
      const destroy = await stack.program.destroy();
      printed.push(destroy);
      expect(destroy.changeSummary).toEqual({ delete: 2 });
      expect(destroy.diagnostics?.some((d) => d.message.includes("the purchase stays active"))).toBe(true);
      expect(stack.sandbox.createdOrders).toHaveLength(1);
      for (const result of printed) {
        for (const secret of [stack.sandbox.apiKey, ...passwords(stack.sandbox)]) expect(result.stdout + result.stderr).not.toContain(secret);
      }
    });
  });
}

// The examples expect the plugin installed, as users install it: from the release archive (here, this tree's), a
// single executable, so these programs run with no Node.js on PATH.
lifecycle("a YAML program", "examples/plugin-yaml", installPluginWithoutNode);

lifecycle("a Python program", "examples/plugin-python", async (program) => {
  await installPlugin(program);
  const venv = pythonEnvironment();
  // For hosts that read `virtualenv: venv` from Pulumi.yaml, and, first on PATH, for the older host built here,
  // which receives no runtime options from the CLI (docs/contributing/pulumi-cli.md).
  symlinkSync(venv, join(program.dir, "venv"));
  program.env.PATH = pathWithoutNode(join(venv, "bin"));
});

describe("a TypeScript program with two explicit providers (examples/plugin-typescript): two accounts in one stack", () => {
  let primary: Sandbox;
  let backup: Sandbox;
  let program: PulumiProgram;

  beforeAll(async () => {
    primary = await startSandbox({ provisioningMs: 500 });
    backup = await startSandbox({ provisioningMs: 500, apiKey: "sk_sandbox_backup_account_key" });
    program = await PulumiProgram.create("examples/plugin-typescript");
    await installPlugin(program);
    await program.config("primaryBaseUrl", primary.url);
    await program.config("primaryApiKey", primary.apiKey, { secret: true });
    await program.config("backupBaseUrl", backup.url);
    await program.config("backupApiKey", backup.apiKey, { secret: true });
  }, 120_000);
  afterAll(async () => {
    program?.cleanup();
    await primary?.stop();
    await backup?.stop();
  });

  it("buys each order with its own provider's account, keeps both keys secret, and destroys cleanly", async () => {
    const up = await program.up();
    expect(up.changeSummary).toEqual({ create: 5 });
    expect(primary.createdOrders).toHaveLength(1);
    expect(backup.createdOrders).toHaveLength(1);
    const outputs = await program.outputs();
    expect(outputs.orderIds).toEqual([primary.createdOrders[0]?.id, backup.createdOrders[0]?.id]);
    expect(outputs.statuses).toEqual(["active", "active"]);
    expect(outputs.backupProxies).toHaveLength(5);
    const state = await program.exportState();
    for (const secret of [primary.apiKey, backup.apiKey]) expect(state.text).not.toContain(secret);
    await program.preview("--expect-no-changes");
    expectNoChanges((await program.refresh()).changeSummary);
    expect((await program.destroy()).changeSummary).toEqual({ delete: 5 });
    expect(primary.createdOrders).toHaveLength(1);
    expect(backup.createdOrders).toHaveLength(1);
  });
});

describe("customTimeouts reach the plugin (test/e2e/programs/plugin-timeouts)", () => {
  const stack = useStack("test/e2e/programs/plugin-timeouts", { sandbox: { provisioningMs: 600_000 } });

  it("ends the wait at customTimeouts.create, keeps the order, and the next up resumes it without buying again", async () => {
    const failed = await stack.program.up().catch((error: Error) => error);
    expect(failed).toBeInstanceOf(Error);
    expect(String(failed)).toMatch(/is recorded in the state/);
    expect(stack.sandbox.createdOrders).toHaveLength(1);
    const orderId = stack.sandbox.createdOrders[0]?.id;
    const kept = (await stack.program.exportState()).resources.find((r) => r.type === ORDER_TYPE);
    expect(kept).toMatchObject({ id: orderId, outputs: { status: expect.stringMatching(/pending|provisioning/) } });
    stack.sandbox.clock.advance(600_000);
    await stack.program.up();
    expect(await stack.program.outputs()).toMatchObject({ orderId, status: "active" });
    expect(stack.sandbox.createdOrders).toHaveLength(1);
    await stack.program.destroy();
  });
});

describe("Ctrl-C during a long wait (test/e2e/programs/plugin-cancel)", () => {
  const stack = useStack("test/e2e/programs/plugin-cancel", { sandbox: { provisioningMs: 600_000 }, prepare: installPlugin });

  it("ends the update soon, keeps the order in the state, and the next up resumes it without buying again", async () => {
    const { program, sandbox } = stack;
    const { code, printed } = await program.upInterrupted(() => sandbox.createdOrders.length > 0);
    // The wait had an hour to go, past the test's timeout: only the plugin's Cancel can end it.
    expect(code).not.toBe(0);
    expect(printed).toMatch(/was cancelled \(last state: (pending|provisioning)\)/);
    const orderId = sandbox.createdOrders[0]?.id;
    const kept = (await program.exportState()).resources.find((r) => r.type === ORDER_TYPE);
    expect(kept).toMatchObject({ id: orderId, outputs: { orderId, status: expect.stringMatching(/pending|provisioning/) } });

    sandbox.clock.advance(600_000);
    await program.up();
    expect(await program.outputs()).toMatchObject({ orderId, status: "active" });
    expect(sandbox.createdOrders).toHaveLength(1);
    await program.destroy();
  });
});
