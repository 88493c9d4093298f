import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RequestBudget } from "../../client/budget";
import { realClock } from "../../client/clock";
import { AuthenticationError } from "../../client/errors";
import { OrderAbsenceUnconfirmedError } from "../../provider/api/absence";
import { Accounts } from "../../provider/api/account";
import { keyAfterRemovedOrder, nextPurchaseKey } from "../../provider/state/idempotency";
import { createOrderProvider } from "../../provider/order/order-provider";
import type { ProviderSeams } from "../../provider/core/provider-core";
import { PartialOrderError, UNKNOWN } from "../../provider/shared/pulumi-host";
import { inputsOf, toOutputs, type OrderOutputs } from "../../provider/state/order-state";
import { PROXY_ORDER } from "../../provider/schema/definitions";
import { startSandbox, type Sandbox } from "../../sandbox";
import { PLANS } from "../../sandbox/catalogue";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { orderInputs } from "../helpers/inputs";
import { freePort } from "../helpers/ports";
import { startDeviantApi, type DeviantApi, type Deviation } from "../helpers/deviant-api";

const sandbox = useSandbox();

const accounts = accountsPerTest();

function provider(extra: ProviderSeams = {}, target: () => Sandbox = () => sandbox.current) {
  const lines: string[] = [];
  const p = createOrderProvider({
    log: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) },
    testing: {
      env: { PROXY_API_BASE_URL: target().url, PROXY_API_KEY: target().apiKey },
      clock: sandboxClock(target),
      accounts: accounts.current,
      ...extra,
    },
  });
  return { p, lines };
}

/** Runs `test` with a provider whose API is a deviant server (deviant-api.ts) in front of the sandbox, then stops it. */
async function throughDeviant(deviation: Deviation, test: (api: ReturnType<typeof provider> & { deviant: DeviantApi }) => Promise<void>): Promise<void> {
  const deviant = await startDeviantApi(sandbox.current, deviation);
  try {
    await test({ ...provider({}, () => ({ ...sandbox.current, url: deviant.url }) as Sandbox), deviant });
  } finally {
    await deviant.stop();
  }
}

const inputs = orderInputs;

describe("check", () => {
  it("applies the defaults and accepts valid inputs", async () => {
    const { p } = provider();
    const result = await p.check({}, { planId: "dc-us-5", idempotencyKey: "k" });
    expect(result.failures).toEqual([]);
    expect(result.inputs).toMatchObject({ planId: "dc-us-5", waitForReady: true, readyTimeout: "20m" });
  });

  it("names every bad property and what is allowed", async () => {
    const { p } = provider();
    const { failures } = await p.check({}, { planId: "", waitForReady: "yes", readyTimeout: "20 minutes", idempotencyKey: "has space" });
    expect(failures.map((f) => f.property)).toEqual(["planId", "waitForReady", "readyTimeout", "idempotencyKey"]);
    expect(failures[2]?.reason).toContain('"20m"');
    const tooLong = await p.check({}, { planId: "p".repeat(129), readyTimeout: "25h", idempotencyKey: "k" });
    expect(tooLong.failures.map((f) => f.property)).toEqual(["planId", "readyTimeout"]);
  });

  it("lets unknown values (preview) pass", async () => {
    const { p } = provider();
    const { failures } = await p.check({}, { planId: UNKNOWN, readyTimeout: UNKNOWN, idempotencyKey: UNKNOWN, waitForReady: UNKNOWN });
    expect(failures).toEqual([]);
  });

  it("fails a preview that could never run (no API key, a key sent in clear text) with one check failure", async () => {
    const missing = createOrderProvider({ testing: { env: {} } });
    const { failures } = await missing.check({}, { planId: "dc-us-5", idempotencyKey: "k" });
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/proxy:baseUrl.*PROXY_API_BASE_URL.*proxy:apiKey.*PROXY_API_KEY/s) }]);
    const clear = createOrderProvider({ testing: { env: { PROXY_API_BASE_URL: "http://api.example.com", PROXY_API_KEY: "k" } } });
    expect((await clear.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures).toEqual([
      { property: "", reason: expect.stringContaining("clear text") },
    ]);
    const share = createOrderProvider({ testing: { env: { PROXY_API_BASE_URL: "https://api.example.com", PROXY_API_KEY: "k", PROXY_API_MAX_RATE_SHARE: "150" } } });
    expect((await share.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures).toEqual([
      { property: "", reason: expect.stringMatching(/proxy:maxRateShare.*whole percent from 1 to 100.*got "150"/) },
    ]);
  });

  it("reads the config given to configure before the environment", async () => {
    // One attempt: api.example.com answers nothing here, and the check of the key only warns of it.
    const p = createOrderProvider({
      log: { info: () => undefined, warn: () => undefined },
      testing: { env: { PROXY_API_BASE_URL: "http://api.example.com", PROXY_API_KEY: "env" }, client: { maxAttempts: 1 } },
    });
    const config: Record<string, string> = { "proxy:baseUrl": "https://api.example.com", "proxy:apiKey": "cfg" };
    await p.configure({ config: { get: (k) => config[k] } });
    expect((await p.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures).toEqual([]);
  });
});

describe("a misspelt setting", () => {
  it("is named in the error of the setting it misses, and in one warning when nothing is missing", async () => {
    const url = sandbox.current.url;
    const configured = async (config: Record<string, string>) => {
      const lines: string[] = [];
      const p = createOrderProvider({ log: { info: () => undefined, warn: (m) => lines.push(m) }, testing: { env: {}, clock: sandboxClock(() => sandbox.current), accounts: accounts.current } });
      await p.configure({ config: { get: (k) => config[k], rawConfig: config } });
      return { failures: (await p.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures, lines };
    };
    const missing = await configured({ "proxy:baseURL": url, "proxy:apiKey": sandbox.current.apiKey });
    expect(missing.failures).toEqual([{ property: "", reason: expect.stringMatching(/not configured.*`proxy:baseURL` is set, but it is not a setting of this provider: did you mean `proxy:baseUrl`\?/s) }]);
    const extra = await configured({ "proxy:baseUrl": url, "proxy:apiKey": sandbox.current.apiKey, "proxy:maxRateshare": "50" });
    expect(extra.failures).toEqual([]);
    expect(extra.lines).toEqual([expect.stringContaining("`proxy:maxRateshare` is set, but it is not a setting of this provider: did you mean `proxy:maxRateShare`?")]);
  });

  it("is said by its first sentence alone where the program's process says it in full (the dynamic host)", async () => {
    const p = createOrderProvider({ settingsToldByProgram: true, log: { info: () => undefined, warn: () => undefined }, testing: { env: {}, accounts: accounts.current } });
    await p.configure({ config: { get: () => undefined, rawConfig: {} } });
    const { failures } = await p.check({}, { planId: "dc-us-5", idempotencyKey: "k" });
    expect(failures).toEqual([{ property: "", reason: "The proxy provider is not configured (the stack's error says what to set)." }]);
  });
});

describe("check of the key (preview and up alike)", () => {
  const seams = (env: Record<string, string>, extra: ProviderSeams = {}) => ({ env, clock: sandboxClock(() => sandbox.current), accounts: accounts.current, ...extra });

  it("fails on a key the API refuses, with the message up would give, after one read and nothing else", async () => {
    const lines: string[] = [];
    const wrong = createOrderProvider({
      log: { info: (m) => lines.push(m), warn: (m) => lines.push(m) },
      testing: seams({ PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: "sk_not_a_key" }),
    });
    const { failures } = await wrong.check({}, { planId: "dc-us-5", idempotencyKey: "k" });
    expect(failures).toEqual([{ property: "", reason: expect.stringMatching(/^GET \/v1\/usage failed with 401 unauthenticated.*Set a valid API key/s) }]);
    expect(failures[0]?.reason).not.toContain("sk_not_a_key");
    // A second resource of the same process: no second read.
    await wrong.check({}, { planId: "isp-gb-2", idempotencyKey: "k2" });
    expect(sandbox.current.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/usage"]);
    expect(lines).toEqual([]);
  });

  it("passes a key the API accepts, and an input failure is reported without a read", async () => {
    const { p } = provider();
    expect((await p.check({}, { planId: "", idempotencyKey: "k" })).failures.map((f) => f.property)).toEqual(["planId"]);
    expect(sandbox.current.requests).toEqual([]);
    expect((await p.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures).toEqual([]);
    expect(sandbox.current.requests.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/usage"]);
  });

  it("goes on with one warning when the API cannot be reached (a CI preview away from the API)", async () => {
    const lines: string[] = [];
    const away = createOrderProvider({
      log: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) },
      testing: seams({ PROXY_API_BASE_URL: `http://127.0.0.1:${await freePort()}`, PROXY_API_KEY: "k" }, { client: { maxAttempts: 1 } }),
    });
    expect((await away.check({}, { planId: "dc-us-5", idempotencyKey: "k" })).failures).toEqual([]);
    expect((await away.check({}, { planId: "isp-gb-2", idempotencyKey: "k2" })).failures).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/^warn proxy: the API key could not be checked, and this run goes on without it: GET \/v1\/usage got no response .*ECONNREFUSED/)]);
  });
});

describe("diff", () => {
  const olds = { ...inputs({ idempotencyKey: "k" }), orderId: "ord_diff", status: "active" } as unknown as OrderOutputs;
  // diff needs no configuration and makes no call.
  const p = createOrderProvider({ testing: { env: {} } });

  it("replaces on a new plan, updates in place otherwise, and is quiet when nothing changed", async () => {
    expect(await p.diff("id", olds, { ...olds, planId: "isp-gb-2" })).toMatchObject({ changes: true, replaces: ["planId"] });
    expect(await p.diff("id", olds, { ...olds, readyTimeout: "5m" })).toMatchObject({ changes: true, replaces: [] });
    expect(await p.diff("id", olds, { ...olds })).toMatchObject({ changes: false, replaces: [] });
  });

  it("says in the preview that a replacement buys a new order and the old one stays", async () => {
    const said: string[] = [];
    const quiet = createOrderProvider({ log: { info: () => {}, warn: (m) => said.push(m) }, testing: { env: {} } });
    await quiet.diff("ord_1", { ...olds, orderId: "ord_1" }, { ...olds, planId: "isp-gb-2" });
    expect(said).toEqual([expect.stringMatching(/replacing order ord_1 \(plan dc-us-5, active\) buys a new order for plan isp-gb-2\. ord_1 is not cancelled/)]);
    said.length = 0;
    expect(await quiet.diff("ord_1", { ...olds, orderId: "ord_1" }, { ...olds, adoptOrderId: "ord_2" })).toMatchObject({
      replaces: ["adoptOrderId"],
    });
    expect(await quiet.diff("ord_1", { ...olds, orderId: "ord_1" }, { ...olds, adoptOrderId: "ord_1" })).toMatchObject({
      changes: true,
      replaces: [],
    });
    expect(said).toEqual([]);
  });

  it("replaces a spent order and resumes waiting for one recorded before it was ready", async () => {
    const said: string[] = [];
    const quiet = createOrderProvider({ log: { info: () => {}, warn: (m) => said.push(m) }, testing: { env: {} } });
    for (const status of ["failed", "cancelled", "expired"]) {
      expect(await quiet.diff("id", { ...olds, status }, { ...olds })).toMatchObject({ changes: true, replaces: ["status"] });
      // A spent order is not said to stay billed: "is not cancelled" would be false of a cancelled one.
      expect(said.pop()).toBe(
        `proxy: replacing order ord_diff (plan dc-us-5, ${status}) buys a new order for plan dc-us-5. ord_diff has ended, so nothing of it stays active.`,
      );
    }
    expect(await p.diff("id", { ...olds, status: "provisioning" }, { ...olds })).toMatchObject({ changes: true, replaces: [] });
    expect(await p.diff("id", { ...olds, status: "provisioning" }, { ...olds, waitForReady: false })).toMatchObject({ changes: true });
    expect(await p.diff("id", { ...olds, status: "provisioning", waitForReady: false }, { ...olds, waitForReady: false })).toMatchObject({
      changes: false,
    });
  });
});

describe("create", () => {
  it("buys once, waits for the proxies, and keeps credentials apart", async () => {
    const { p, lines } = provider();
    const given = inputs();
    const { id, outs } = await p.create(given);
    expect(outs).toMatchObject({ orderId: id, status: "active", planId: "dc-us-5", purchaseKey: given.idempotencyKey });
    expect(outs.proxies).toHaveLength(5);
    expect(outs.proxies[0]).not.toHaveProperty("password");
    expect(outs.credentials[0]).toMatchObject({ ip: outs.proxies[0]?.ip, username: expect.any(String), password: expect.any(String) });
    expect(JSON.stringify(outs)).not.toContain(sandbox.current.apiKey);
    expect(lines.some((l) => l.includes(`order ${id} is pending`))).toBe(true);

    // The same inputs again (a re-run after a crash) get the same order back.
    const again = await p.create(given);
    expect(again.id).toBe(id);
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });

  it("warns, as soon as the order's lifetime is known, of a renewBefore as long as it (every renewal would be due at once)", async () => {
    const { p, lines } = provider();
    await p.create(inputs({ renewBefore: "31d" }));
    expect(lines.filter((l) => l.startsWith("warn"))).toEqual([expect.stringMatching(/not renewing order ord_\S+ \(plan dc-us-5\): renewBefore \(31d\) is at least its whole lifetime/)]);
    const quiet = provider();
    await quiet.p.create(inputs({ renewBefore: "3d", idempotencyKey: "other-key" }));
    expect(quiet.lines.filter((l) => l.startsWith("warn"))).toEqual([]);
  });

  it("returns at once without waiting when waitForReady is false", async () => {
    const { p } = provider();
    const { outs } = await p.create(inputs({ waitForReady: false }));
    expect(outs.status).toBe("pending");
    expect(outs.proxies).toEqual([]);
  });

  it("reports a failed order with its id and reason, and buys again on the next run with a derived key", async () => {
    const { p, lines } = provider();
    const given = inputs({ planId: "res-br-out-of-stock" });
    const first = await p.create(given).then(
      () => new Error("expected the purchase to fail"),
      (e: unknown) => e as Error,
    );
    expect(first).not.toBeInstanceOf(PartialOrderError);
    const firstId = sandbox.current.createdOrders[0]?.id ?? "";
    expect(first.message).toContain(firstId);
    expect(first.message).toContain('"failed"');
    expect(first.message).toContain("No residential proxies");
    expect(first.message).toContain("Run `pulumi up` again");

    await expect(p.create(given)).rejects.toThrow(/failed/);
    expect(sandbox.current.createdOrders).toEqual([
      { id: firstId, idempotencyKey: given.idempotencyKey },
      { id: expect.any(String), idempotencyKey: nextPurchaseKey(given.idempotencyKey, firstId) },
    ]);
    expect(lines.some((l) => l.startsWith("warn") && l.includes(firstId))).toBe(true);
  });

  it("never buys again an order this very call bought and lost the answer to, even when it failed fast", async () => {
    const { p, lines } = provider();
    // The POST commits, its connection is reset, the retry is rate limited, and the next retry replays the order,
    // which by then has failed: the replay is this call's own purchase, not an earlier run's.
    sandbox.current.faults.failNewOrders = 1;
    sandbox.current.faults.resetAfterCommit = 1;
    sandbox.current.faults.failNext({ count: 1, status: 429, method: "POST", pathPrefix: "/v1/orders", retryAfterSeconds: 1 });
    const error = (await p.create(inputs()).catch((e: unknown) => e)) as Error;
    const made = sandbox.current.createdOrders;
    expect(made).toHaveLength(1);
    expect(error.message).toContain(`Order ${made[0]?.id}`);
    expect(error.message).toContain('ended "failed"');
    expect(lines.some((l) => l.includes("buying again"))).toBe(false);
  });

  it("adopts an existing order instead of buying, checking its plan", async () => {
    const { p, lines } = provider();
    const bought = await p.create(inputs({ planId: "isp-gb-2", waitForReady: false }));
    const adopted = await p.create(inputs({ planId: "isp-gb-2", adoptOrderId: bought.id }));
    expect(adopted).toMatchObject({ id: bought.id, outs: { status: "active", adoptOrderId: bought.id, purchaseKey: null } });
    expect(adopted.outs.proxies).toHaveLength(2);
    expect(sandbox.current.createdOrders).toHaveLength(1);
    expect(lines.some((l) => l.includes(`adopting order ${bought.id}`))).toBe(true);

    await expect(p.create(inputs({ planId: "dc-us-5", adoptOrderId: bought.id }))).rejects.toThrow(
      /adoptOrderId: order \S+ is for plan "isp-gb-2", but planId is "dc-us-5"/,
    );
    await expect(p.create(inputs({ adoptOrderId: "ord_nope" }))).rejects.toThrow(/adoptOrderId: order ord_nope does not exist/);
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });

  it("keeps the order in the state (a partial create) when contact is lost while waiting", async () => {
    const { p } = provider({ client: { maxAttempts: 2, initialRetryDelayMs: 5, maxRetryDelayMs: 5 } });
    sandbox.current.faults.failNext({ count: 10, status: 500, method: "GET", pathPrefix: "/v1/orders/" });
    const given = inputs();
    const error = (await p.create(given).catch((e: unknown) => e)) as PartialOrderError;
    expect(error).toBeInstanceOf(PartialOrderError);
    const made = sandbox.current.createdOrders[0]?.id;
    expect(error.id).toBe(made);
    expect(error.properties).toMatchObject({ orderId: made, status: "pending", __provider: given.__provider });
    expect(error.message).toContain("run `pulumi up` again to resume waiting");
    expect(JSON.stringify(error.properties)).not.toContain(sandbox.current.apiKey);
  });
});

describe("an API that sends no estimated_ready_at", () => {
  let quiet: Sandbox;
  beforeAll(async () => {
    quiet = await startSandbox({ provisioningMs: 20_000, pollingHints: false });
  });
  afterAll(() => quiet.stop());

  /** The reads of `id` the sandbox received. */
  const readsOf = (id: string) => quiet.requests.filter((r) => r.method === "GET" && r.path === `/v1/orders/${id}`).length;

  it("reads a later order of the plan once, when the first one took to be ready; another plan is not guessed", async () => {
    const { p } = provider({}, () => quiet);
    const first = await p.create(inputs());
    expect(readsOf(first.id)).toBeGreaterThan(10);
    const second = await p.create(inputs());
    expect([second.outs.status, readsOf(second.id)]).toEqual(["active", 1]);
    const otherPlan = await p.create(inputs({ planId: "dc-de-25" }));
    expect(readsOf(otherPlan.id)).toBeGreaterThan(10);
  });
});

describe("a slow order: timeout, then the next run resumes", () => {
  let slow: Sandbox;
  beforeAll(async () => {
    slow = await startSandbox({ provisioningMs: 2500 });
  });
  afterAll(() => slow.stop());

  it("records the order on timeout and finishes the wait in update without buying again", async () => {
    const { p, lines } = provider({}, () => slow);
    const given = inputs({ readyTimeout: "1s" });
    const error = (await p.create(given).catch((e: unknown) => e)) as PartialOrderError;
    expect(error).toBeInstanceOf(PartialOrderError);
    expect(error.message).toMatch(/was not ready after \d+s \(last state: (pending|provisioning)\)/);
    const olds = error.properties as unknown as OrderOutputs;
    expect(await p.diff(error.id, olds, { ...given, readyTimeout: "20m" })).toMatchObject({ changes: true, replaces: [] });

    const { outs } = await p.update(error.id, olds, { ...given, readyTimeout: "20m" });
    expect(outs).toMatchObject({ orderId: error.id, status: "active" });
    expect(outs.proxies).toHaveLength(5);
    expect(slow.createdOrders).toHaveLength(1);
    expect(lines.some((l) => l.includes("resuming the wait"))).toBe(true);
  });
});

describe("read (refresh)", () => {
  it("tells the truth: the current status, and the inputs for a diff without phantom changes", async () => {
    const { p } = provider();
    const { id, outs } = await p.create(inputs({ planId: "isp-gb-2" }));
    const fresh = await p.read(id, outs);
    expect(fresh).toMatchObject({ id, props: { status: "active", orderId: id } });
    expect(fresh.inputs).toEqual({ planId: "isp-gb-2", waitForReady: true, readyTimeout: "20m", idempotencyKey: outs.idempotencyKey });

    sandbox.current.cancelOrder(id);
    const cancelled = await p.read(id, outs);
    expect(cancelled.props).toMatchObject({ status: "cancelled", statusReason: { code: "cancelled_by_operator", message: expect.any(String) }, proxies: [] });
  });

  it("drops the order from the state only when its 404 holds and the API answers otherwise", async () => {
    const { p, lines } = provider();
    const { id, outs } = await p.create(inputs({ waitForReady: false }));
    sandbox.current.removeOrder(id);
    expect(await p.read(id, outs)).toEqual({});
    const reads = sandbox.current.requests.filter((r) => r.path === `/v1/orders/${id}`);
    expect(reads.length).toBe(6);
    expect(sandbox.current.requests.some((r) => r.path === "/v1/usage")).toBe(true);
    expect(lines.some((l) => l.includes(`order ${id} no longer exists`))).toBe(true);
  });

  it("keeps an order whose reads answer 404 right after the purchase (the read-after-write burst)", async () => {
    const { p } = provider();
    sandbox.current.faults.notFoundReadsForNewOrders = 4;
    const { id, outs } = await p.create(inputs({ waitForReady: false }));
    expect(await p.read(id, outs)).toMatchObject({ id, props: { orderId: id } });
  });

  it("keeps every order when the base URL is wrong and everything answers 404", async () => {
    const { p } = provider();
    // As an earlier release recorded it (no API in the state), so that the 404s are asked and weighed.
    const { id, outs: recorded } = await p.create(inputs({ waitForReady: false }));
    const { apiBaseUrl: _api, apiKeyFingerprint: _key, ...outs } = recorded;
    const wrong = createOrderProvider({
      testing: {
        env: { PROXY_API_BASE_URL: `${sandbox.current.url}/api`, PROXY_API_KEY: sandbox.current.apiKey },
        clock: sandboxClock(() => sandbox.current),
      },
    });
    const error = await wrong.read(id, outs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderAbsenceUnconfirmedError);
    expect((error as Error).message).toMatch(/GET \/v1\/usage on the same base URL failed too.*stays in the state.*without \/v1/s);
    expect((error as Error).message).not.toMatch(/\.\./);
  });

  it("fails, leaving the state alone, when the key no longer works", async () => {
    const { p } = provider();
    const { id, outs } = await p.create(inputs({ waitForReady: false }));
    const rotated = createOrderProvider({ testing: { env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: "sk_revoked_key" } } });
    const error = await rotated.read(id, outs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).not.toContain("sk_revoked_key");
    expect((error as Error).message).toMatch(/configuration stored in the state.*`pulumi refresh --run-program`/s);
    expect((error as Error).cause).toBeInstanceOf(AuthenticationError);
  });
});

describe("refresh from the list", () => {
  /** A provider with accounts of its own, as a new provider process would have (and so a listing of its own). */
  const fresh = () => provider({ accounts: new Accounts() });

  it("reads ProxyOrders refreshed together with one page of the list, and only the order that changed", async () => {
    const { p } = provider();
    const made = await Promise.all(Array.from({ length: 5 }, () => p.create(inputs())));
    let before = sandbox.current.requests.length;
    const refresher = fresh().p;
    const refreshed = await Promise.all(made.map(({ id, outs }) => refresher.read(id, outs)));
    const api = () => sandbox.current.requests.slice(before).filter((r) => r.path.startsWith("/v1/")).map((r) => `${r.method} ${r.path}`);
    expect(api()).toEqual(["GET /v1/proxies"]);
    expect(refreshed.map((r) => r.props)).toEqual(made.map((m) => m.outs));

    sandbox.current.cancelOrder(made[2]!.id);
    before = sandbox.current.requests.length;
    const again = fresh().p;
    const second = await Promise.all(made.map(({ id, outs }) => again.read(id, outs)));
    expect(api()).toEqual(["GET /v1/proxies", `GET /v1/orders/${made[2]!.id}`]);
    expect(second.map((r) => (r.props as OrderOutputs).status)).toEqual(["active", "active", "cancelled", "active", "active"]);
  });

  it("costs two pages in a shared account, whatever other stacks own there (the list is asked for the stack's orders)", async () => {
    const { p } = provider();
    // Another stack's 300 orders (1,500 proxies, more than a page) in the same account, bought first.
    const plan = PLANS["dc-us-5"]!;
    for (let i = 0; i < 300; i++) sandbox.current.state.createOrder(plan, sandbox.current.clock.now(), { provisioningMs: 0 }, { hiddenReads: 0, fails: false });
    const made = await Promise.all(Array.from({ length: 5 }, () => p.create(inputs())));
    sandbox.current.clock.advance(60_000);
    const before = sandbox.current.requests.length;
    const refresher = fresh().p;
    await Promise.all(made.map(({ id, outs }) => refresher.read(id, outs)));
    const asked = sandbox.current.requests.slice(before).filter((r) => r.path.startsWith("/v1/"));
    // The account's first page (more follow), then the stack's orders by id: no read of an order.
    expect(asked.map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/proxies", "GET /v1/proxies"]);
    expect(asked[1]?.query.order_id?.split(",").sort()).toEqual(made.map((m) => m.id).sort());
  });

  it("reads a ProxyOrder refreshed alone by id: one request, as before", async () => {
    const { p } = provider();
    const { id, outs } = await p.create(inputs());
    const before = sandbox.current.requests.length;
    await fresh().p.read(id, outs);
    expect(sandbox.current.requests.slice(before).map((r) => r.path)).toEqual([`/v1/orders/${id}`]);
  });
});

describe("an order the operator removed (the key's replay answers 404)", () => {
  it("is dropped by refresh, then bought again exactly once with a key derived from the spent one", async () => {
    const { p, lines } = provider();
    const given = inputs({ waitForReady: false });
    const { id, outs } = await p.create(given);
    sandbox.current.removeOrder(id);
    expect(await p.read(id, outs)).toEqual({});

    const again = await p.create(given);
    expect(again.id).not.toBe(id);
    expect(again.outs.purchaseKey).toBe(keyAfterRemovedOrder(given.idempotencyKey));
    // A retried or killed `up` meets the same keys again: the replay of the successor, nothing more.
    const retried = await p.create(given);
    expect(retried.id).toBe(again.id);
    expect(sandbox.current.createdOrders.map((o) => o.idempotencyKey)).toEqual([given.idempotencyKey, keyAfterRemovedOrder(given.idempotencyKey)]);
    expect(lines.filter((l) => l.includes("no longer exists (the API answered its replay with 404")).length).toBe(2);
  });

  it("buys nothing when the purchase's 404 does not come from the API (wrong base URL), and names the setting", async () => {
    const wrong = createOrderProvider({
      testing: {
        env: { PROXY_API_BASE_URL: `${sandbox.current.url}/api`, PROXY_API_KEY: sandbox.current.apiKey },
        clock: sandboxClock(() => sandbox.current),
      },
    });
    const error = await wrong.create(inputs()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderAbsenceUnconfirmedError);
    expect((error as Error).message).toMatch(/POST \/v1\/orders answered 404.*proxy:baseUrl.*nothing was bought/s);
    expect(sandbox.current.createdOrders).toEqual([]);
  });
});

describe("update and delete", () => {
  it("records new inputs without an API call", async () => {
    const { p } = provider();
    const { id, outs } = await p.create(inputs());
    sandbox.current.requests.length = 0;
    const { outs: updated } = await p.update(id, outs, { ...inputs({ idempotencyKey: outs.idempotencyKey }), readyTimeout: "5m" });
    expect(updated).toMatchObject({ orderId: id, readyTimeout: "5m", status: "active" });
    expect(sandbox.current.requests).toEqual([]);
  });

  it("records after each in-place update the outputs a create computes from the new inputs and the order (every input that updates in place)", async () => {
    // A changed value for every input that updates in place; the definitions say which replace.
    const changed: Record<string, unknown> = {
      waitForReady: false,
      readyTimeout: "45m",
      renewBefore: "3d",
      healthCheck: { target: "http://127.0.0.1:9/", minHealthy: "0" },
    };
    const inPlace = Object.entries(PROXY_ORDER.inputs).filter(([, spec]) => !("replaces" in spec && spec.replaces)).map(([name]) => name);
    // The purchase key and the adopted order are not changed in place here: one replaces, the other adopts.
    expect(inPlace.filter((name) => !(name in changed)).sort()).toEqual(["adoptOrderId", "idempotencyKey"]);
    const { p } = provider();
    const { id, outs } = await p.create(inputs());
    for (const [name, value] of Object.entries(changed)) {
      const news = { ...inputs({ idempotencyKey: outs.idempotencyKey }), [name]: value };
      expect((await p.diff(id, outs, news)).replaces, name).toEqual([]);
      const updated = (await p.update(id, outs, news)).outs;
      const { order } = await sandbox.client().getOrder(id);
      const created = toOutputs(news, order, outs.purchaseKey ?? null, { apiBaseUrl: outs.apiBaseUrl, apiKeyFingerprint: outs.apiKeyFingerprint });
      expect({ ...updated, health: null }, name).toEqual({ ...created, ...inputsOf(news) });
    }
  });

  it("only stops tracking, says so in one warning, and calls nothing", async () => {
    const { p, lines } = provider();
    const { id, outs } = await p.create(inputs({ waitForReady: false }));
    sandbox.current.requests.length = 0;
    await p.delete(id, outs);
    expect(sandbox.current.requests).toEqual([]);
    expect(lines.filter((l) => l.startsWith("warn"))).toEqual([expect.stringContaining("purchase stays active")]);
  });
});

describe("a fleet under the API's rate limit", () => {
  it("buys every order once, purchases before polls, with one summary line instead of a line per 429", async () => {
    const limited = await startSandbox({ rateLimit: { requestsPerSecond: 8, burst: 4 }, provisioningMs: 300 });
    try {
      const { p, lines } = provider({
        client: { budget: new RequestBudget({ summaryEveryMs: 500 }) },
        clock: realClock,
      }, () => limited);
      const orders = await Promise.all(Array.from({ length: 16 }, (_, i) => p.create(inputs({ idempotencyKey: `fleet-${i}` }))));
      expect(orders.map((o) => o.outs.status)).toEqual(Array(16).fill("active"));
      expect(limited.createdOrders).toHaveLength(16);
      const calls = limited.requests.filter((r) => r.path.startsWith("/v1/"));
      const lastPost = calls.map((r) => r.method).lastIndexOf("POST");
      const firstPoll = calls.findIndex((r) => r.method === "GET");
      expect(lastPost).toBeLessThan(firstPoll);
      expect(lines.some((l) => /the API's rate limit is holding \d+ request\(s\) back .*order\(s\) bought so far/.test(l))).toBe(true);
      expect(lines.filter((l) => l.includes("(429)"))).toEqual([]);
    } finally {
      await limited.stop();
    }
  }, 60_000);

  it("without RateLimit hints, learns the limit from 429s: every order bought once, none failed", async () => {
    const limited = await startSandbox({ rateLimit: { requestsPerSecond: 8, burst: 4 }, rateLimitHints: false, provisioningMs: 300 });
    try {
      const { p } = provider({ clock: realClock }, () => limited);
      const orders = await Promise.all(Array.from({ length: 16 }, (_, i) => p.create(inputs({ idempotencyKey: `blind-${i}` }))));
      expect(orders.map((o) => o.outs.status)).toEqual(Array(16).fill("active"));
      expect(limited.createdOrders).toHaveLength(16);
      expect(limited.requests.some((r) => r.status === 429)).toBe(true);
    } finally {
      await limited.stop();
    }
  }, 60_000);

  it("cores of one process share the summary: one line per interval for the key, counting every core's purchases", async () => {
    const limited = await startSandbox({ rateLimit: { requestsPerSecond: 8, burst: 4 }, provisioningMs: 300 });
    try {
      // As the plugin makes them: one core per operation, on one process-wide budget for the key.
      const budget = new RequestBudget({ summaryEveryMs: 500 });
      const cores = Array.from({ length: 16 }, () => provider({ client: { budget }, clock: realClock }, () => limited));
      await Promise.all(cores.map(({ p }, i) => p.create(inputs({ idempotencyKey: `core-${i}` }))));
      const summaries = cores.map(({ lines }) => lines.filter((l) => l.includes("the API's rate limit is holding")));
      expect(summaries.filter((lines) => lines.length > 0)).toHaveLength(1);
      const bought = summaries.flat().map((l) => Number(/(\d+) order\(s\) bought so far/.exec(l)?.[1]));
      expect(Math.max(...bought)).toBeGreaterThan(1);
    } finally {
      await limited.stop();
    }
  }, 60_000);
});

describe("a failure once the order exists", () => {
  it("records the order all the same (a partial create), and the next create carries on with it, buying nothing", async () => {
    // A step after the purchase that throws: the log failing as the health check reports (the engine gone, say).
    const failing = createOrderProvider({
      log: {
        info: (m) => {
          if (m.includes("answered through themselves")) throw new Error("the engine's log is gone");
        },
        warn: (m) => {
          if (m.includes("answered through themselves")) throw new Error("the engine's log is gone");
        },
      },
      testing: { env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey }, clock: sandboxClock(() => sandbox.current), accounts: accounts.current },
    });
    const given = { ...inputs(), healthCheck: { target: "http://127.0.0.1:9/", timeout: "1s", minHealthy: "0" } };
    const error = await failing.create(given).then(
      () => new Error("expected the create to fail"),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(PartialOrderError);
    const partial = error as PartialOrderError;
    const [bought] = sandbox.current.createdOrders;
    expect(partial.id).toBe(bought?.id);
    expect(partial.message).toMatch(/Order ord_\S+ \(plan dc-us-5\) exists, but finishing this step failed: the engine's log is gone\. It is recorded in the state/);
    expect(partial.properties).toMatchObject({ orderId: bought?.id, status: "active", __provider: given.__provider });
    expect(partial.properties.proxies).toHaveLength(5);
    const { p } = provider();
    expect((await p.create(given)).id).toBe(bought?.id);
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });

  it.each([
    ["whose order ids are integers, recording them as strings", "integer-ids", "1001"],
    ["that wraps each order in a data envelope", "data-envelope", undefined],
    ["that writes the contract's states in upper case, recording them as the contract's", "upper-case-states", undefined],
    ["whose orders carry no proxies (the list shows them), recording the listed ones", "order-without-proxies", undefined],
    ["whose orders name no plan, recording the plan bought", "order-without-plan-id", undefined],
    ["whose field names are camelCase, reading them as the contract's", "camel-case", undefined],
    ["that compresses every answer with gzip, asked or not", "gzip-always", undefined],
  ] as const)("buys, waits and reads back through an API %s", async (_name, deviation, id) => {
    await throughDeviant(deviation, async ({ p }) => {
      const given = inputs();
      const created = await p.create(given);
      expect(created.id).toBe(id ?? sandbox.current.createdOrders[0]?.id);
      expect(created.outs).toMatchObject({ orderId: created.id, planId: given.planId, status: "active" });
      expect((created.outs as OrderOutputs).proxies.length).toBeGreaterThan(0);
      const read = await p.read(created.id, created.outs as OrderOutputs);
      expect(read.props).toMatchObject({ orderId: created.id, status: "active" });
      expect((await p.diff(created.id, read.props as OrderOutputs, given)).changes).toBe(false);
      expect(sandbox.current.createdOrders).toHaveLength(1);
    });
  });

  it("adopts an order whose record names no plan as of the plan the program names, and refuses to import it, naming adoptOrderId", async () => {
    await throughDeviant("order-without-plan-id", async ({ p }) => {
      const bought = await p.create(inputs({ planId: "isp-gb-2" }));
      expect(bought.outs).toMatchObject({ planId: "isp-gb-2", status: "active" });
      const adopted = await p.create(inputs({ planId: "isp-gb-2", adoptOrderId: bought.id }));
      expect(adopted.outs).toMatchObject({ planId: "isp-gb-2", status: "active", adoptOrderId: bought.id });
      await expect(p.importOrder(bought.id, { project: "proj", stack: "dev", resourceName: "edge" })).rejects.toThrow(
        new RegExp(`order\\(s\\) ${bought.id} names no plan_id, .*planId and adoptOrderId: "${bought.id}" instead`),
      );
      expect(sandbox.current.createdOrders).toHaveLength(1);
    });
  });

  it("reads and waits for the order a purchase's Location names when its answer has no body, buying once", async () => {
    await throughDeviant("location-only-purchase", async ({ p, lines }) => {
      const created = await p.create(inputs());
      const [bought] = sandbox.current.createdOrders;
      expect(created.id).toBe(bought?.id);
      expect(created.outs).toMatchObject({ orderId: bought?.id, status: "active" });
      expect((created.outs as OrderOutputs).proxies).toHaveLength(5);
      expect(lines).toContain(`info proxy: the purchase's answer names order ${bought?.id} but could not be read; reading the order itself`);
      expect(sandbox.current.createdOrders).toHaveLength(1);
      // Not waited for: one read stands for the answer, and the create records the order as that read found it.
      const unwaited = await p.create(inputs({ waitForReady: false, idempotencyKey: "unwaited" }));
      expect(unwaited.outs).toMatchObject({ orderId: sandbox.current.createdOrders[1]?.id, status: "pending" });
      expect(sandbox.current.createdOrders).toHaveLength(2);
    });
  });

  it("records the order an unreadable purchase names when its reads fail too, and the next up (an update) carries on with it", async () => {
    await throughDeviant("unreadable-orders", async ({ p, deviant }) => {
      const given = inputs();
      const error = (await p.create(given).catch((e: unknown) => e)) as PartialOrderError;
      expect(error).toBeInstanceOf(PartialOrderError);
      const [bought] = sandbox.current.createdOrders;
      expect(error.id).toBe(bought?.id);
      expect(error.message).toContain(`Its answer names order ${bought?.id}: the order was made`);
      expect(error.message).toContain("Reading it afterwards failed too");
      expect(error.properties).toMatchObject({ orderId: bought?.id, status: "pending", __provider: given.__provider });
      deviant.heal();
      const next = await p.update(error.id, error.properties as OrderOutputs, given);
      expect(next.outs).toMatchObject({ orderId: bought?.id, status: "active" });
      expect(sandbox.current.createdOrders).toHaveLength(1);
    });
  });
});
