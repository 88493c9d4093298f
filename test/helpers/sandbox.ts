/**
 * Starts a sandbox on a free loopback port for one test file, and builds clients for it.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { ProxyApiClient } from "../../provider/api/client";
import type { ClientOptions } from "../../provider/api/request";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../sandbox";

/** A sandbox for the current file, reset before each test. Read `.current` inside tests. */
export function useSandbox(options: SandboxOptions = {}): { current: Sandbox; client(extra?: Partial<ClientOptions>): ProxyApiClient } {
  const holder = {} as { current: Sandbox; client(extra?: Partial<ClientOptions>): ProxyApiClient };
  const clients: ProxyApiClient[] = [];
  beforeAll(async () => {
    holder.current = await startSandbox({ provisioningMs: 300, ...options });
  });
  beforeEach(() => {
    holder.current.faults.clear();
    holder.current.requests.length = 0;
    holder.current.createdOrders.length = 0;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await holder.current.stop();
  });
  holder.client = (extra = {}) => {
    const client = new ProxyApiClient({
      baseUrl: holder.current.url,
      apiKey: holder.current.apiKey,
      initialRetryDelayMs: 10,
      maxRetryDelayMs: 50,
      ...extra,
    });
    clients.push(client);
    return client;
  };
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
