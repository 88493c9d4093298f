/**
 * Renewal before expiry as the end-to-end tests drive it: orders that live two minutes in the sandbox, the scheduled
 * recipe's commands, and the counts that prove one purchase per renewal. Time moves instead of being waited for: the
 * test moves the sandbox's clock and the provider processes' clock forward together (shiftedTime), so a renewal
 * window opens, or an order expires, at once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import type { Sandbox } from "../../sandbox";
import { REPO_ROOT, type JsonSummary, type PulumiProgram } from "./pulumi";
import type { StackUnderTest } from "./stack";

/** Orders live two minutes; renewal starts one minute before expiry, so the first minute is outside the window. */
export const LIFETIME_MS = 120_000;
export const RENEW_BEFORE = "60s";
const WINDOW_MS = 60_000;

/** Time as the sandbox and the stack's provider processes see it, moved forward by the test. */
export interface ShiftedTime {
  now(): number;
  /** Moves the sandbox's clock and that of the provider processes started from now on forward by `ms`. */
  advance(ms: number): void;
}

/**
 * Makes the program's provider processes (and the program's own) keep the sandbox's time: each preloads
 * test/fixtures/shifted-clock.cjs, which reads how far the test moved the clock. Through Node's NODE_OPTIONS, so it
 * reaches the dynamic provider and the plugin's executable alike; nothing in the provider knows of it.
 */
export function shiftedTime(program: PulumiProgram, sandbox: () => Sandbox): ShiftedTime {
  const file = join(mkdtempSync(join(tmpdir(), "pulumi-proxy-clock-")), "offset");
  let offset = 0;
  writeFileSync(file, "0");
  const preload = `--require ${join(REPO_ROOT, "test", "fixtures", "shifted-clock.cjs")}`;
  program.env.NODE_OPTIONS = [program.env.NODE_OPTIONS, preload].filter(Boolean).join(" ");
  program.env.PULUMI_PROXY_SHIFTED_CLOCK = file;
  return {
    now: () => Date.now() + offset,
    advance(ms) {
      sandbox().clock.advance(ms);
      offset += ms;
      writeFileSync(file, String(offset));
    },
  };
}

/** Moves time until the order that `expiresAt` belongs to is inside its renewal window. */
export function untilWindowOpens(time: ShiftedTime, expiresAt: unknown): void {
  const opens = Date.parse(String(expiresAt)) - WINDOW_MS;
  time.advance(Math.max(0, opens - time.now() + 1000));
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
export async function buyThenRenew(stack: StackUnderTest, time: ShiftedTime, onResourceRow: boolean): Promise<Record<string, unknown>> {
  const { program, sandbox } = stack;
  await program.up();
  const first = await program.outputs();
  expect(sandbox.createdOrders).toHaveLength(1);
  expect(Date.parse(String(first.expiresAt))).toBeGreaterThan(time.now());
  const alert = ["preview", "--refresh", "--expect-no-changes"];
  expect((await program.run(alert, { allowFailure: true })).code).toBe(0);

  untilWindowOpens(time, first.expiresAt);
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
