/**
 * ProxyFleet through the provider core against the sandbox: buy, re-run, grow, shrink, a member replaced alone,
 * renewal, partial work kept, import and delete. Waits run on the sandbox's clock.
 */
import { describe, expect, it } from "vitest";
import { Accounts } from "../../provider/api/account";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import type { Order } from "../../contract/types";
import { PROXY_FLEET } from "../../provider/schema/definitions";
import { fleetInputsOf, memberOf, proxiesOf, toFleetOutputs, type FleetInputs, type FleetOutputs } from "../../provider/state/fleet-state";
import { storedOrigin } from "../../provider/state/origin";
import { fleetId, keyAfterRemovedOrder, memberPurchaseKey, nextPurchaseKey } from "../../provider/state/idempotency";
import { PartialOrderError } from "../../provider/shared/pulumi-host";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { fleetInputs } from "../helpers/inputs";
import { startDeviantApi } from "../helpers/deviant-api";

const DAY = 86_400_000;
const sandbox = useSandbox({ orderLifetimeMs: 10 * DAY });

const accounts = accountsPerTest();

/** The fleet provider, against the sandbox or `url` (a server in front of it). */
function provider(url = sandbox.current.url) {
  const lines: string[] = [];
  const p = createFleetProvider({
    log: { info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`) },
    testing: {
      env: { PROXY_API_BASE_URL: url, PROXY_API_KEY: sandbox.current.apiKey },
      clock: sandboxClock(() => sandbox.current),
      accounts: accounts.current,
    },
  });
  return { p, lines };
}

const inputs = (over: Partial<FleetInputs> = {}) => fleetInputs({ orders: 6, ...over });

const keysBought = () => sandbox.current.createdOrders.map((o) => o.idempotencyKey);

/** Creates the fleet and returns its id and outputs. */
async function created(given: FleetInputs & { __provider: string }) {
  const { id, outs } = await provider().p.create(given);
  return { id, outs: outs as FleetOutputs };
}

describe("check", () => {
  it.each([0, 1001, 2.5, "6"])("refuses orders %j, naming it and the range", async (orders) => {
    const { failures } = await provider().p.check({}, { planId: "dc-us-5", idempotencyKey: "k", orders });
    expect(failures).toEqual([{ property: "orders", reason: expect.stringMatching(/^orders must be a whole number from 1 to 1000/) }]);
  });
});

describe("a fleet", () => {
  it("buys every member once, by a key derived from the fleet and its slot, and lists their proxies with their order", async () => {
    const given = inputs();
    const { id, outs } = await created(given);
    expect(id).toBe(fleetId(given.idempotencyKey));
    expect([...keysBought()].sort()).toEqual([0, 1, 2, 3, 4, 5].map((slot) => memberPurchaseKey(given.idempotencyKey, slot)).sort());
    expect(outs.members.map((m) => [m.slot, m.status])).toEqual([0, 1, 2, 3, 4, 5].map((slot) => [slot, "active"]));
    expect(outs.proxies).toHaveLength(30);
    expect(outs.credentials).toHaveLength(30);
    expect(new Set(outs.proxies.map((p) => p.orderId))).toEqual(new Set(outs.members.map((m) => m.orderId)));
    expect(outs.proxies.map((p) => [p.orderId, p.ip])).toEqual(outs.credentials.map((c) => [c.orderId, c.ip]));
    expect(outs.expiresAt).toBe(outs.members.map((m) => m.expiresAt).sort()[0]);

    // A re-run (after a crash, before the state had it) gets the same orders back.
    const again = await created(given);
    expect(again.outs.members.map((m) => m.orderId)).toEqual(outs.members.map((m) => m.orderId));
    expect(keysBought()).toHaveLength(6);
  });

  it("records the members' proxies from the list where the API's orders carry none, asking it by order id", async () => {
    const deviant = await startDeviantApi(sandbox.current, "order-without-proxies");
    try {
      const { p, lines } = provider(deviant.url);
      const { outs } = (await p.create(inputs())) as { outs: FleetOutputs };
      expect(outs.members.map((m) => m.status)).toEqual(Array(6).fill("active"));
      expect(outs.proxies).toHaveLength(30);
      expect(outs.credentials).toHaveLength(30);
      expect(outs.proxies.map((p) => [p.orderId, p.ip])).toEqual(outs.credentials.map((c) => [c.orderId, c.ip]));
      for (const member of outs.members) expect(outs.proxies.filter((p) => p.orderId === member.orderId)).toHaveLength(5);
      const listings = sandbox.current.requests.filter((r) => r.path === "/v1/proxies");
      expect(listings.length).toBeGreaterThan(0);
      expect(listings.every((r) => r.query.order_id !== undefined)).toBe(true);
      expect(lines.filter((l) => l.startsWith("warn"))).toEqual([]);
      expect(keysBought()).toHaveLength(6);
    } finally {
      await deviant.stop();
    }
  });

  it("grows by buying only the new slots, and shrinks by no longer tracking the highest, naming them", async () => {
    const given = inputs({ orders: 3 });
    const { id, outs } = await created(given);
    const { p, lines } = provider();
    const grown = { ...given, orders: 5 };
    expect(await p.diff(id, outs, grown)).toMatchObject({ changes: true, replaces: [], diffs: ["orders", "members"] });
    expect(lines).toContainEqual(expect.stringMatching(/this update buys 2 order\(s\) of plan dc-us-5 for the fleet: 2 new \(slots 3-4\)/));
    const after = (await p.update(id, outs, grown)).outs;
    expect(keysBought()).toHaveLength(5);
    expect(after.members.slice(0, 3)).toEqual(outs.members);

    lines.length = 0;
    const shrunk = { ...given, orders: 2 };
    expect(await p.diff(id, after, shrunk)).toMatchObject({ changes: true, replaces: [] });
    const dropped = after.members.slice(2).map((m) => m.orderId);
    expect(lines.join("\n")).toContain(`stops tracking ${dropped[0]} (slot 2), ${dropped[1]} (slot 3), ${dropped[2]} (slot 4)`);
    expect(lines.join("\n")).toContain("stay with the account");
    const small = (await p.update(id, after, shrunk)).outs;
    expect(small.members.map((m) => m.orderId)).toEqual(outs.members.slice(0, 2).map((m) => m.orderId));
    expect(small.proxies).toHaveLength(10);
    expect(keysBought()).toHaveLength(5);
    expect(await p.diff(id, small, shrunk)).toMatchObject({ changes: false });
  });

  it("replaces a cancelled member alone, with a key derived from it, seen by refresh", async () => {
    const given = inputs({ orders: 4 });
    const { id, outs } = await created(given);
    const victim = outs.members[2]!;
    sandbox.current.cancelOrder(victim.orderId);
    const { p, lines } = provider();
    const refreshed = (await p.read(id, outs)).props as FleetOutputs;
    expect(refreshed.members.map((m) => m.status)).toEqual(["active", "active", "cancelled", "active"]);
    expect(await p.diff(id, refreshed, given)).toMatchObject({ changes: true, replaces: [] });
    expect(lines.join("\n")).toContain(`buys 1 order(s) of plan dc-us-5 for the fleet: slot 2: order ${victim.orderId} ended "cancelled"`);
    const after = (await p.update(id, refreshed, given)).outs;
    expect(keysBought()).toHaveLength(5);
    expect(keysBought()[4]).toBe(nextPurchaseKey(victim.purchaseKey ?? "", victim.orderId));
    expect(after.members.map((m) => m.orderId)).toEqual([outs.members[0]!.orderId, outs.members[1]!.orderId, after.members[2]!.orderId, outs.members[3]!.orderId]);
    expect(after.members[2]!.orderId).not.toBe(victim.orderId);
    expect(after.proxies.some((px) => px.orderId === victim.orderId)).toBe(false);
  });

  it("buys a member the operator removed again once: refresh drops it, the next update derives a key from the spent one", async () => {
    const given = inputs({ orders: 3 });
    const { id, outs } = await created(given);
    const victim = outs.members[1]!;
    sandbox.current.removeOrder(victim.orderId);
    const { p } = provider();
    const refreshed = (await p.read(id, outs)).props as FleetOutputs;
    expect(refreshed.members.map((m) => m.slot)).toEqual([0, 2]);
    const after = (await p.update(id, refreshed, given)).outs;
    expect(after.members.map((m) => m.status)).toEqual(["active", "active", "active"]);
    // A retried `up` (say, after a SIGKILL) from the same refreshed state meets the same keys: nothing more is bought.
    await p.update(id, refreshed, given);
    expect(keysBought()).toHaveLength(4);
    expect(keysBought()[3]).toBe(keyAfterRemovedOrder(memberPurchaseKey(given.idempotencyKey, 1)));
  });

  it("renews the members inside renewBefore, each once, and a new planId replaces the fleet", async () => {
    const given = inputs({ orders: 3, renewBefore: "3d" });
    const { id, outs } = await created(given);
    const { p } = provider();
    expect(await p.diff(id, outs, given)).toMatchObject({ changes: false });
    sandbox.current.clock.advance(8 * DAY);
    expect(await p.diff(id, outs, given)).toMatchObject({ changes: true, replaces: [], diffs: ["members"] });
    const renewed = (await p.update(id, outs, given)).outs;
    expect(keysBought()).toHaveLength(6);
    expect(renewed.members.every((m, i) => m.orderId !== outs.members[i]!.orderId && m.status === "active")).toBe(true);
    expect(renewed.retiring).toEqual([]);
    expect(await p.diff(id, renewed, given)).toMatchObject({ changes: false });
    expect(await p.diff(id, renewed, { ...given, planId: "isp-gb-2" })).toMatchObject({ replaces: ["planId"] });
  });

  it("keeps partial work: a failed member and a timeout are recorded, and the next update buys only what is missing", async () => {
    const given = inputs({ orders: 4 });
    sandbox.current.faults.failNewOrders = 1;
    const { p } = provider();
    const error = await p.create(given).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialOrderError);
    const partial = (error as PartialOrderError).properties as unknown as FleetOutputs;
    expect((error as Error).message).toMatch(/^1 of the fleet's 4 order\(s\) are not ready: slot \d: Order ord_\w+ \(plan dc-us-5\) ended "failed"/);
    expect(partial.members.map((m) => m.status).sort()).toEqual(["active", "active", "active", "failed"]);
    expect((error as PartialOrderError).id).toBe(fleetId(given.idempotencyKey));

    // The next up replaces the failed member; its order is slow, and the wait times out.
    sandbox.current.settings.provisioningMs = 3_600_000;
    const slow = { ...given, readyTimeout: "5s" };
    const timedOut = await p.update("id", partial, slow).catch((e: unknown) => e);
    expect(timedOut).toBeInstanceOf(PartialOrderError);
    expect((timedOut as Error).message).toMatch(/was not ready after/);
    const waiting = (timedOut as PartialOrderError).properties as unknown as FleetOutputs;
    expect(waiting.members.map((m) => m.status).sort()).toEqual(["active", "active", "active", expect.stringMatching(/pending|provisioning/)]);
    expect(keysBought()).toHaveLength(5);

    // Then it resumes the recorded order: nothing is bought.
    sandbox.current.clock.advance(3_600_000);
    const done = (await p.update("id", waiting, given)).outs;
    expect(done.members.map((m) => m.status)).toEqual(["active", "active", "active", "active"]);
    expect(keysBought()).toHaveLength(5);
  });

  it("is imported from its order ids, with the inputs a program would declare, and delete only stops tracking", async () => {
    const given = inputs({ orders: 2 });
    const { outs } = await created(given);
    const { p, lines } = provider();
    const ids = outs.members.map((m) => m.orderId).join(",");
    const imported = await p.importFleet(ids, { project: "proj", stack: "dev", resourceName: "edge" });
    expect(imported.inputs).toMatchObject({ planId: "dc-us-5", orders: 2, waitForReady: true, readyTimeout: "20m" });
    expect(imported.props.members.map((m) => m.orderId)).toEqual(outs.members.map((m) => m.orderId));
    expect(imported.props.proxies).toHaveLength(10);
    await expect(p.importFleet("ord_nope", { project: "p", stack: "s", resourceName: "r" })).rejects.toThrow(/ord_nope do not exist/);
    await p.delete("id", outs);
    expect(lines).toContainEqual(expect.stringMatching(/its 2 order\(s\) stay active: the API has no cancel endpoint/));
    expect(keysBought()).toHaveLength(2);
  });

  it("is not imported from orders whose records name no plan: the error names them and adoptOrderId", async () => {
    const { outs } = await created(inputs({ orders: 2 }));
    const deviant = await startDeviantApi(sandbox.current, "order-without-plan-id");
    try {
      const ids = outs.members.map((m) => m.orderId);
      await expect(provider(deviant.url).p.importFleet(ids.join(","), { project: "proj", stack: "dev", resourceName: "edge" })).rejects.toThrow(
        `order(s) ${ids.join(", ")} names no plan_id, so import cannot tell the planId a program declares. Declare each as a ProxyOrder with its planId and adoptOrderId`,
      );
    } finally {
      await deviant.stop();
    }
  });
});

describe("an update in place", () => {
  it("records, for every member touched or not, what a create computes from the new inputs and the orders (every input that updates in place)", async () => {
    // A changed value for every input that updates in place; the definitions say which replace. `orders: 4` buys one
    // member and touches none of the three others.
    const changed: Record<string, unknown> = {
      orders: 4,
      waitForReady: false,
      readyTimeout: "45m",
      renewBefore: "3d",
      healthCheck: { target: "http://127.0.0.1:9/", minHealthy: "0" },
      replaceUnhealthy: true,
    };
    const inPlace = Object.entries(PROXY_FLEET.inputs).filter(([, spec]) => !("replaces" in spec && spec.replaces)).map(([name]) => name);
    // The fleet's key is not changed in place here: every member's key derives from it.
    expect(inPlace.filter((name) => !(name in changed))).toEqual(["idempotencyKey"]);
    const { p } = provider();
    const base = fleetInputs({ orders: 3 });
    const { id, outs } = await created(base);
    for (const [name, value] of Object.entries(changed)) {
      const news = { ...base, [name]: value };
      expect((await p.diff(id, outs, news)).replaces, name).toEqual([]);
      const updated = (await p.update(id, outs, news)).outs as FleetOutputs;
      const orders = await Promise.all(updated.members.map(async (m) => (await sandbox.client().getOrder(m.orderId)).order));
      const members = updated.members.map((m, i) => memberOf(m.slot, orders[i] as Order, m.purchaseKey ?? null, storedOrigin(m)));
      const known = new Map(orders.map((o) => [o.id, proxiesOf(o)]));
      expect({ ...updated, health: null }, name).toEqual({ ...toFleetOutputs(news, members, [], known), ...fleetInputsOf(news) });
      expect(updated.members.map((m) => m.slot), name).toEqual(name === "orders" ? [0, 1, 2, 3] : [0, 1, 2]);
    }
  });
});

describe("refresh from the list", () => {
  const reads = (from: number) => sandbox.current.requests.slice(from).filter((r) => r.path.startsWith("/v1/"));

  it("reads no order when nothing changed: one page of the list, and the outputs reading every order gives", async () => {
    const given = inputs({ orders: 8 });
    const { id, outs } = await created(given);
    const { p } = provider();
    const before = sandbox.current.requests.length;
    const refreshed = await p.read(id, outs);
    expect(reads(before).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /v1/proxies"]);
    expect(refreshed.props).toEqual(outs);
  });

  it("reads only the members the list does not show as the state holds them: cancelled, expired, changed, removed", async () => {
    const given = inputs({ orders: 6 });
    const { id, outs } = await created(given);
    const [, cancelled, expired, changed, removed] = outs.members.map((m) => m.orderId);
    sandbox.current.cancelOrder(cancelled!);
    sandbox.current.state.orders.get(expired!)!.lifetimeMs = 1;
    sandbox.current.state.orders.get(changed!)!.proxies[0]!.ip = "203.0.113.77";
    sandbox.current.removeOrder(removed!);
    const { p } = provider();
    const before = sandbox.current.requests.length;
    const refreshed = (await p.read(id, outs)).props as FleetOutputs;
    const orderReads = new Set(reads(before).filter((r) => r.path.startsWith("/v1/orders/")).map((r) => r.path.split("/").pop()));
    expect([...orderReads].sort()).toEqual([cancelled, expired, changed, removed].sort());
    expect(reads(before).filter((r) => r.path === "/v1/proxies")).toHaveLength(1);

    // The same outputs as reading every order: the list's answer is checked against a refresh that cannot use it.
    const direct = createFleetProvider({
      log: { info: () => undefined, warn: () => undefined },
      testing: {
        env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey },
        clock: sandboxClock(() => sandbox.current),
        // A process of its own, so that it cannot use the listing of the refresh it is compared with.
        accounts: new Accounts(),
      },
    });
    const everyOrder = await readingEveryOrder(() => direct.read(id, outs));
    expect(refreshed).toEqual(everyOrder.props);
    expect(refreshed.members.map((m) => m.status)).toEqual(["active", "cancelled", "expired", "active", "active"]);
    expect(refreshed.proxies.some((px) => px.ip === "203.0.113.77")).toBe(true);
  });
});

/** Runs `read` with the list failing, so every member is read by id (what a refresh did before the list). */
async function readingEveryOrder<T>(read: () => Promise<T>): Promise<T> {
  sandbox.current.faults.failNext({ count: 1000, status: 400, method: "GET", pathPrefix: "/v1/proxies" });
  try {
    return await read();
  } finally {
    sandbox.current.faults.clear();
  }
}

describe("a failure once the orders exist", () => {
  it("records the fleet with every order bought (a partial create), and the next create buys nothing", async () => {
    // A step after the purchases that throws: the log failing as the health check reports (the engine gone, say).
    const thrower = (m: string) => {
      if (m.includes("answered through themselves")) throw new Error("the engine's log is gone");
    };
    const failing = createFleetProvider({
      log: { info: thrower, warn: thrower },
      testing: { env: { PROXY_API_BASE_URL: sandbox.current.url, PROXY_API_KEY: sandbox.current.apiKey }, clock: sandboxClock(() => sandbox.current), accounts: accounts.current },
    });
    const given = { ...inputs({ orders: 3 }), healthCheck: { target: "http://127.0.0.1:9/", timeout: "1s", minHealthy: "0" } };
    const error = await failing.create(given).then(
      () => new Error("expected the create to fail"),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(PartialOrderError);
    const partial = error as PartialOrderError;
    expect(partial.message).toMatch(/^Fleet \S+ \(plan dc-us-5\) exists, but finishing this step failed: the engine's log is gone\./);
    const bought = sandbox.current.createdOrders.map((o) => o.id).sort();
    expect(bought).toHaveLength(3);
    expect(((partial.properties.members ?? []) as Array<{ orderId: string }>).map((m) => m.orderId).sort()).toEqual(bought);
    await provider().p.create(given);
    expect(sandbox.current.createdOrders).toHaveLength(3);
  });
});
