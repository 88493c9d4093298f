/**
 * What the purchases' outcomes become for a fleet, decided without calling anything: its members after its actions
 * ran, the lines to log and the problems that make it partial. fleet-provider.ts raises and logs them.
 */
import { isTargetState } from "../../contract";
import { memberOf, proxiesOf, type FleetMember, type OrderProxies } from "../state/fleet-state";
import type { MemberAction } from "./fleet-plan";
import { fleetUnfinished, memberReplaced } from "../shared/messages";
import type { OrderOrigin } from "../state/origin";
import type { PurchaseOutcome } from "../api/purchase";
import { PartialOrderError, partialProperties, type WithProvider } from "../shared/pulumi-host";

/** Problems listed in a partial fleet's message before "and N more". */
const LISTED_PROBLEMS = 5;

/** What one member's action came to: an outcome, or the error of a purchase that produced no order. */
export interface MemberResult {
  action: MemberAction;
  outcome?: PurchaseOutcome;
  error?: unknown;
}

/** A fleet's members after its actions, and what to say about them. */
export interface SettledFleet {
  members: FleetMember[];
  retiring: FleetMember[];
  /** One line per member that is not ready (`slot N: why`). */
  problems: string[];
  /** Lines for the log: members replaced and no longer tracked. */
  said: string[];
}

/**
 * The members after the actions ran on `held` (the stored members still in range) and `retiring`. A slot whose
 * purchase produced no order keeps what it had; a failed successor leaves the order it would replace in place (the
 * next up tries again, by a derived key); a failed new member is recorded, so the next up replaces it alone; a
 * renewed member whose successor is not ready yet is kept as retiring. Proxies of the orders seen go into `known`; every
 * order an action bought or read lives at `origin`, the API the actions ran on.
 */
export function settleFleet(
  held: FleetMember[],
  retiring: FleetMember[],
  results: MemberResult[],
  known: Map<string, OrderProxies>,
  origin: OrderOrigin,
): SettledFleet {
  const bySlot = new Map(held.map((m) => [m.slot, m]));
  const stillRetiring = [...retiring];
  const problems: string[] = [];
  const said: string[] = [];
  for (const { action, outcome, error } of results) {
    const slot = action.kind === "buy" ? action.slot : action.member.slot;
    const old = bySlot.get(slot);
    if (!outcome) {
      problems.push(`slot ${slot}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const { order, purchaseKey: key } = outcome;
    known.set(order.id, proxiesOf(order));
    const member = memberOf(slot, order, key, origin);
    if (outcome.kind === "failed") {
      problems.push(`slot ${slot}: ${outcome.error.message}`);
      if (!old || action.kind === "resume") bySlot.set(slot, member);
      continue;
    }
    if (outcome.kind === "unfinished") problems.push(`slot ${slot}: ${outcome.reason}`);
    if (old && action.kind === "buy") {
      if (outcome.kind === "unfinished" && isTargetState(old.status)) stillRetiring.push(old);
      else said.push(memberReplaced(old.orderId, slot, order.id));
    }
    bySlot.set(slot, member);
  }
  // An order being renewed leaves once its successor is ready.
  const kept = stillRetiring.filter((r) => {
    const successor = bySlot.get(r.slot);
    const done = successor !== undefined && successor.orderId !== r.orderId && isTargetState(successor.status);
    if (done) said.push(memberReplaced(r.orderId, r.slot, successor.orderId));
    return !done;
  });
  return { members: [...bySlot.values()], retiring: kept, problems, said };
}

/** The partial error of a fleet with problems, recorded with the outputs it holds. */
export function partialFleet(
  id: string,
  problems: string[],
  orders: number,
  outs: { members: FleetMember[] },
  inputs: WithProvider<object>,
): PartialOrderError {
  const ready = outs.members.filter((m) => isTargetState(m.status)).length;
  const message = fleetUnfinished(problems, LISTED_PROBLEMS, orders, outs.members.length, ready);
  return new PartialOrderError(message, id, partialProperties(outs, inputs));
}
