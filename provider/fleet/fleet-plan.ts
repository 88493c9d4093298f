/**
 * What an `up` does to a fleet, decided from its members and inputs alone (no request): which slots buy (a new slot,
 * a member that failed, was cancelled, expired or is due for renewal), which resume waiting, which are no longer
 * tracked. `diff` shows the plan; `create` and `update` carry it out.
 */
import { isPendingState, isSpentState } from "../../contract";
import { PROXY_FLEET } from "../schema/definitions";
import { changedInputs } from "../schema/fields";
import { healthDue, ordersWithFailures } from "../schema/health-input";
import { memberPurchaseKey } from "../state/idempotency";
import type { FleetInputs, FleetMember, FleetOutputs } from "../state/fleet-state";
import { fleetShrinks, replacingFleet } from "../shared/messages";
import { UNKNOWN } from "../shared/pulumi-host";
import { assessExpiry, expiryMessage, replacesOrder, successorKey, type ExpiryAssessment } from "../state/renewal";

/** One thing an `up` does for one slot. */
export type MemberAction =
  /** Buy the slot's order: a new slot, or the successor of `replaces`, with the key derived for it. */
  | { kind: "buy"; slot: number; key: string; why: string; replaces?: FleetMember }
  /** Wait for a member recorded before it was ready. */
  | { kind: "resume"; member: FleetMember };

/** The plan of one `up`. */
export interface FleetPlan {
  actions: MemberAction[];
  /** Members above the new `orders`: no longer tracked (the orders stay with the account). */
  drops: FleetMember[];
  /** Warnings about members' expiry that change nothing (expiring soon, a refused window, no known expiry). */
  notices: string[];
}

/**
 * The plan for `members` under `inputs` at `now`. Members named in `elsewhere` live at another API than the configured
 * one (origin.ts): they keep their slots and nothing is done to them, neither a resumed wait, a renewal nor a
 * replacement. Active members named in `unhealthy` (a proxy failed the last check) are replaced, lowest slots first, up
 * to `replaceUnhealthy` when the fleet has a `healthCheck`.
 */
export function planFleet(
  members: FleetMember[],
  inputs: Omit<FleetInputs, "readyTimeout">,
  now: number,
  elsewhere: ReadonlySet<string> = new Set(),
  unhealthy: ReadonlySet<string> = new Set(),
): FleetPlan {
  const bySlot = new Map(members.map((m) => [m.slot, m]));
  const actions: MemberAction[] = [];
  let healthReplacements = inputs.healthCheck ? (inputs.replaceUnhealthy ?? 0) : 0;
  const quiet: Array<{ member: FleetMember; assessment: ExpiryAssessment }> = [];
  for (let slot = 0; slot < inputs.orders; slot++) {
    const member = bySlot.get(slot);
    if (!member) {
      actions.push({ kind: "buy", slot, key: memberPurchaseKey(inputs.idempotencyKey, slot), why: "new" });
      continue;
    }
    if (elsewhere.has(member.orderId)) continue;
    const predecessor = { ...member, idempotencyKey: memberPurchaseKey(inputs.idempotencyKey, slot) };
    if (isSpentState(member.status)) {
      actions.push({ kind: "buy", slot, key: successorKey(predecessor), why: `order ${member.orderId} ended "${member.status}"`, replaces: member });
      continue;
    }
    if (isPendingState(member.status)) {
      if (inputs.waitForReady) actions.push({ kind: "resume", member });
      continue;
    }
    const assessment = assessExpiry({ ...member, renewBefore: inputs.renewBefore }, now);
    if (replacesOrder(assessment)) {
      const why =
        assessment.kind === "due"
          ? `order ${member.orderId} expires at ${assessment.expiresAt}, within renewBefore (${inputs.renewBefore})`
          : `order ${member.orderId} expired at ${assessment.expiresAt}`;
      actions.push({ kind: "buy", slot, key: successorKey(predecessor), why, replaces: member });
    } else if (unhealthy.has(member.orderId) && healthReplacements > 0) {
      healthReplacements--;
      const why = `order ${member.orderId} has proxies that failed the last health check`;
      actions.push({ kind: "buy", slot, key: successorKey(predecessor), why, replaces: member });
    } else {
      quiet.push({ member, assessment });
    }
  }
  const drops = members.filter((m) => m.slot >= inputs.orders);
  return { actions, drops, notices: notices(quiet, inputs) };
}

/** A diff's decision for a fleet, and what it tells the user. */
export interface FleetChange {
  changes: boolean;
  replaces: string[];
  diffs: string[];
  /** Lines for the log, in order. */
  warnings: string[];
}

/**
 * A new plan replaces the fleet; anything else is an update that touches only the members that must change. The
 * preview says which members buy and why, and which are no longer tracked.
 */
export function planFleetChange(olds: FleetOutputs, news: FleetInputs, now: number, elsewhere: ReadonlySet<string> = new Set()): FleetChange {
  const updated = changedInputs(PROXY_FLEET, olds, news);
  if (news.planId !== olds.planId) {
    const orders = typeof news.orders === "number" ? news.orders : undefined;
    const warning = replacingFleet(orders, news.planId, news.planId === UNKNOWN, { orders: [...olds.members, ...(olds.retiring ?? [])], planId: olds.planId });
    return { changes: true, replaces: ["planId"], diffs: ["planId", ...updated], warnings: [warning] };
  }
  if ([news.orders, news.renewBefore, news.waitForReady, news.idempotencyKey, news.healthCheck, news.replaceUnhealthy].includes(UNKNOWN as never)) {
    return { changes: true, replaces: [], diffs: updated, warnings: [] };
  }
  const plan = planFleet(olds.members, news, now, elsewhere, ordersWithFailures(olds.health));
  const purchases = describePurchases(plan, news.planId);
  const warnings = [...plan.notices, ...(purchases ? [purchases] : [])];
  if (plan.drops.length > 0) warnings.push(fleetShrinks(olds.orders, news.orders, plan.drops));
  const members = plan.actions.length > 0 || plan.drops.length > 0 || (olds.retiring ?? []).length > 0;
  const checks = !members && healthDue(olds.members.some((m) => m.status === "active"), olds.health, news.healthCheck);
  const diffs = [...updated, ...(members ? ["members"] : []), ...(checks ? ["health"] : [])];
  return { changes: diffs.length > 0, replaces: [], diffs, warnings };
}

/** One line per kind of expiry warning, for the member that comes first, with how many more share it. */
function notices(quiet: Array<{ member: FleetMember; assessment: ExpiryAssessment }>, inputs: Pick<FleetInputs, "planId" | "renewBefore">): string[] {
  const lines: string[] = [];
  for (const kind of ["soon", "refused", "unknown"] as const) {
    const same = quiet.filter((q) => q.assessment.kind === kind);
    const first = same.reduce<(typeof same)[number] | undefined>(
      (a, b) => (a === undefined || leftOf(b.assessment) < leftOf(a.assessment) ? b : a),
      undefined,
    );
    if (!first) continue;
    const line = expiryMessage(first.member.orderId, inputs.planId, first.assessment, inputs.renewBefore);
    if (line) lines.push(same.length > 1 ? `${line} (${same.length - 1} more of the fleet's orders likewise)` : line);
  }
  return lines;
}

function leftOf(assessment: ExpiryAssessment): number {
  return "leftMs" in assessment ? assessment.leftMs : Number.POSITIVE_INFINITY;
}

/** The plan's purchases, said in one line: how many, and which slots why (the first ten). */
export function describePurchases(plan: FleetPlan, planId: string): string | undefined {
  const buys = plan.actions.filter((a): a is Extract<MemberAction, { kind: "buy" }> => a.kind === "buy");
  if (buys.length === 0) return undefined;
  const fresh = buys.filter((b) => b.why === "new").map((b) => b.slot);
  const reasons = buys.filter((b) => b.why !== "new").map((b) => `slot ${b.slot}: ${b.why}`);
  const parts = [...(fresh.length > 0 ? [`${fresh.length} new (slots ${ranges(fresh)})`] : []), ...reasons.slice(0, 10)];
  const more = reasons.length > 10 ? `; and ${reasons.length - 10} more` : "";
  return `proxy: this update buys ${buys.length} order(s) of plan ${planId} for the fleet: ${parts.join("; ")}${more}.`;
}

/** "0-4, 7, 9-10" for sorted slot numbers. */
function ranges(slots: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < slots.length; ) {
    let j = i;
    while (j + 1 < slots.length && slots[j + 1] === (slots[j] ?? 0) + 1) j++;
    out.push(i === j ? `${slots[i]}` : `${slots[i]}-${slots[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}
