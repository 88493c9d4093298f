/**
 * Renewal before expiry as the end-to-end tests drive it: orders that live two minutes in the sandbox, the scheduled
 * recipe's commands, and the counts that prove one purchase per renewal. The provider judges expiry by real time, so
 * the tests wait for the window to open (setup, not timing: every assertion is a count or a state).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { JsonSummary, PulumiProgram } from "./pulumi";
import type { StackUnderTest } from "./stack";

/** Orders live two minutes; renewal starts one minute before expiry, so the first minute is outside the window. */
export const LIFETIME_MS = 120_000;
export const RENEW_BEFORE = "60s";
const WINDOW_MS = 60_000;

/** Waits until the order that `expiresAt` belongs to is inside its renewal window. */
export async function untilWindowOpens(expiresAt: unknown): Promise<void> {
  const opens = Date.parse(String(expiresAt)) - WINDOW_MS;
  await sleep(Math.max(0, opens - Date.now() + 1000));
}

/**
 * The one replacement of the preview, with the reason the provider gave for it: through the plugin on the resource's
 * own row; a dynamic provider's messages can only reach the stack's.
 */
function expectOneRenewal(preview: JsonSummary, orderId: string, onResourceRow: boolean): void {
  expect(preview.changeSummary).toMatchObject({ replace: 1 });
  const replaced = (preview.steps ?? []).filter((s) => s.op === "replace");
  expect(replaced).toHaveLength(1);
  expect(replaced[0]?.replaceReasons).toEqual(["expiresAt"]);
  const reason = new RegExp(`order ${orderId} \\(plan dc-us-5\\) expires at \\S+, in \\S+, within renewBefore \\(${RENEW_BEFORE}\\)`);
  const said = (preview.diagnostics ?? []).filter((d) => reason.test(d.message));
  expect(said).toHaveLength(1);
  if (onResourceRow) expect(said[0]?.urn).toBe(replaced[0]?.urn);
}

/**
 * Buys, then runs the scheduled recipe's commands (README, examples/scheduled-renewal) before and inside the window:
 * the alert passes, then fails; `up --refresh` renews with one purchase and new outputs; then nothing changes.
 */
export async function buyThenRenew(stack: StackUnderTest, onResourceRow: boolean): Promise<Record<string, unknown>> {
  const { program, sandbox } = stack;
  await program.up();
  const first = await program.outputs();
  expect(sandbox.createdOrders).toHaveLength(1);
  expect(Date.parse(String(first.expiresAt))).toBeGreaterThan(Date.now());
  const alert = ["preview", "--refresh", "--expect-no-changes"];
  expect((await program.run(alert, { allowFailure: true })).code).toBe(0);

  await untilWindowOpens(first.expiresAt);
  expect((await program.run(alert, { allowFailure: true })).code).not.toBe(0);
  expectOneRenewal(await program.preview(), String(first.orderId), onResourceRow);
  await program.up("--refresh");
  expect(sandbox.createdOrders).toHaveLength(2);
  const renewed = await program.outputs();
  expect(renewed.orderId).toBe(sandbox.createdOrders[1]?.id);
  expect(Date.parse(String(renewed.expiresAt))).toBeGreaterThan(Date.parse(String(first.expiresAt)));
  expect(renewed.firstIp).not.toEqual(first.firstIp);
  expect(await orderIdsInState(program)).toEqual([renewed.orderId]);

  await program.up("--refresh");
  expect(sandbox.createdOrders).toHaveLength(2);
  return renewed;
}

/** The ids of the orders a stack's state holds. */
export async function orderIdsInState(program: PulumiProgram): Promise<unknown[]> {
  const { resources } = await program.exportState();
  return resources.filter((r) => r.type.endsWith("ProxyOrder")).map((r) => r.id);
}
