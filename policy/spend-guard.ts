/**
 * The spend guard: CrossGuard policies that cap what a stack may buy, checked before the purchase. They are plain
 * objects in the shape `@pulumi/policy` expects (this module does not load it), so a team can put them into a pack of
 * its own (`pulumi-proxy/policy`); `policy-pack/` of the package is a ready pack of all three.
 *
 * When the engine runs them (pulumi/pulumi, pkg/resource/deploy/step_generator.go): a resource policy for each
 * resource the program registers, before its step is made, in preview and in update alike; a stack policy once, after
 * every step of the update. A stack policy comes too late to stop a purchase under `pulumi up --skip-preview`, so the
 * cap is a resource policy that counts the orders registered so far in the analyzer process (one per operation): the
 * order that would go over the cap fails, and the engine makes no step for it.
 */

/** The resource type tokens the guard knows: the dynamic provider's and the plugin's. */
export const GUARDED_TYPES = {
  order: ["pulumi-nodejs:dynamic/proxy:ProxyOrder", "proxy:index:ProxyOrder"],
  fleet: ["pulumi-nodejs:dynamic/proxy:ProxyFleet", "proxy:index:ProxyFleet"],
} as const;

/** Enforcement levels of Pulumi's policies. */
export type EnforcementLevel = "advisory" | "mandatory" | "remediate" | "disabled";

/** What a policy sees of one resource (the fields of `@pulumi/policy`'s ResourceValidationArgs it reads). */
export interface GuardedResource {
  type: string;
  /** The resource's inputs. */
  props: Record<string, unknown>;
  urn: string;
  name: string;
  /** The policy's configuration, as the user gave it (defaults applied by the engine). */
  getConfig<T extends object>(): T;
}

/** A resource policy in the shape of `@pulumi/policy`'s ResourceValidationPolicy. */
export interface GuardPolicy {
  name: string;
  description: string;
  enforcementLevel: EnforcementLevel;
  configSchema: { properties: Record<string, object>; required?: string[] };
  validateResource(args: GuardedResource, reportViolation: (message: string, urn?: string) => void): void;
}

/** `proxy-allowed-plans` without configuration: every plan. */
const DEFAULT_PLANS = ["*"];
/** `proxy-max-orders` without configuration. */
const DEFAULT_MAXIMUM = 50;

/** Configuration of `proxy-allowed-plans`. */
export interface AllowedPlansConfig {
  /** Plan ids an order may buy; a trailing `*` matches a prefix (`dc-us-*`). */
  plans: string[];
}

/** Configuration of `proxy-max-orders`. */
export interface MaxOrdersConfig {
  /** The most orders the stack may hold: one per ProxyOrder, `orders` per ProxyFleet. */
  maximum: number;
}

/** Whether the resource is a guarded order or fleet; `kind` says which. */
function kindOf(type: string): "order" | "fleet" | undefined {
  if ((GUARDED_TYPES.order as readonly string[]).includes(type)) return "order";
  if ((GUARDED_TYPES.fleet as readonly string[]).includes(type)) return "fleet";
  return undefined;
}

/** How a violation names a resource: its type's short name and its name. */
function named(args: GuardedResource): string {
  return `${kindOf(args.type) === "fleet" ? "ProxyFleet" : "ProxyOrder"} "${args.name}"`;
}

/** Whether `planId` matches an entry: equal, or starting with what stands before a trailing `*`. */
export function planAllowed(planId: string, plans: readonly string[]): boolean {
  return plans.some((entry) => (entry.endsWith("*") ? planId.startsWith(entry.slice(0, -1)) : planId === entry));
}

/** How many orders a resource holds; undefined while that is not known (a preview's unknown value). */
function ordersOf(args: GuardedResource): number | undefined {
  if (kindOf(args.type) === "order") return 1;
  const orders = args.props.orders;
  return typeof orders === "number" && Number.isFinite(orders) ? orders : undefined;
}

/** Every order's plan must match an entry of `plans`. */
export function allowedPlansPolicy(enforcementLevel: EnforcementLevel = "mandatory"): GuardPolicy {
  return {
    name: "proxy-allowed-plans",
    description: "Every ProxyOrder and ProxyFleet buys a plan the configuration allows (a trailing * matches a prefix).",
    enforcementLevel,
    configSchema: {
      properties: { plans: { type: "array", items: { type: "string", minLength: 1 }, default: DEFAULT_PLANS } },
    },
    validateResource(args, reportViolation) {
      if (!kindOf(args.type)) return;
      const planId = args.props.planId;
      if (typeof planId !== "string") return;
      const plans = args.getConfig<Partial<AllowedPlansConfig>>().plans ?? DEFAULT_PLANS;
      if (planAllowed(planId, plans)) return;
      reportViolation(
        `${named(args)} buys plan "${planId}", which proxy-allowed-plans does not allow (allowed: ${plans.join(", ") || "none"}). ` +
          `To allow it, add "${planId}" (or a prefix ending in *) to "plans" of proxy-allowed-plans in the policy config.`,
      );
    },
  };
}

/**
 * The stack holds at most `maximum` orders. Counted per analyzer process, that is per `pulumi preview` or `pulumi up`
 * phase, in the order the program registers its resources.
 */
export function maxOrdersPolicy(enforcementLevel: EnforcementLevel = "mandatory"): GuardPolicy {
  let counted = 0;
  return {
    name: "proxy-max-orders",
    description: "The stack holds at most `maximum` orders: one per ProxyOrder, `orders` per ProxyFleet.",
    enforcementLevel,
    configSchema: { properties: { maximum: { type: "integer", minimum: 0, default: DEFAULT_MAXIMUM } } },
    validateResource(args, reportViolation) {
      const orders = ordersOf(args);
      if (orders === undefined) return;
      const maximum = args.getConfig<Partial<MaxOrdersConfig>>().maximum ?? DEFAULT_MAXIMUM;
      if (counted + orders <= maximum) {
        counted += orders;
        return;
      }
      reportViolation(
        `${named(args)} would bring the stack to ${counted + orders} order(s), over the maximum of ${maximum} that ` +
          `proxy-max-orders allows (${counted} counted before it). To allow more, raise "maximum" of proxy-max-orders in ` +
          "the policy config; nothing of this resource is bought.",
      );
    },
  };
}

/** Every order and fleet renews before expiry. */
export function requireRenewalPolicy(enforcementLevel: EnforcementLevel = "advisory"): GuardPolicy {
  return {
    name: "proxy-require-renewal",
    description: "Every ProxyOrder and ProxyFleet sets renewBefore, so its proxies never lapse.",
    enforcementLevel,
    configSchema: { properties: {} },
    validateResource(args, reportViolation) {
      if (!kindOf(args.type)) return;
      const renewBefore = args.props.renewBefore;
      if (typeof renewBefore === "string" && renewBefore !== "") return;
      reportViolation(
        `${named(args)} sets no renewBefore, so its orders lapse at expiry; proxy-require-renewal asks for one. ` +
          'Set renewBefore (such as "3d"), or set proxy-require-renewal to "disabled" in the policy config.',
      );
    },
  };
}

/** The three policies of the spend guard, each at its default enforcement level. */
export function spendGuardPolicies(): GuardPolicy[] {
  return [allowedPlansPolicy(), maxOrdersPolicy(), requireRenewalPolicy()];
}
