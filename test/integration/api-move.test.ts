/**
 * Orders that live at one API while the stack points at another (provider/state/origin.ts): nothing is read, renewed or
 * dropped through the other API, every operation says where the order lives and how to go on, pointing back changes
 * nothing, and a 404 to a key that may be of another account never drops an order.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OrderAbsenceUnconfirmedError } from "../../provider/api/absence";
import { createFleetProvider } from "../../provider/fleet/fleet-provider";
import { createOrderProvider } from "../../provider/order/order-provider";
import { startSandbox, type Sandbox } from "../../sandbox";
import { accountsPerTest, sandboxClock, useSandbox } from "../helpers/sandbox";
import { fleetInputs, orderInputs } from "../helpers/inputs";

const a = useSandbox();
let b: Sandbox;
beforeAll(async () => {
  b = await startSandbox({ provisioningMs: 300 });
});
afterAll(async () => {
  await b.stop();
  expect(b.contractViolations).toEqual([]);
});

const accounts = accountsPerTest();

function at(api: () => Sandbox, apiKey?: string) {
  const lines: string[] = [];
  const options = {
    log: { info: (m: string) => void lines.push(`info ${m}`), warn: (m: string) => void lines.push(`warn ${m}`) },
    testing: {
      env: { PROXY_API_BASE_URL: api().url, PROXY_API_KEY: apiKey ?? api().apiKey },
      clock: sandboxClock(api),
      accounts: accounts.current,
    },
  };
  return { order: createOrderProvider(options), fleet: createFleetProvider(options), lines };
}

const inputs = orderInputs;

describe("an order records the API it was bought from", () => {
  it("its base URL and a fingerprint of the key, never the key", async () => {
    const { outs } = await at(() => a.current).order.create(inputs());
    expect(outs.apiBaseUrl).toBe(a.current.url);
    expect(outs.apiKeyFingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(outs)).not.toContain(a.current.apiKey);
  });
});

describe("the stack pointed at another API", () => {
  it("refresh keeps the order as recorded, asks the other API nothing, and names both APIs and the ways forward", async () => {
    const { id, outs } = await at(() => a.current).order.create(inputs());
    const elsewhere = at(() => b);
    const before = b.requests.length;
    const read = await elsewhere.order.read(id, outs);
    expect(read).toEqual({ id, props: outs, inputs: expect.objectContaining({ planId: "dc-us-5" }) });
    expect(b.requests.length).toBe(before);
    expect(elsewhere.lines.join("\n")).toMatch(new RegExp(`order ${id} \\(plan dc-us-5\\) lives at ${a.current.url}.*is now ${b.url}.*point proxy:baseUrl back.*pulumi up --replace`, "s"));
  });

  it("preview and up change nothing and say so; an unready order is not resumed there; pointing back is quiet", async () => {
    const { id, outs } = await at(() => a.current).order.create(inputs({ waitForReady: false }));
    const elsewhere = at(() => b);
    const diff = await elsewhere.order.diff(id, outs, inputs({ idempotencyKey: outs.idempotencyKey, waitForReady: false }));
    expect(diff.changes).toBe(false);
    expect(elsewhere.lines.join("\n")).toContain(`lives at ${a.current.url}`);
    const updated = await elsewhere.order.update(id, outs, inputs({ idempotencyKey: outs.idempotencyKey }));
    expect(updated.outs).toMatchObject({ orderId: id, status: outs.status, apiBaseUrl: a.current.url });
    expect(b.createdOrders).toEqual([]);
    const back = at(() => a.current);
    await back.order.diff(id, outs, inputs({ idempotencyKey: outs.idempotencyKey, waitForReady: false }));
    const refreshed = await back.order.read(id, outs);
    expect(refreshed.id).toBe(id);
    expect(back.lines.filter((l) => l.includes("lives at"))).toEqual([]);
  });

  it("an order that falls due or ends after the move is not renewed or replaced at either API; the preview says why", async () => {
    const { id, outs } = await at(() => a.current).order.create(inputs({ renewBefore: "7d" }));
    const elsewhere = at(() => b);
    // Inside its renewal window (ready 29 days ago, its proxies expire in a day), and then expired: neither replaces it
    // from over there.
    const day = 86_400_000;
    const due = { ...outs, readyAt: new Date(b.clock.now() - 29 * day).toISOString(), expiresAt: new Date(b.clock.now() + day).toISOString() };
    const expired = { ...outs, status: "expired" as const, expiresAt: new Date(b.clock.now() - 1000).toISOString() };
    for (const olds of [due, expired]) {
      const diff = await elsewhere.order.diff(id, olds, inputs({ idempotencyKey: outs.idempotencyKey, renewBefore: "7d" }));
      expect(diff, olds.status).toMatchObject({ changes: false, replaces: [] });
    }
    expect(elsewhere.lines.join("\n")).toMatch(new RegExp(`lives at ${a.current.url}.*Nothing will be read, renewed or bought for it at ${b.url}`, "s"));
    expect(elsewhere.lines.join("\n")).not.toMatch(/renew(s|ing) it|replac(es|ing) it/i);
    // Pointed back, the same order is due: the renewal is planned there, where it was bought.
    const back = at(() => a.current);
    const home = await back.order.diff(id, due, inputs({ idempotencyKey: outs.idempotencyKey, renewBefore: "7d" }));
    expect(home.replaces).toEqual(["expiresAt"]);
    expect(a.current.createdOrders).toHaveLength(1);
    expect(b.createdOrders).toEqual([]);
  });

  it("a fleet keeps its members there: no reads, no purchases, and the diff plans nothing for them", async () => {
    const here = at(() => a.current);
    const given = fleetInputs();
    const { id, outs } = await here.fleet.create(given);
    expect(outs.members.map((m) => m.apiBaseUrl)).toEqual([a.current.url, a.current.url, a.current.url]);
    const elsewhere = at(() => b);
    const before = b.requests.length;
    const read = await elsewhere.fleet.read(id, outs);
    expect(read.props).toEqual(outs);
    expect(b.requests.length).toBe(before);
    const diff = await elsewhere.fleet.diff(id, outs, given);
    expect(diff.changes).toBe(false);
    expect(elsewhere.lines.join("\n")).toMatch(/fleet .*3 order\(s\).*lives at/);
    expect(b.createdOrders).toEqual([]);
  });
});

describe("a 404 to another key", () => {
  /** The order as if bought with another key of fingerprint `fingerprint`. */
  const boughtWithKey = async (fingerprint: string) => {
    const { id, outs } = await at(() => a.current).order.create(inputs());
    return { id, outs: { ...outs, apiKeyFingerprint: fingerprint } };
  };

  it("keeps the order while the key has not been seen reading an order of that key (it may be of another account)", async () => {
    const { id, outs } = await boughtWithKey("aaaaaaaaaaaaaaaa");
    a.current.removeOrder(id);
    const error = await at(() => a.current).order.read(id, outs).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderAbsenceUnconfirmedError);
    expect((error as Error).message).toMatch(/another account.*stays in the state.*pulumi state delete/s);
  });

  it("drops it once the key has read another order bought with that key (a key rotated within the account)", async () => {
    const sibling = await boughtWithKey("bbbbbbbbbbbbbbbb");
    const gone = await boughtWithKey("bbbbbbbbbbbbbbbb");
    const rotated = at(() => a.current);
    expect((await rotated.order.read(sibling.id, sibling.outs)).id).toBe(sibling.id);
    a.current.removeOrder(gone.id);
    expect(await rotated.order.read(gone.id, gone.outs)).toEqual({});
  });

  it("drops an order the same key bought, and one recorded by an earlier release once another order was found there", async () => {
    const { id, outs } = await at(() => a.current).order.create(inputs());
    const sibling = await at(() => a.current).order.create(inputs());
    const legacy = await at(() => a.current).order.create(inputs());
    a.current.removeOrder(id);
    a.current.removeOrder(legacy.id);
    expect(await at(() => a.current).order.read(id, outs)).toEqual({});
    expect((await at(() => a.current).order.read(sibling.id, sibling.outs)).id).toBe(sibling.id);
    expect(await at(() => a.current).order.read(legacy.id, asEarlierRelease(legacy.outs))).toEqual({});
  });
});

/** Outputs as an earlier release recorded them: no API, no key fingerprint. */
function asEarlierRelease<T extends { apiBaseUrl?: string; apiKeyFingerprint?: string }>(outs: T): Omit<T, "apiBaseUrl" | "apiKeyFingerprint"> {
  const { apiBaseUrl: _u, apiKeyFingerprint: _k, ...rest } = outs;
  return rest;
}

describe("an order recorded by an earlier release (no API recorded)", () => {
  it("plans nothing for it (an upgrade previews clean); a refresh records where it lives, and so does an update that happens anyway", async () => {
    const bought = await at(() => a.current).order.create(inputs());
    const olds = asEarlierRelease(bought.outs);
    const here = at(() => a.current);
    const news = inputs({ idempotencyKey: bought.outs.idempotencyKey });
    const diff = await here.order.diff(bought.id, olds, news);
    expect(diff).toMatchObject({ changes: false, replaces: [], diffs: [] });
    expect(here.lines.join("\n")).toContain(`order ${bought.id} records no API (an earlier release bought it); nothing is planned for it`);
    const refreshed = await at(() => a.current).order.read(bought.id, olds);
    expect(refreshed.props).toMatchObject({ apiBaseUrl: a.current.url, apiKeyFingerprint: bought.outs.apiKeyFingerprint });
    expect(await here.order.diff(bought.id, refreshed.props as typeof bought.outs, news)).toMatchObject({ changes: false });
    // An update the inputs ask for (here a longer readyTimeout) reads it once and records it too.
    const longer = inputs({ idempotencyKey: bought.outs.idempotencyKey, readyTimeout: "30m" });
    expect(await here.order.diff(bought.id, olds, longer)).toMatchObject({ changes: true, replaces: [] });
    const { outs } = await here.order.update(bought.id, olds, longer);
    expect(outs).toMatchObject({ orderId: bought.id, apiBaseUrl: a.current.url, apiKeyFingerprint: bought.outs.apiKeyFingerprint, readyTimeout: "30m" });
    expect(a.current.createdOrders).toHaveLength(1);
  });

  it("a fleet's members record where they live on a refresh that finds them, and none is dropped by another API", async () => {
    const { id, outs } = await at(() => a.current).fleet.create(fleetInputs());
    const olds = { ...outs, members: outs.members.map(asEarlierRelease) };
    const moved = await at(() => b).fleet.read(id, olds).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(OrderAbsenceUnconfirmedError);
    const home = await at(() => a.current).fleet.read(id, olds);
    expect(home.props?.members.map((m) => m.apiBaseUrl)).toEqual(outs.members.map(() => a.current.url));
    expect(b.createdOrders).toEqual([]);
  });

  it("moved before it recorded where it lives: the other API's 404 drops nothing, and the way back is named", async () => {
    const bought = await at(() => a.current).order.create(inputs());
    const olds = asEarlierRelease(bought.outs);
    const elsewhere = at(() => b);
    const error = await elsewhere.order.read(bought.id, olds).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderAbsenceUnconfirmedError);
    expect((error as Error).message).toMatch(new RegExp(`records no API.*stays in the state.*point proxy:baseUrl back.*pulumi refresh --run-program`, "s"));
    // An up there records nothing and changes nothing.
    const { outs } = await elsewhere.order.update(bought.id, olds, inputs({ idempotencyKey: bought.outs.idempotencyKey }));
    expect(outs).toEqual(expect.not.objectContaining({ apiBaseUrl: expect.anything() }));
    expect(elsewhere.lines.join("\n")).toMatch(/did not show it, so where it lives was not recorded/);
    expect(b.createdOrders).toEqual([]);
  });
});
