import { describe, expect, it } from "vitest";
import { FLEET_TYPE, ORDER_TYPE } from "../../provider/shared/pulumi-host";
import { TOKENS } from "../../plugin/server";
import {
  allowedPlansPolicy,
  GUARDED_TYPES,
  maxOrdersPolicy,
  planAllowed,
  requireRenewalPolicy,
  spendGuardPolicies,
  type GuardedResource,
  type GuardPolicy,
} from "../../policy";

/** Runs a policy on one resource; returns the violations it reported. */
function judge(policy: GuardPolicy, resource: Partial<GuardedResource> & { props: Record<string, unknown> }, config: object = {}): string[] {
  const said: string[] = [];
  policy.validateResource(
    { type: ORDER_TYPE, urn: "urn:pulumi:dev::shop::x", name: "edge", getConfig: <T extends object>() => config as T, ...resource },
    (message) => said.push(message),
  );
  return said;
}

describe("the spend guard's policies", () => {
  it("know the type tokens of both front ends", () => {
    expect(GUARDED_TYPES.order).toEqual([ORDER_TYPE, TOKENS.proxyOrder]);
    expect(GUARDED_TYPES.fleet).toEqual([FLEET_TYPE, TOKENS.proxyFleet]);
    expect(spendGuardPolicies().map((p) => [p.name, p.enforcementLevel])).toEqual([
      ["proxy-allowed-plans", "mandatory"],
      ["proxy-max-orders", "mandatory"],
      ["proxy-require-renewal", "advisory"],
    ]);
  });

  it("match plans exactly or by a prefix ending in *", () => {
    expect(planAllowed("dc-us-5", ["dc-us-*"])).toBe(true);
    expect(planAllowed("res-de-2", ["dc-us-*", "res-de-2"])).toBe(true);
    expect(planAllowed("res-de-25", ["res-de-2"])).toBe(false);
    expect(planAllowed("anything", ["*"])).toBe(true);
    expect(planAllowed("dc-us-5", [])).toBe(false);
  });

  it("proxy-allowed-plans names the resource, the plan, the rule, what is allowed and the fix", () => {
    const policy = allowedPlansPolicy();
    const config = { plans: ["dc-us-*", "res-de-2"] };
    expect(judge(policy, { props: { planId: "dc-us-5" } }, config)).toEqual([]);
    expect(judge(policy, { type: TOKENS.proxyFleet, name: "pool", props: { planId: "dedicated-enterprise", orders: 3 } }, config)).toEqual([
      'ProxyFleet "pool" buys plan "dedicated-enterprise", which proxy-allowed-plans does not allow (allowed: dc-us-*, res-de-2). ' +
        'To allow it, add "dedicated-enterprise" (or a prefix ending in *) to "plans" of proxy-allowed-plans in the policy config.',
    ]);
    expect(judge(policy, { type: "aws:s3/bucket:Bucket", props: { planId: "x" } }, config)).toEqual([]);
    // Unknown during a preview: not judged yet.
    expect(judge(policy, { props: { planId: undefined } }, config)).toEqual([]);
    expect(judge(policy, { props: { planId: "anything" } })).toEqual([]);
  });

  it("proxy-max-orders counts orders and fleet members as resources register, and stops the one that goes over", () => {
    const policy = maxOrdersPolicy();
    const config = { maximum: 5 };
    expect(judge(policy, { name: "a", props: {} }, config)).toEqual([]);
    expect(judge(policy, { type: FLEET_TYPE, name: "pool", props: { orders: 3 } }, config)).toEqual([]);
    expect(judge(policy, { type: FLEET_TYPE, name: "big", props: { orders: 2 } }, config)).toEqual([
      'ProxyFleet "big" would bring the stack to 6 order(s), over the maximum of 5 that proxy-max-orders allows (4 counted ' +
        'before it). To allow more, raise "maximum" of proxy-max-orders in the policy config; nothing of this resource is bought.',
    ]);
    expect(judge(policy, { name: "b", props: {} }, config)).toEqual([]);
    expect(judge(policy, { name: "c", props: {} }, config)).toEqual([expect.stringContaining('ProxyOrder "c" would bring the stack to 6 order(s)')]);
    // A fleet whose size is not known yet is not counted.
    expect(judge(policy, { type: FLEET_TYPE, props: { orders: "04da6b54-80e4-46f7-96ec-b56ff0331ba9" } }, config)).toEqual([]);
    expect(judge(maxOrdersPolicy(), { type: FLEET_TYPE, props: { orders: 51 } })).toEqual([expect.stringContaining("over the maximum of 50")]);
  });

  it("proxy-require-renewal asks every order and fleet for renewBefore", () => {
    const policy = requireRenewalPolicy();
    expect(judge(policy, { props: { renewBefore: "3d" } })).toEqual([]);
    expect(judge(policy, { props: {} })).toEqual([
      'ProxyOrder "edge" sets no renewBefore, so its orders lapse at expiry; proxy-require-renewal asks for one. ' +
        'Set renewBefore (such as "3d"), or set proxy-require-renewal to "disabled" in the policy config.',
    ]);
  });
});
