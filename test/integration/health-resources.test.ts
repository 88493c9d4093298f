/**
 * `healthCheck` on ProxyOrder and ProxyFleet, `replaceUnhealthy` and getProxyHealth, through the provider cores
 * against a sandbox that serves its proxies: what is recorded, what fails and what is kept, what is bought.
 */
import { describe, expect, it } from "vitest";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import type { FleetInputs, FleetOutputs } from "../../provider/state/fleet-state";
import { checkGetProxyHealthArgs, checkProxyHealth } from "../../provider/functions";
import { createOrderProvider } from "../../provider/order/order-provider";
import type { OrderInputs, OrderOutputs } from "../../provider/state/order-state";
import { PartialOrderError } from "../../provider/shared/pulumi-host";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { fleetInputs, orderInputs } from "../helpers/inputs";

const sandbox = useSandbox({ serveProxies: true });
const accounts = accountsPerTest();

function seams() {
  return {
    env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey },
    clock: sandboxClock(() => sandbox.current),
    accounts: accounts.current,
  };
}

function providers() {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(`info ${m}`), warn: (m: string) => lines.push(`warn ${m}`) };
  return { order: createOrderProvider({ log, testing: seams() }), fleet: createFleetProvider({ log, testing: seams() }), lines };
}

const echo = () => sandbox.current.proxies?.echoUrl ?? "";

/** Makes these proxies (by id) dead in the sandbox. */
async function kill(ids: Array<string | undefined>): Promise<void> {
  for (const id of ids) await sandbox.current.proxies?.setCondition(id ?? "", "dead");
}

/** The error a call throws. */
async function failure(call: Promise<unknown>): Promise<PartialOrderError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PartialOrderError);
  return error as PartialOrderError;
}

function expectNoCredentials(text: string, outs: { credentials: Array<{ password?: string; username?: string }> }) {
  for (const c of outs.credentials) {
    expect(text).not.toContain(c.password);
    expect(text).not.toContain(c.username);
  }
}

describe("a ProxyOrder with healthCheck", () => {
  it("records each proxy's check after create, and none without healthCheck", async () => {
    const { order, lines } = providers();
    const { outs } = await order.create(orderInputs({ healthCheck: { target: echo(), minHealthy: "100%" } }));
    expect(outs.health).toMatchObject({ target: echo(), healthy: 5, total: 5 });
    expect(outs.health?.results.map((r) => [r.ip, r.port, r.orderId, r.healthy, r.exitIp])).toEqual(
      outs.proxies.map((p) => [p.ip, p.port, outs.orderId, true, "127.0.0.1"]),
    );
    expect(lines.join("\n")).toContain(`5 of 5 proxies of order ${outs.orderId} (plan dc-us-5) answered through themselves`);
    expectNoCredentials(JSON.stringify(outs.health) + lines.join("\n"), outs);
    const plain = await order.create(orderInputs());
    expect(plain.outs.health).toBeNull();
  });

  it("below minHealthy fails naming the dead proxy, keeps the order, and buys nothing when the next up checks again", async () => {
    const { order } = providers();
    const inputs = orderInputs({ healthCheck: { target: echo(), timeout: "5s", minHealthy: "5" } });
    const { id, outs } = await order.create(orderInputs({ idempotencyKey: inputs.idempotencyKey }));
    const dead = outs.proxies[2];
    await kill([dead?.id]);
    const diff = await order.diff(id, outs, inputs);
    expect(diff).toMatchObject({ changes: true, replaces: [] });
    const error = await failure(order.update(id, outs, inputs));
    expect(error.message).toContain(`4 of 5 proxies of order ${id} (plan dc-us-5) answered`);
    expect(error.message).toContain(`${dead?.ip}:${dead?.port} (order ${id}): refused`);
    expect(error.message).toMatch(/healthCheck\.minHealthy asks for 5\. .*Every order is kept in the state/);
    expect(error.id).toBe(id);
    const kept = error.properties as unknown as OrderOutputs;
    expect(kept).toMatchObject({ orderId: id, status: "active", health: { healthy: 4, total: 5 } });
    expectNoCredentials(error.message + JSON.stringify(kept.health), outs);
    // The next up: the diff asks for another check, which passes once the proxy answers again; nothing is bought.
    expect((await order.diff(id, kept, inputs)).diffs).toContain("health");
    await sandbox.current.proxies?.setCondition(dead?.id ?? "", "ok");
    const bought = sandbox.current.createdOrders.length;
    const { outs: after } = await order.update(id, kept, inputs);
    expect(after.health).toMatchObject({ healthy: 5, total: 5 });
    expect(sandbox.current.createdOrders).toHaveLength(bought);
    expect((await order.diff(id, after, inputs)).changes).toBe(false);
  });

  it("the engine's cancel stops a check under way: a partial that keeps the order, unchecked, so the next update checks again", async () => {
    const { order } = providers();
    // Slow proxies answer 3 s late, well within the check's timeout: only the cancel can fail them.
    const inputs = orderInputs({ healthCheck: { target: echo(), timeout: "60s", minHealthy: "100%" } });
    const { id, outs } = await order.create(orderInputs({ idempotencyKey: inputs.idempotencyKey }));
    for (const p of outs.proxies) await sandbox.current.proxies?.setCondition(p.id ?? "", "slow");
    const cancel = new AbortController();
    const update = order.update(id, outs, inputs, { signal: cancel.signal });
    setTimeout(() => cancel.abort(), 200);
    const error = await failure(update);
    expect(error.id).toBe(id);
    const kept = error.properties as unknown as OrderOutputs;
    expect(kept).toMatchObject({ orderId: id, status: "active", health: null });
    expect(error.message).toMatch(/was cancelled \(Ctrl-C\) after 0 of 5 answered.*Every order is kept in the state.*checks them again/s);
    for (const p of outs.proxies) await sandbox.current.proxies?.setCondition(p.id ?? "", "ok");
    expect((await order.diff(id, kept, inputs)).changes).toBe(true);
    const { outs: checked } = await order.update(id, kept, inputs);
    expect(checked.health).toMatchObject({ healthy: 5, total: 5 });
  });

  it("a check counts within the operation's deadline: out of time, each proxy not yet answered fails as a timeout", async () => {
    const { order } = providers();
    const inputs = orderInputs({ healthCheck: { target: echo(), timeout: "60s", minHealthy: "1" } });
    const { id, outs } = await order.create(orderInputs({ idempotencyKey: inputs.idempotencyKey }));
    for (const p of outs.proxies) await sandbox.current.proxies?.setCondition(p.id ?? "", "slow");
    // A plugin's customTimeouts (or readyTimeout) of 300 ms for the whole update: the slow proxies answer after 3 s.
    const error = await failure(order.update(id, outs, inputs, { timeoutMs: 300 }));
    const kept = error.properties as unknown as OrderOutputs;
    expect(kept.health).toMatchObject({ healthy: 0, total: 5 });
    expect(new Set(kept.health?.results.map((r) => r.message))).toEqual(new Set(["the check was stopped before the proxy answered (cancelled, or out of time)"]));
  });

  it("a refresh records what it finds and warns, without failing; the update the diff then plans fails", async () => {
    const { order, lines } = providers();
    const inputs = orderInputs({ healthCheck: { target: echo(), minHealthy: "100%" } });
    const { id, outs } = await order.create(inputs);
    await kill([outs.proxies[0]?.id]);
    const read = await order.read(id, outs);
    const refreshed = read.props as OrderOutputs;
    expect(refreshed.health).toMatchObject({ healthy: 4, total: 5 });
    expect(refreshed.health?.results[0]).toMatchObject({ healthy: false, failure: "refused" });
    expect(lines.some((l) => l.startsWith("warn proxy: 4 of 5 proxies"))).toBe(true);
    expect(read.inputs).toEqual(expect.objectContaining({ healthCheck: inputs.healthCheck }));
    expect((await order.diff(id, refreshed, read.inputs as OrderInputs)).diffs).toEqual(["health"]);
    await failure(order.update(id, refreshed, inputs));
  });

  it("check names the field of a bad healthCheck before anything is bought", async () => {
    const { order } = providers();
    const cases: Array<[unknown, RegExp]> = [
      [{ target: "ftp://x" }, /^healthCheck\.target must be the http:\/\/ or https:\/\/ URL/],
      [{ target: "http://x", timeout: "10 minutes" }, /^healthCheck\.timeout must be a duration/],
      [{ target: "http://x", minHealthy: "120%" }, /^healthCheck\.minHealthy must be a count such as "17" or a share/],
      [{ target: "http://x", concurrency: 0 }, /^healthCheck\.concurrency must be a whole number from 1 to 500/],
      ["http://x", /^healthCheck must be an object/],
    ];
    for (const [healthCheck, reason] of cases) {
      const { failures } = await order.check({}, { ...orderInputs(), healthCheck });
      expect(failures).toEqual([{ property: "healthCheck", reason: expect.stringMatching(reason) }]);
    }
    expect(sandbox.current.createdOrders).toHaveLength(0);
  });
});

describe("a ProxyFleet with healthCheck", () => {
  /** A fleet of 20 one-proxy orders, then 3 of its proxies dead. */
  async function fleetWithDead(over: Partial<FleetInputs> = {}) {
    const { fleet, lines } = providers();
    const base = fleetInputs({ planId: "dc-us-1", orders: 20 });
    const { id, outs } = await fleet.create(base);
    const stored = outs as FleetOutputs;
    const dead = [3, 11, 17].map((slot) => stored.proxies.find((p) => p.orderId === stored.members[slot]?.orderId));
    await kill(dead.map((p) => p?.id));
    return { fleet, lines, id, stored, dead, inputs: { ...base, ...over } };
  }

  it("reports 17 of 20 healthy and names the 3; with minHealthy above 17 fails, keeping every member", async () => {
    const { fleet, lines, id, stored, dead, inputs } = await fleetWithDead({ healthCheck: { target: echo() } });
    const { outs } = await fleet.update(id, stored, inputs);
    expect(outs.health).toMatchObject({ healthy: 17, total: 20 });
    const said = lines.find((l) => l.startsWith("warn proxy: 17 of 20 proxies of fleet")) ?? "";
    for (const p of dead) expect(said).toContain(`${p?.ip}:${p?.port} (order ${p?.orderId}): refused`);
    const strict = { ...inputs, healthCheck: { target: echo(), minHealthy: "18" } };
    const error = await failure(fleet.update(id, outs, strict));
    for (const p of dead) expect(error.message).toContain(`(order ${p?.orderId}): refused`);
    expect((error.properties as unknown as FleetOutputs).members.map((m) => m.orderId)).toEqual(stored.members.map((m) => m.orderId));
    expectNoCredentials(error.message + said, stored);
  });

  it("replaceUnhealthy: the preview after a refresh names exactly the members with a dead proxy, and the up buys that many, once", async () => {
    const { fleet, lines, id, stored, dead, inputs } = await fleetWithDead({ healthCheck: { target: echo() }, replaceUnhealthy: 5 });
    const read = await fleet.read(id, { ...stored, ...inputs });
    const refreshed = read.props as FleetOutputs;
    expect(refreshed.health).toMatchObject({ healthy: 17, total: 20 });
    lines.length = 0;
    const diff = await fleet.diff(id, refreshed, inputs);
    expect(diff).toMatchObject({ changes: true, replaces: [], diffs: ["members"] });
    const plan = lines.find((l) => l.includes("this update buys")) ?? "";
    expect(plan).toContain("buys 3 order(s)");
    for (const p of dead) expect(plan).toContain(`order ${p?.orderId} has proxies that failed the last health check`);
    const before = sandbox.current.createdOrders.length;
    const { outs } = await fleet.update(id, refreshed, inputs);
    expect(sandbox.current.createdOrders.length - before).toBe(3);
    expect(outs.members.map((m) => m.orderId).filter((o) => dead.some((p) => p?.orderId === o))).toEqual([]);
    expect(outs.health).toMatchObject({ healthy: 20, total: 20 });
    // Bought once: the same up again (a retry of the same plan) replays the same keys.
    const again = await fleet.update(id, refreshed, inputs);
    expect(sandbox.current.createdOrders.length - before).toBe(3);
    expect(again.outs.members.map((m) => m.orderId)).toEqual(outs.members.map((m) => m.orderId));
  });

  it("replaces no more than replaceUnhealthy in one up", async () => {
    const { fleet, id, stored, inputs } = await fleetWithDead({ healthCheck: { target: echo() }, replaceUnhealthy: 2 });
    const refreshed = (await fleet.read(id, { ...stored, ...inputs })).props as FleetOutputs;
    const before = sandbox.current.createdOrders.length;
    const { outs } = await fleet.update(id, refreshed, inputs);
    expect(sandbox.current.createdOrders.length - before).toBe(2);
    expect(outs.health).toMatchObject({ healthy: 19, total: 20 });
  });
});

describe("getProxyHealth", () => {
  it("checks the proxies of the orders named, or those the filters match, with no credential in the result", async () => {
    const { order } = providers();
    const a = (await order.create(orderInputs())).outs;
    const b = (await order.create(orderInputs({ planId: "mobile-fr-1" }))).outs;
    await kill([a.proxies[1]?.id]);
    const api = accounts.current.of({ baseUrl: sandbox.current.url, apiKey: sandbox.current.apiKey }, { info: () => undefined, warn: () => undefined }).api;
    const call = checkGetProxyHealthArgs({ target: echo(), orderIds: [a.orderId, b.orderId] });
    if (call.failures) throw new Error(JSON.stringify(call.failures));
    const report = await checkProxyHealth(api, call.query);
    expect(report).toMatchObject({ healthy: 5, total: 6 });
    expect(report.results.find((r) => !r.healthy)).toMatchObject({ orderId: a.orderId, failure: "refused" });
    expectNoCredentials(JSON.stringify(report), { credentials: [...a.credentials, ...b.credentials] });
    const socks = checkGetProxyHealthArgs({ target: echo(), type: "mobile" });
    if (socks.failures) throw new Error(JSON.stringify(socks.failures));
    expect(await checkProxyHealth(api, socks.query)).toMatchObject({ healthy: 1, total: 1 });
    expect(checkGetProxyHealthArgs({ orderIds: "ord_1" }).failures).toEqual([
      { property: "target", reason: expect.stringMatching(/^target must be the http/) },
      { property: "orderIds", reason: expect.stringMatching(/^orderIds must be a list/) },
    ]);
  });
});
