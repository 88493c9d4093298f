import { describe, expect, it } from "vitest";
import { describePurchases, planFleet, planFleetChange } from "../../provider/fleet/fleet-plan";
import type { FleetMember, FleetOutputs } from "../../provider/state/fleet-state";
import { memberPurchaseKey, nextPurchaseKey } from "../../provider/state/idempotency";
import { fleetMember } from "../helpers/members";

const NOW = Date.parse("2026-11-24T00:00:00Z");
const DAY = 86_400_000;

const member = (slot: number, over: Partial<FleetMember> = {}): FleetMember =>
  fleetMember(
    slot,
    { createdAt: new Date(NOW - 10 * DAY).toISOString(), readyAt: new Date(NOW - 10 * DAY).toISOString(), expiresAt: new Date(NOW + 20 * DAY).toISOString() },
    over,
  );

const inputs = { planId: "dc-us-5", orders: 6, waitForReady: true, idempotencyKey: "fleet" };

/** A fleet's inputs as `check` leaves them (every default applied), for a diff. */
const checked = { ...inputs, readyTimeout: "30m" };

/** A stored fleet of these members (and those being renewed), with inputs that match them. */
const stored = (members: FleetMember[], retiring: FleetMember[] = []): FleetOutputs => ({
  ...checked,
  orders: members.length,
  members,
  retiring,
  proxies: [],
  credentials: [],
  expiresAt: null,
  health: null,
});

describe("a fleet's plan", () => {
  it("buys new slots and spent or due members, resumes pending ones, and drops slots above orders", () => {
    const members = [
      member(0),
      member(1, { status: "failed" }),
      member(2, { status: "provisioning", expiresAt: null }),
      member(3, { expiresAt: new Date(NOW + 2 * DAY).toISOString() }),
      member(6),
      member(7),
    ];
    const plan = planFleet(members, { ...inputs, renewBefore: "3d" }, NOW);
    expect(plan.actions).toEqual([
      { kind: "buy", slot: 1, key: nextPurchaseKey("key_1", "ord_1"), why: 'order ord_1 ended "failed"', replaces: members[1] },
      { kind: "resume", member: members[2] },
      { kind: "buy", slot: 3, key: nextPurchaseKey("key_3", "ord_3"), why: expect.stringContaining("within renewBefore (3d)"), replaces: members[3] },
      { kind: "buy", slot: 4, key: memberPurchaseKey("fleet", 4), why: "new" },
      { kind: "buy", slot: 5, key: memberPurchaseKey("fleet", 5), why: "new" },
    ]);
    expect(plan.drops.map((m) => m.slot)).toEqual([6, 7]);
    expect(describePurchases(plan, "dc-us-5")).toBe(
      `proxy: this update buys 4 order(s) of plan dc-us-5 for the fleet: 2 new (slots 4-5); slot 1: order ord_1 ended "failed"; slot 3: ${plan.actions[2]?.kind === "buy" ? plan.actions[2].why : ""}.`,
    );
  });

  it("changes nothing for a healthy fleet, and warns once, for the soonest, about members that expire within 7 days", () => {
    const members = [0, 1, 2].map((slot) => member(slot, { expiresAt: new Date(NOW + (slot + 2) * DAY).toISOString() }));
    const plan = planFleet(members, { ...inputs, orders: 3 }, NOW);
    expect(plan.actions).toEqual([]);
    expect(plan.notices).toEqual([expect.stringMatching(/order ord_0 .* in 2d00h\. Nothing renews it.*\(2 more of the fleet's orders likewise\)$/)]);
    expect(describePurchases(plan, "dc-us-5")).toBeUndefined();
  });

  it("waits for nothing when waitForReady is false", () => {
    const plan = planFleet([member(0, { status: "pending" })], { ...inputs, orders: 1, waitForReady: false }, NOW);
    expect(plan.actions).toEqual([]);
  });

  it("says of the members a fleet stops tracking which stay billed and which have already ended", () => {
    const olds = stored([member(0), member(1), member(2), member(3, { status: "cancelled" }), member(4, { status: "expired" })]);
    const shrunk = planFleetChange(olds, { ...checked, orders: 2 }, NOW);
    expect(shrunk.warnings).toEqual([
      "proxy: orders goes from 5 to 2: the fleet stops tracking ord_2 (slot 2), ord_3 (slot 3), ord_4 (slot 4). " +
        "ord_2 (slot 2) is not cancelled: the API has no cancel endpoint, so it stays with the account until it expires. " +
        "ord_3 (slot 3), ord_4 (slot 4) have ended, so nothing of them stays active.",
    ]);
    expect(planFleetChange(olds, { ...checked, orders: 3 }, NOW).warnings).toEqual([
      "proxy: orders goes from 5 to 3: the fleet stops tracking ord_3 (slot 3), ord_4 (slot 4). They have ended, so nothing of them stays active.",
    ]);
    expect(planFleetChange(olds, { ...checked, orders: 4 }, NOW).warnings).toContainEqual(expect.stringMatching(/tracking ord_4 \(slot 4\)\. It has ended, so nothing of it stays active\.$/));
  });

  it("counts, when a new planId replaces the fleet, only the orders that can still be billed as staying, renewals included", () => {
    const news = { ...checked, planId: "isp-gb-2", orders: 2 };
    const replace = (members: FleetMember[], retiring: FleetMember[] = []) => planFleetChange(stored(members, retiring), news, NOW);
    expect(replace([member(0), member(1)], [member(1, { orderId: "ord_old" })])).toMatchObject({
      replaces: ["planId"],
      warnings: [
        "proxy: a new planId replaces the fleet: it buys 2 new order(s) of plan isp-gb-2. " +
          "Its 3 order(s) of plan dc-us-5 are not cancelled: the API has no cancel endpoint, so they stay with the account until they expire.",
      ],
    });
    expect(replace([member(0), member(1, { status: "failed" })]).warnings[0]).toMatch(
      /plan isp-gb-2\. 1 of its 2 order\(s\) of plan dc-us-5 is not cancelled: .*, so it stays with the account until it expires\. The other one has ended\.$/,
    );
    expect(replace([member(0, { status: "expired" }), member(1, { status: "cancelled" })]).warnings[0]).toMatch(
      /plan isp-gb-2\. Its 2 order\(s\) of plan dc-us-5 have ended, so nothing of them stays active\.$/,
    );
  });
});
