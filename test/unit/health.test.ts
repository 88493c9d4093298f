/**
 * The parts of a health check decided without a network: the caller's address in an echo's body, what a
 * `healthCheck` input allows, how many proxies `minHealthy` asks for, and which members a fleet replaces for health.
 */
import { describe, expect, it } from "vitest";
import { exitOf } from "../../health/exit";
import type { FleetMember } from "../../provider/state/fleet-state";
import { planFleet } from "../../provider/fleet/fleet-plan";
import { healthCheckProblem, healthDue, healthSettings, requiredHealthy } from "../../provider/schema/health-input";
import { UNKNOWN } from "../../provider/shared/pulumi-host";
import { fleetMember } from "../helpers/members";

describe("the exit address and country in an echo's answer", () => {
  it.each([
    ['{"ip":"203.0.113.7"}', { ip: "203.0.113.7" }],
    // httpbin's forwarding chain through a proxy that adds X-Forwarded-For: the caller, then the proxy's exit; hops
    // inside the echo's own network append private addresses.
    ['{"origin":"203.0.113.7, 198.51.100.1"}', { ip: "198.51.100.1" }],
    ['{"origin":"198.51.100.1, 10.0.0.7"}', { ip: "198.51.100.1" }],
    ['{"origin":"127.0.0.1, 127.0.0.2"}', { ip: "127.0.0.2" }],
    ['{"ip":"::ffff:203.0.113.7"}', { ip: "203.0.113.7" }],
    ["::ffff:203.0.113.7", { ip: "203.0.113.7" }],
    ['{"origin":"198.51.100.1, ::ffff:10.0.0.7"}', { ip: "198.51.100.1" }],
    ['{"query":"2001:db8::1","status":"success"}', { ip: "2001:db8::1" }],
    ["203.0.113.7\n", { ip: "203.0.113.7" }],
    // ipinfo's code, ip-api's name beside its code, ipapi.co's and ipwho.is's country_code, Cloudflare's trace lines.
    ['{"ip":"203.0.113.7","country":"us"}', { ip: "203.0.113.7", country: "US" }],
    ['{"query":"203.0.113.7","country":"Germany","countryCode":"DE"}', { ip: "203.0.113.7", country: "DE" }],
    ['{"ip":"203.0.113.7","country":"France","country_name":"France","country_code":"FR"}', { ip: "203.0.113.7", country: "FR" }],
    ["fl=1\nip=203.0.113.7\nloc=NL\nwarp=off\n", { ip: "203.0.113.7", country: "NL" }],
    ['{"ip":"203.0.113.7","country":"Germany"}', { ip: "203.0.113.7" }],
    ['{"ip":"not an address"}', {}],
    ["<html>hello</html>", {}],
    ["[1,2]", {}],
  ])("%j gives %j", (body, exit) => {
    expect(exitOf(body)).toEqual(exit);
  });
});

describe("a healthCheck input", () => {
  it("passes what the engine does not know yet, anywhere in it", () => {
    expect(healthCheckProblem(UNKNOWN)).toBeUndefined();
    expect(healthCheckProblem({ target: UNKNOWN, minHealthy: UNKNOWN, timeout: UNKNOWN, concurrency: UNKNOWN })).toBeUndefined();
  });

  it("takes minHealthy as a count or a share, and fills in the defaults", () => {
    expect(healthSettings({ target: "http://x/" })).toEqual({ target: "http://x/", timeoutMs: 10_000, concurrency: 50 });
    expect(healthSettings({ target: "http://x/", timeout: "30s", minHealthy: "17", concurrency: 5 })).toMatchObject({ timeoutMs: 30_000, concurrency: 5, minHealthy: { count: 17 } });
    expect(healthSettings({ target: "http://x/", minHealthy: "85%" }).minHealthy).toEqual({ percent: 85 });
  });

  it("asks for the count, or the share of the proxies rounded up", () => {
    expect(requiredHealthy(undefined, 20)).toBe(0);
    expect(requiredHealthy({ count: 17 }, 20)).toBe(17);
    expect(requiredHealthy({ percent: 85 }, 20)).toBe(17);
    expect(requiredHealthy({ percent: 86 }, 20)).toBe(18);
    expect(requiredHealthy({ percent: 100 }, 0)).toBe(0);
  });

  it("asks an update to check again only when the last check is missing or below minHealthy", () => {
    const check = { target: "http://x/", minHealthy: "5" };
    const report = (healthy: number) => ({ target: "http://x/", checkedAt: "", healthy, total: 5, results: [] });
    expect(healthDue(true, null, check)).toBe(true);
    expect(healthDue(true, report(4), check)).toBe(true);
    expect(healthDue(true, report(5), check)).toBe(false);
    expect(healthDue(false, null, check)).toBe(false);
    expect(healthDue(true, null, undefined)).toBe(false);
    expect(healthDue(true, report(0), { target: "http://x/" })).toBe(false);
  });
});

describe("a fleet's plan with replaceUnhealthy", () => {
  const member = (slot: number): FleetMember => fleetMember(slot);
  const members = [0, 1, 2, 3, 4].map(member);
  const inputs = { planId: "dc-us-1", orders: 5, waitForReady: true, idempotencyKey: "fleet" };
  const unhealthy = new Set(["ord_1", "ord_3", "ord_4"]);

  it("replaces the members with a failed proxy, lowest slots first, up to the cap, each by a key derived from it", () => {
    const plan = planFleet(members, { ...inputs, healthCheck: { target: "http://x/" }, replaceUnhealthy: 2 }, 0, new Set(), unhealthy);
    expect(plan.actions.map((a) => (a.kind === "buy" ? [a.slot, a.replaces?.orderId] : []))).toEqual([
      [1, "ord_1"],
      [3, "ord_3"],
    ]);
    const again = planFleet(members, { ...inputs, healthCheck: { target: "http://x/" }, replaceUnhealthy: 2 }, 0, new Set(), unhealthy);
    expect(again.actions).toEqual(plan.actions);
  });

  it("replaces nothing for health without replaceUnhealthy, or without healthCheck", () => {
    expect(planFleet(members, { ...inputs, healthCheck: { target: "http://x/" } }, 0, new Set(), unhealthy).actions).toEqual([]);
    expect(planFleet(members, { ...inputs, replaceUnhealthy: 5 }, 0, new Set(), unhealthy).actions).toEqual([]);
  });
});
