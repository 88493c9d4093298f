/**
 * Starts a sandbox on a free loopback port for one test file, and builds clients for it.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { ProxyApiClient } from "../../client/client";
import type { ClientOptions } from "../../client/request";
import { Accounts } from "../../provider/api/account";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../sandbox";

/** A sandbox for the current file, reset before each test. Read `.current` inside tests. */
export function useSandbox(options: SandboxOptions = {}): { current: Sandbox; client(extra?: Partial<ClientOptions>): ProxyApiClient } {
  const holder = {} as { current: Sandbox; client(extra?: Partial<ClientOptions>): ProxyApiClient };
  beforeAll(async () => {
    holder.current = await startSandbox({ provisioningMs: 300, ...options });
  });
  beforeEach(() => {
    holder.current.reset();
  });
  afterAll(async () => {
    await holder.current.stop();
    // Every answer of the file's tests kept the contract (sandbox/answer-check.ts).
    expect(holder.current.contractViolations).toEqual([]);
  });
  holder.client = (extra = {}) =>
    new ProxyApiClient({
      baseUrl: holder.current.url,
      apiKey: holder.current.apiKey,
      initialRetryDelayMs: 10,
      maxRetryDelayMs: 50,
      ...extra,
    });
  return holder;
}

/** Moves the sandbox's clock past provisioning, so the order is active without waiting, and checks that it is. */
export async function activeOrder(sandbox: Sandbox, client: ProxyApiClient, id: string): Promise<void> {
  sandbox.clock.advance(60_000);
  const { status } = (await client.getOrder(id)).order;
  if (status !== "active") throw new Error(`order ${id} is ${status}, not active`);
}

/**
 * One provider process per test: cores made with `.current` share its accounts (account.ts), and nothing a test
 * learned (a rate, a listing, a tally) carries over to the next.
 */
export function accountsPerTest(): { readonly current: Accounts } {
  const holder = { current: new Accounts() };
  beforeEach(() => {
    holder.current = new Accounts();
  });
  return holder;
}

/**
 * The provider's clock on the sandbox's time: each pause (a poll's, a 404's re-read, a back-off, a wait for the rate
 * limit) moves the sandbox forward instead of waiting.
 */
export function sandboxClock(sandbox: () => Sandbox) {
  return {
    now: () => sandbox().clock.now(),
    sleep: async (ms: number) => sandbox().clock.advance(ms),
  };
}

/** Resolves once the sandbox has sold `count` orders (to stop a CLI at a known point). */
export async function sold(sandbox: Sandbox, count: number): Promise<void> {
  while (sandbox.createdOrders.length < count) await sleep(100);
}
