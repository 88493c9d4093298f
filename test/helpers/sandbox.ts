/**
 * Starts a sandbox on a free loopback port for one test file, and builds clients for it.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { ProxyApiClient } from "../../client/client";
import type { ClientOptions } from "../../client/request";
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

/** Polls until the order is active (the sandbox's clock is real). */
export async function activeOrder(client: ProxyApiClient, id: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await client.getOrder(id)).order.status === "active") return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`order ${id} did not become active`);
}
