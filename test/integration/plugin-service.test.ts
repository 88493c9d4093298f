/**
 * The provider plugin's gRPC service, called as the engine calls it (the stubs inside @pulumi/pulumi, real gRPC on
 * loopback) against the sandbox over real HTTP. The CLI's own use of it is in test/e2e/plugin-*.test.ts.
 */
import * as grpc from "@grpc/grpc-js";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as rpc from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { specialSecretSig, specialSigKey } from "@pulumi/pulumi/runtime/rpc";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../client/version";
import { purchaseKey } from "../../provider/state/idempotency";
import { UNKNOWN } from "../../provider/shared/pulumi-host";
import { startPluginServer, type PluginServer } from "../../plugin/server";
import { startSandbox, type Sandbox } from "../../sandbox";
import { sandboxClock, useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox({ provisioningMs: 5_000 });
const URN = "urn:pulumi:dev::shop::proxy:index:ProxyOrder::edge";
const SECRET = { [specialSigKey]: specialSecretSig };

let server: PluginServer;
let client: ResourceProviderClient;

beforeAll(async () => {
  server = await startPluginServer({
    testing: {
      env: {},
      clock: sandboxClock(() => sandbox.current),
    },
  });
  client = new ResourceProviderClient(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client.close();
  await server.close();
});

/** One unary call, as a promise (the stubs' methods are overloaded, so the response type is named at each call). */
function call<Res>(method: (req: never, cb: (e: grpc.ServiceError | null, r: Res) => void) => unknown, req: unknown): Promise<Res> {
  return new Promise((resolve, reject) =>
    (method as (req: unknown, cb: (e: grpc.ServiceError | null, r: Res) => void) => unknown).call(client, req, (error, response) =>
      error ? reject(error) : resolve(response),
    ),
  );
}

const struct = (value: Record<string, unknown>) => Struct.fromJavaScript(value as Parameters<typeof Struct.fromJavaScript>[0]);

async function configure(settings: Record<string, unknown> = { baseUrl: sandbox.current.url, apiKey: { ...SECRET, value: sandbox.current.apiKey } }) {
  await call<rpc.ConfigureResponse>(client.configure, new rpc.ConfigureRequest().setArgs(struct(settings)).setAcceptsecrets(true));
}

async function check(news: Record<string, unknown>, urn = URN) {
  const response = await call<rpc.CheckResponse>(client.check, new rpc.CheckRequest().setUrn(urn).setNews(struct(news)).setOlds(struct({})));
  return { inputs: response.getInputs()?.toJavaScript() ?? {}, failures: response.getFailuresList().map((f) => [f.getProperty(), f.getReason()]) };
}

async function create(inputs: Record<string, unknown>, timeoutSeconds = 0) {
  const response = await call<rpc.CreateResponse>(client.create, new rpc.CreateRequest().setUrn(URN).setProperties(struct(inputs)).setTimeout(timeoutSeconds));
  return { id: response.getId(), outs: response.getProperties()?.toJavaScript() ?? {} };
}

describe("the plugin service", () => {
  it("reports its version and the schema of proxy:index:ProxyOrder, ProxyFleet, getProxies, getProxyHealth and getUsage", async () => {
    expect((await call<PluginInfo>(client.getPluginInfo, new Empty())).getVersion()).toBe(VERSION);
    const schema = JSON.parse((await call<rpc.GetSchemaResponse>(client.getSchema, new rpc.GetSchemaRequest())).getSchema());
    expect(schema).toMatchObject({ name: "proxy", version: VERSION });
    expect(Object.keys(schema.resources)).toEqual(["proxy:index:ProxyOrder", "proxy:index:ProxyFleet"]);
    expect(Object.keys(schema.functions)).toEqual(["proxy:index:getProxies", "proxy:index:getProxyHealth", "proxy:index:getUsage"]);
    expect(schema.resources["proxy:index:ProxyOrder"].properties.credentials.secret).toBe(true);
    expect(schema.resources["proxy:index:ProxyFleet"].properties.credentials.secret).toBe(true);
    expect(schema.config.variables.apiKey.secret).toBe(true);
  });

  it("checks the provider's settings, names the fix, and keeps the key secret", async () => {
    const missing = await call<rpc.CheckResponse>(client.checkConfig, new rpc.CheckRequest().setUrn("urn:pulumi:dev::shop::pulumi:providers:proxy::default").setNews(struct({})));
    expect(missing.getFailuresList().map((f) => f.getReason())).toEqual([expect.stringMatching(/proxy:baseUrl.*PROXY_API_BASE_URL.*proxy:apiKey/s)]);
    const clear = await call<rpc.CheckResponse>(client.checkConfig, new rpc.CheckRequest().setNews(struct({ baseUrl: "http://api.example.com", apiKey: "k" })));
    expect(clear.getFailuresList().map((f) => f.getReason())).toEqual([expect.stringContaining("clear text")]);
    const misspelt = await call<rpc.CheckResponse>(client.checkConfig, new rpc.CheckRequest().setNews(struct({ baseURL: sandbox.current.url, apiKey: "k" })));
    expect(misspelt.getFailuresList().map((f) => f.getReason())).toEqual([expect.stringMatching(/`proxy:baseURL` is set, but it is not a setting of this provider: did you mean `proxy:baseUrl`\?/)]);
    const good = await call<rpc.CheckResponse>(client.checkConfig, new rpc.CheckRequest().setNews(struct({ baseUrl: sandbox.current.url, apiKey: "k" })));
    expect(good.getFailuresList()).toEqual([]);
    expect(good.getInputs()?.toJavaScript()).toEqual({ baseUrl: sandbox.current.url, apiKey: { ...SECRET, value: "k" } });
    const unknown = await call<rpc.CheckResponse>(client.checkConfig, new rpc.CheckRequest().setNews(struct({ baseUrl: UNKNOWN })));
    expect(unknown.getFailuresList()).toEqual([]);
    // An explicit provider's base URL is its argument, not the stack's config: the error says which.
    const explicit = await call<rpc.CheckResponse>(
      client.checkConfig,
      new rpc.CheckRequest().setUrn("urn:pulumi:dev::shop::pulumi:providers:proxy::eu").setNews(struct({ baseUrl: "http://api.example.com", apiKey: "k" })),
    );
    const reasons = explicit.getFailuresList().map((f) => f.getReason());
    expect(reasons).toEqual([expect.stringMatching(/^The baseUrl of provider "eu" "http:\/\/api.example.com" uses http/)]);
    expect(reasons[0]).not.toContain("proxy:baseUrl");
  });

  it("changes a provider in place when its key or URL changes, replacing nothing", async () => {
    const response = await call<rpc.DiffResponse>(client.diffConfig, new rpc.DiffRequest().setOlds(struct({ baseUrl: "https://a", apiKey: "1" })).setNews(struct({ baseUrl: "https://a", apiKey: "2" })));
    expect(response.getChanges()).toBe(rpc.DiffResponse.DiffChanges.DIFF_SOME);
    expect(response.getDiffsList()).toEqual(["apiKey"]);
    expect(response.getReplacesList()).toEqual([]);
  });

  it("derives the idempotency key from the URN, as the dynamic SDK does from the program, and names bad inputs", async () => {
    await configure();
    const { inputs, failures } = await check({ planId: "dc-us-5" });
    expect(failures).toEqual([]);
    expect(inputs).toEqual({
      planId: "dc-us-5",
      waitForReady: true,
      readyTimeout: "20m",
      idempotencyKey: purchaseKey({ project: "shop", stack: "dev", resourceName: "edge", planId: "dc-us-5" }),
    });
    expect((await check({ planId: UNKNOWN })).inputs.idempotencyKey).toBe(UNKNOWN);
    expect((await check({ planId: "", readyTimeout: "soon" })).failures.map(([property]) => property)).toEqual(["planId", "readyTimeout"]);
    await expect(check({ planId: "x" }, "urn:pulumi:dev::shop::proxy:index:Other::x")).rejects.toThrow(/no resource type "proxy:index:Other"/);
  });

  it("fails a resource's check without settings, but not while an explicit provider's settings are unknown (preview)", async () => {
    await configure({});
    const failures = (await check({ planId: "dc-us-5" })).failures;
    expect(failures).toEqual([["", expect.stringContaining("The proxy provider is not configured")]]);
    // The plugin's users may have no Node.js: the sandbox is their plugin's own command.
    expect(failures[0]?.[1]).toContain("`pulumi-resource-proxy sandbox`");
    expect(failures[0]?.[1]).not.toContain("npx");
    await configure({ baseUrl: UNKNOWN, apiKey: UNKNOWN });
    expect((await check({ planId: "dc-us-5" })).failures).toEqual([]);
  });

  it("buys once per key, waits for the order, and returns the credentials as a secret", async () => {
    await configure();
    const { inputs } = await check({ planId: "dc-us-5" });
    const first = await create(inputs);
    expect(first.outs).toMatchObject({ orderId: first.id, status: "active", planId: "dc-us-5" });
    expect(first.outs.credentials).toMatchObject({ ...SECRET, value: expect.arrayContaining([expect.objectContaining({ password: expect.any(String) })]) });
    expect(JSON.stringify(first.outs.proxies)).not.toContain("password");
    const again = await create(inputs);
    expect(again.id).toBe(first.id);
    expect(sandbox.current.state.orders.size).toBe(1);
  });

  it("keeps secret inputs secret in what it returns (checked inputs, outputs, a partial result)", async () => {
    await configure();
    const key = { ...SECRET, value: "my-own-key-1" };
    const checked = await call<rpc.CheckResponse>(client.check, new rpc.CheckRequest().setUrn(URN).setNews(struct({ planId: "dc-us-5", idempotencyKey: key })).setOlds(struct({})));
    expect(checked.getInputs()?.toJavaScript()).toMatchObject({ planId: "dc-us-5", idempotencyKey: key });
    const created = await call<rpc.CreateResponse>(client.create, new rpc.CreateRequest().setUrn(URN).setProperties(checked.getInputs()!));
    expect(created.getProperties()?.toJavaScript()).toMatchObject({ idempotencyKey: key, planId: "dc-us-5" });
    sandbox.current.reset();
    const slow = await call<rpc.CreateResponse>(client.create, new rpc.CreateRequest().setUrn(URN).setProperties(checked.getInputs()!).setTimeout(1)).catch((e: grpc.ServiceError) => e);
    const status = Status.deserializeBinary((slow as grpc.ServiceError).metadata.get("grpc-status-details-bin")[0] as Uint8Array);
    const detail = rpc.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0]!.getValue_asU8());
    expect(detail.getProperties()?.toJavaScript()).toMatchObject({ idempotencyKey: key, credentials: SECRET });
  });

  it("ends the wait at customTimeouts.create and records the order as a partial create", async () => {
    await configure();
    const { inputs } = await check({ planId: "dc-us-5", readyTimeout: "1h" });
    const error = (await create(inputs, 2).catch((e: unknown) => e)) as grpc.ServiceError;
    expect(error.details).toMatch(/is recorded in the state/);
    const status = Status.deserializeBinary(error.metadata.get("grpc-status-details-bin")[0] as Uint8Array);
    const detail = rpc.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0]!.getValue_asU8());
    const [orderId] = [...sandbox.current.state.orders.keys()];
    expect(detail.getId()).toBe(orderId);
    expect(detail.getProperties()?.toJavaScript()).toMatchObject({ orderId, status: expect.stringMatching(/pending|provisioning/) });
    expect(sandbox.current.clock.now() - (sandbox.current.state.orders.get(orderId!)?.createdAt ?? 0)).toBeLessThan(5_000);
  });

  it("imports an order by id with the inputs a program would declare, so nothing changes after", async () => {
    await configure();
    const bought = await create((await check({ planId: "dc-us-5" })).inputs);
    const response = await call<rpc.ReadResponse>(client.read, new rpc.ReadRequest().setId(bought.id).setUrn(URN).setProperties(struct({})).setInputs(struct({})));
    expect(response.getId()).toBe(bought.id);
    const imported = response.getInputs()?.toJavaScript() ?? {};
    expect(imported).toEqual((await check({ planId: "dc-us-5" })).inputs);
    expect(response.getProperties()?.toJavaScript()).toMatchObject({ orderId: bought.id, status: "active", credentials: SECRET });
    const diff = await call<rpc.DiffResponse>(client.diff, new rpc.DiffRequest().setId(bought.id).setUrn(URN).setOlds(response.getProperties()!).setNews(struct(imported)));
    expect(diff.getChanges()).toBe(rpc.DiffResponse.DiffChanges.DIFF_NONE);
    await expect(call<rpc.ReadResponse>(client.read, new rpc.ReadRequest().setId("ord_nope").setUrn(URN).setProperties(struct({})))).rejects.toThrow(/ord_nope does not exist/);
  });

  it("refreshes an order, and says a plan change replaces it", async () => {
    await configure();
    const bought = await create((await check({ planId: "dc-us-5" })).inputs);
    const response = await call<rpc.ReadResponse>(client.read, new rpc.ReadRequest().setId(bought.id).setUrn(URN).setProperties(struct(bought.outs)));
    expect(response.getProperties()?.toJavaScript()).toMatchObject({ orderId: bought.id, status: "active" });
    const { inputs } = await check({ planId: "dc-de-10" });
    const diff = await call<rpc.DiffResponse>(client.diff, new rpc.DiffRequest().setId(bought.id).setUrn(URN).setOlds(response.getProperties()!).setNews(struct(inputs)));
    expect(diff.getReplacesList()).toContain("planId");
    expect(diff.getDiffsList()).toContain("planId");
  });

  it("answers getProxies and getUsage as invokes, with credentials only when asked for and then secret", async () => {
    await configure();
    const bought = await create((await check({ planId: "dc-us-5" })).inputs);
    const invoke = (tok: string, args: Record<string, unknown>) => call<rpc.InvokeResponse>(client.invoke, new rpc.InvokeRequest().setTok(tok).setArgs(struct(args)));
    const plain = (await invoke("proxy:index:getProxies", { orderId: bought.id })).getReturn()?.toJavaScript() ?? {};
    expect((plain.proxies as unknown[]).length).toBe(5);
    expect(plain.credentials).toEqual([]);
    expect(JSON.stringify(plain)).not.toContain("password");
    const withCredentials = (await invoke("proxy:index:getProxies", { orderId: bought.id, includeCredentials: true })).getReturn()?.toJavaScript() ?? {};
    expect(withCredentials.credentials).toMatchObject({ ...SECRET, value: expect.arrayContaining([expect.objectContaining({ password: expect.any(String) })]) });
    const bad = await invoke("proxy:index:getProxies", { country: 7 });
    expect(bad.getFailuresList().map((f) => f.getProperty())).toEqual(["country"]);
    const usage = (await invoke("proxy:index:getUsage", {})).getReturn()?.toJavaScript() ?? {};
    expect(usage).toMatchObject({ bandwidth: { usedBytes: expect.any(Number) }, requests: { used: expect.any(Number) } });
    await expect(invoke("proxy:index:getNothing", {})).rejects.toThrow(/no function "proxy:index:getNothing"/);
  });
});

describe("Cancel (a graceful Ctrl-C)", () => {
  type Send = <Res>(name: "configure" | "create" | "cancel", req: unknown) => Promise<Res>;

  /** A plugin on a sandbox whose orders take ten minutes, configured; `run` gets its sender and the sandbox. */
  async function withSlowPlugin(run: (send: Send, slow: Sandbox) => Promise<void>): Promise<void> {
    const slow = await startSandbox({ provisioningMs: 600_000 });
    const plugin = await startPluginServer({ testing: { env: {} } });
    const rpcClient = new ResourceProviderClient(`127.0.0.1:${plugin.port}`, grpc.credentials.createInsecure());
    const send: Send = <Res>(name: "configure" | "create" | "cancel", req: unknown) =>
      new Promise<Res>((resolve, reject) =>
        (rpcClient[name] as unknown as (r: unknown, cb: (e: grpc.ServiceError | null, r: Res) => void) => void).call(rpcClient, req, (e, r) =>
          e ? reject(e) : resolve(r),
        ),
      );
    try {
      await send("configure", new rpc.ConfigureRequest().setArgs(struct({ baseUrl: slow.url, apiKey: slow.apiKey })).setAcceptsecrets(true));
      await run(send, slow);
    } finally {
      rpcClient.close();
      await plugin.close();
      await slow.stop();
    }
  }

  /** The partial result a failed create carries. */
  const partialOf = (error: grpc.ServiceError) => {
    const status = Status.deserializeBinary(error.metadata.get("grpc-status-details-bin")[0] as Uint8Array);
    return rpc.ErrorResourceInitFailed.deserializeBinary(status.getDetailsList()[0]!.getValue_asU8());
  };

  it("ends a wait in flight at once and records the order as a partial create; the purchase is not repeated", async () => {
    await withSlowPlugin(async (send, slow) => {
      const inputs = { planId: "dc-us-5", waitForReady: true, readyTimeout: "1h", idempotencyKey: "cancel-key" };
      const creating = send("create", new rpc.CreateRequest().setUrn(URN).setProperties(struct(inputs))).catch((e: unknown) => e);
      while (slow.createdOrders.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      await send("cancel", new Empty());
      // The wait had an hour to go (past the test's timeout): only the Cancel can end it.
      const error = (await creating) as grpc.ServiceError;
      expect(error.details).toMatch(/was cancelled \(last state: (pending|provisioning)\)[\s\S]*is recorded in the state/);
      expect(partialOf(error).getId()).toBe(slow.createdOrders[0]!.id);
      expect(slow.createdOrders).toHaveLength(1);
    });
  });

  it("ends a fleet's waits at once and records every member bought, as a partial create of the fleet", async () => {
    await withSlowPlugin(async (send, slow) => {
      const inputs = { planId: "dc-us-5", orders: 3, waitForReady: true, readyTimeout: "1h", idempotencyKey: "cancel-fleet" };
      const urn = "urn:pulumi:dev::shop::proxy:index:ProxyFleet::pool";
      const creating = send("create", new rpc.CreateRequest().setUrn(urn).setProperties(struct(inputs))).catch((e: unknown) => e);
      while (slow.createdOrders.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      await send("cancel", new Empty());
      const error = (await creating) as grpc.ServiceError;
      expect(error.details).toMatch(/^3 of the fleet's 3 order\(s\) are not ready: slot \d: Waiting for order ord_\w+ was cancelled/);
      const members = (partialOf(error).getProperties()?.toJavaScript().members ?? []) as Array<{ orderId: string; status: string }>;
      expect(members.map((m) => m.orderId).sort()).toEqual(slow.createdOrders.map((o) => o.id).sort());
      expect(slow.createdOrders).toHaveLength(3);
    });
  });
});
