/**
 * `pulumi-proxy/policy`: the spend guard's policies, for a policy pack of your own. This module does not load
 * `@pulumi/policy`; pass the policies to its `PolicyPack`, as in `new PolicyPack("my-guard", { policies:
 * spendGuardPolicies() })` (README, "Guarding spend").
 */
export {
  allowedPlansPolicy,
  maxOrdersPolicy,
  requireRenewalPolicy,
  spendGuardPolicies,
  planAllowed,
  GUARDED_TYPES,
} from "./spend-guard";
export type { AllowedPlansConfig, EnforcementLevel, GuardedResource, GuardPolicy, MaxOrdersConfig } from "./spend-guard";
