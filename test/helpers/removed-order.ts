/**
 * The operator removes an order (its reads and its key's replay answer 404); the stack is repaired as a user would:
 * refresh, an `up` killed (SIGKILL) while the order in its place is provisioning, another `up`, a quiet preview.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import { sold } from "./sandbox";
import type { StackUnderTest } from "./stack";

/** Removes `victim` as the operator would, then repairs the stack as a user would; `held` reads the ids the state holds. */
export async function removeThenRepair(stack: StackUnderTest, victim: string, held: () => Promise<unknown[]>): Promise<void> {
  const { program, sandbox } = stack;
  const bought = sandbox.createdOrders.length;
  sandbox.removeOrder(victim);
  await program.refresh();
  expect(await held()).not.toContain(victim);

  // The purchase in its place takes 20 s to be ready; the CLI is killed while it waits.
  sandbox.settings.provisioningMs = 20_000;
  await program.upKilled(sold(sandbox, bought + 1).then(() => sleep(2000)));
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
  await program.run(["cancel", "--yes"], { allowFailure: true });
  sandbox.settings.provisioningMs = 1000;

  await program.up();
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
  const successor = sandbox.createdOrders[bought]?.id;
  expect(await held()).toContain(successor);
  await program.preview("--expect-no-changes");
  expect(sandbox.createdOrders).toHaveLength(bought + 1);
}

