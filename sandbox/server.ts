/**
 * The local sandbox of the Proxy Provisioning API: a node:http server implementing docs/api-contract.md. This module
 * assembles a sandbox and listens; each request goes through exchange.ts, which routes the API to routes.ts and the
 * test-only admin routes to admin.ts.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClock } from "./clock";
import { Exchange, type Running } from "./exchange";
import { Faults } from "./faults";
import { Problem } from "./http";
import { ProxyListeners } from "./proxy-serving";
import { RateLimiter } from "./rate-limit";
import { SANDBOX_API_KEY, SANDBOX_READ_ONLY_API_KEY, type Sandbox, type SandboxOptions, type SandboxSettings } from "./sandbox";
import { SandboxState } from "./state";
import { orderStatus } from "./views";

/** Starts a sandbox and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const running = assemble(options);
  const { listeners } = running;
  if (listeners) {
    await listeners.start();
    // After a restart from a state file, the orders kept are served again (on their ports, when those are free).
    await listeners.serve([...running.sandbox.state.orders.values()].flatMap((order) => order.proxies));
    running.sandbox.state.save();
  }
  const server = createServer((req, res) => void new Exchange(req, res, running).run());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    ...running.sandbox,
    url: `http://${host}:${address.port}`,
    port: address.port,
    stop: async () => {
      await listeners?.stop();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** The sandbox's account, clock, rate limit, faults and records, and what a test does with them. */
function assemble(options: SandboxOptions): Running {
  const settings: SandboxSettings = { provisioningMs: options.provisioningMs ?? 3000, orderLifetimeMs: options.orderLifetimeMs };
  const clock = createClock(options.now);
  const state = new SandboxState(options.stateFile, options.records);
  const faults = new Faults();
  const limiter = options.rateLimit === false ? undefined : new RateLimiter(options.rateLimit ?? { requestsPerSecond: 10 }, clock.now);
  const serving = options.serveProxies;
  const listeners = serving ? new ProxyListeners(serving === true ? {} : serving) : undefined;
  const sandbox: Omit<Sandbox, "url" | "port" | "stop"> = {
    apiKey: options.apiKey ?? SANDBOX_API_KEY,
    faults,
    state,
    clock,
    settings,
    requests: [],
    createdOrders: [],
    contractViolations: [],
    proxies: listeners,
    cancelOrder(id) {
      const order = state.orders.get(id);
      if (!order) throw new Problem(404, `No order has the id "${id}".`);
      order.cancelledAt = clock.now();
      state.save();
    },
    removeOrder(id) {
      state.orders.delete(id);
      state.save();
    },
    orderStatus(id) {
      const order = state.orders.get(id);
      return order && orderStatus(order, clock.now());
    },
    reset() {
      faults.clear();
      settings.provisioningMs = options.provisioningMs ?? 3000;
      settings.orderLifetimeMs = options.orderLifetimeMs;
      sandbox.requests.length = 0;
      sandbox.createdOrders.length = 0;
      state.reset();
      limiter?.reset();
      void listeners?.clear();
    },
  };
  return { options, sandbox, limiter, listeners, readOnlyApiKey: options.readOnlyApiKey ?? SANDBOX_READ_ONLY_API_KEY };
}
