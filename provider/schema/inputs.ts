/**
 * The inputs of ProxyOrder and ProxyFleet: their defaults, and their checks in zod, whose messages name the property and
 * what is allowed. definitions.ts attaches each check to its input; fields.ts runs them.
 */
import { z } from "zod";
import { IDEMPOTENCY_KEY_RULE, isValidIdempotencyKey } from "../../contract";
import { parseDuration } from "../shared/duration";
import type { InputCheck } from "./fields";
import { healthCheckProblem } from "./health-input";

/** The inputs that have a check. */
type CheckedInput =
  | "orders"
  | "planId"
  | "waitForReady"
  | "readyTimeout"
  | "idempotencyKey"
  | "adoptOrderId"
  | "renewBefore"
  | "healthCheck"
  | "replaceUnhealthy";

/** Input defaults (definitions.ts gives them to their inputs); the resources reference lists the same. */
export const INPUT_DEFAULTS = { waitForReady: true, readyTimeout: "20m" } as const;

/** The longest readyTimeout accepted. */
const MAX_READY_TIMEOUT_MS = 24 * 3_600_000;

const readyTimeoutReason = (value: unknown) =>
  `readyTimeout must be a duration such as "20m", "90s" or "1h30m", from 1s to 24h (got ${JSON.stringify(value)}).`;

/** The longest renewBefore accepted: a year, longer than any plan we know of. */
const MAX_RENEW_BEFORE_MS = 365 * 86_400_000;

const renewBeforeReason = (value: unknown) =>
  `renewBefore must be a duration such as "7d", "36h" or "2d12h", from 1s to 365d: how long before an order ` +
  `expires to buy its successor (got ${JSON.stringify(value)}). Leave it unset to renew nothing.`;

/** The most orders one ProxyFleet holds. */
export const MAX_FLEET_ORDERS = 1000;

const ordersReason = (value: unknown) =>
  `orders must be a whole number from 1 to ${MAX_FLEET_ORDERS}: how many orders of the plan the fleet holds ` +
  `(got ${JSON.stringify(value)}). For more, use several fleets.`;

const replaceUnhealthyReason = (value: unknown) =>
  `replaceUnhealthy must be a whole number from 1 to ${MAX_FLEET_ORDERS}: the most members replaced for their health in one ` +
  `\`pulumi up\` (got ${JSON.stringify(value)}). Leave it unset to replace none.`;

const PLAN_ID_REQUIRED = 'planId is required: the id of the plan to buy, such as "dc-us-5".';
const ADOPT_ORDER_ID_RULE =
  'adoptOrderId must be the id of an existing order, such as "ord_..." (the orderId output of the stack that bought it).';
const IDEMPOTENCY_KEY_REASON = `idempotencyKey must be ${IDEMPOTENCY_KEY_RULE}.`;

/** A duration from 1s to `maxMs`, refused with `reason` naming the value. */
function durationSchema(maxMs: number, reason: (value: unknown) => string) {
  return z.string({ error: (issue) => reason(issue.input) }).refine(
    (v) => {
      const ms = parseDuration(v);
      return ms !== undefined && ms > 0 && ms <= maxMs;
    },
    { error: (issue) => reason(issue.input) },
  );
}

/** The check of each input, one per property so that each failure names its property (definitions.ts uses them). */
export const INPUT_CHECKS: Readonly<Record<CheckedInput, InputCheck>> = {
  orders: z
    .number({ error: (issue) => ordersReason(issue.input) })
    .refine((v) => Number.isInteger(v) && v >= 1 && v <= MAX_FLEET_ORDERS, { error: (issue) => ordersReason(issue.input) }),
  planId: z
    .string({ error: PLAN_ID_REQUIRED })
    .refine((v) => v.trim() !== "", { error: PLAN_ID_REQUIRED })
    .refine((v) => v.length <= 128, { error: (issue) => `planId must be at most 128 characters (got ${String(issue.input).length}).` }),
  waitForReady: z.boolean({ error: "waitForReady must be true or false." }).optional(),
  readyTimeout: durationSchema(MAX_READY_TIMEOUT_MS, readyTimeoutReason).optional(),
  idempotencyKey: z.string({ error: IDEMPOTENCY_KEY_REASON }).refine(isValidIdempotencyKey, { error: IDEMPOTENCY_KEY_REASON }),
  adoptOrderId: z
    .string({ error: ADOPT_ORDER_ID_RULE })
    .refine((v) => v.trim() !== "" && v.length <= 255, { error: ADOPT_ORDER_ID_RULE })
    .nullish(),
  renewBefore: durationSchema(MAX_RENEW_BEFORE_MS, renewBeforeReason).nullish(),
  healthCheck: {
    safeParse(value) {
      const problem = healthCheckProblem(value);
      return problem ? { success: false, error: { issues: [{ message: problem.reason }] } } : { success: true };
    },
  },
  replaceUnhealthy: z
    .number({ error: (issue) => replaceUnhealthyReason(issue.input) })
    .refine((v) => Number.isInteger(v) && v >= 1 && v <= MAX_FLEET_ORDERS, { error: (issue) => replaceUnhealthyReason(issue.input) })
    .nullish(),
};
