/**
 * Health checks through proxy servers nobody here wrote (test/helpers/real-proxies.ts), with the real CLI, from a
 * JavaScript program: a ProxyFleet of one-proxy orders whose records the sandbox points at the real servers, checked
 * by the fleet's healthCheck in the provider's process and by getProxyHealthOutput in the program's. The cases of
 * each server are judged in test/integration/real-proxies.test.ts; here the whole path: state, outputs, warnings.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRealProxies, type RealProxies } from "../helpers/real-proxies";
import { useStack } from "../helpers/stack";

let real: RealProxies | undefined;
let echo: Server | undefined;
let echoUrl = "";

beforeAll(async () => {
  real = await startRealProxies();
  echo = createServer((req, res) => res.end(JSON.stringify({ ip: req.socket.remoteAddress, country: "US" })));
  await new Promise<void>((resolve) => echo?.listen(0, "127.0.0.1", resolve));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/ip`;
}, 180_000);

afterAll(async () => {
  await new Promise((resolve) => echo?.close(resolve));
  await real?.stop();
});

describe("a ProxyFleet's health check through real proxy servers (real CLI)", () => {
  const stack = useStack("test/e2e/programs/health-fleet", { stack: "real-proxies", sandbox: { provisioningMs: 500 } });

  it("finds every server healthy through its own credentials, names the one given a wrong password, and keeps every password out of the state", async () => {
    const { program, sandbox } = stack;
    const servers = real?.proxies ?? [];
    await program.config("target", echoUrl);
    await program.config("orders", String(servers.length));
    // The sandbox's own proxies are not served: the first check finds none, and nothing asks for a minimum.
    await program.up();
    const orders = [...sandbox.state.orders.values()];
    expect(orders).toHaveLength(servers.length);
    // Each order's one proxy becomes one real server, the last with a password it refuses.
    orders.forEach((order, i) => {
      const server = servers[i];
      const proxy = order.proxies[0];
      if (!server || !proxy) throw new Error("an order without its proxy");
      const password = i === orders.length - 1 ? "not-the-password" : server.password;
      Object.assign(proxy, { ip: "127.0.0.1", port: server.port, protocol: server.protocol, username: server.username, password });
    });

    const refreshed = await program.up("--refresh");
    const last = orders[orders.length - 1]?.proxies[0];
    const warning = (refreshed.diagnostics ?? []).map((d) => d.message).join("\n");
    expect(warning).toContain(`${servers.length - 1} of ${servers.length} proxies of fleet`);
    expect(warning).toContain(`127.0.0.1:${last?.port} (order ${orders[orders.length - 1]?.id}): credentials_rejected`);
    expect(await program.outputs()).toMatchObject({
      healthy: servers.length - 1,
      total: servers.length,
      failed: [orders[orders.length - 1]?.id],
      functionHealthy: servers.length - 1,
      functionTotal: servers.length,
    });
    const state = (await program.exportState()).text;
    for (const server of servers) expect(state).not.toContain(server.password);
    expect(sandbox.createdOrders).toHaveLength(servers.length);
    await program.destroy();
  }, 600_000);
});
