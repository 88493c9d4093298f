/**
 * The sandbox's admin routes under `/__sandbox/` (only with `enableAdmin`): fault injection, the clock, the settings of
 * new orders and the records, for tests and demos that drive a sandbox in another process. They need the sandbox's
 * full API key.
 */
import type { FailFault } from "./faults";
import { parseMaybe, Problem } from "./http";
import { PROXY_CONDITIONS, type ProxyCondition } from "./proxy-serving";
import type { Sandbox } from "./sandbox";

/** Answers one admin request. */
export async function handleAdmin(
  method: string,
  path: string,
  body: string,
  sandbox: Omit<Sandbox, "url" | "port" | "stop">,
): Promise<{ status: number; body: unknown }> {
  const input = (parseMaybe(body) ?? {}) as Record<string, unknown>;
  const proxy = /^\/__sandbox\/proxies\/([^/]+)$/.exec(path);
  if (method === "POST" && proxy) return setProxyCondition(decodeURIComponent(proxy[1] ?? ""), input.condition, sandbox);
  if (method === "POST" && path === "/__sandbox/faults") {
    if (input.clear === true) sandbox.faults.clear();
    if (input.failNext) sandbox.faults.failNext(input.failNext as FailFault);
    if (typeof input.resetAfterCommit === "number") sandbox.faults.resetAfterCommit = input.resetAfterCommit;
    if (typeof input.delayMs === "number") sandbox.faults.delayMs = input.delayMs;
    if (typeof input.notFoundReadsForNewOrders === "number") {
      sandbox.faults.notFoundReadsForNewOrders = input.notFoundReadsForNewOrders;
    }
    if (typeof input.failNewOrders === "number") sandbox.faults.failNewOrders = input.failNewOrders;
    return { status: 200, body: { ok: true } };
  }
  if (method === "POST" && path === "/__sandbox/clock") {
    if (typeof input.advanceMs !== "number" || !(input.advanceMs >= 0)) {
      throw new Problem(400, "Send { \"advanceMs\": <milliseconds, 0 or more> }: the sandbox's time only moves forward.");
    }
    sandbox.clock.advance(input.advanceMs);
    return { status: 200, body: { now: new Date(sandbox.clock.now()).toISOString() } };
  }
  if (method === "POST" && path === "/__sandbox/settings") {
    const number = (name: string): number | undefined => {
      const value = input[name];
      if (value === undefined) return undefined;
      if (typeof value !== "number" || !(value >= 0)) throw new Problem(400, `${name} must be a number of milliseconds, 0 or more.`);
      return value;
    };
    const provisioningMs = number("provisioningMs");
    const orderLifetimeMs = number("orderLifetimeMs");
    if (provisioningMs !== undefined) sandbox.settings.provisioningMs = provisioningMs;
    if (orderLifetimeMs !== undefined) sandbox.settings.orderLifetimeMs = orderLifetimeMs;
    return { status: 200, body: { ...sandbox.settings } };
  }
  if (method === "POST" && path === "/__sandbox/reset") {
    sandbox.reset();
    return { status: 200, body: { ok: true } };
  }
  const status = /^\/__sandbox\/orders\/([^/]+)\/status$/.exec(path);
  if (method === "GET" && status) {
    const id = decodeURIComponent(status[1] ?? "");
    const current = sandbox.orderStatus(id);
    if (current === undefined) throw new Problem(404, `No order has the id "${id}".`);
    return { status: 200, body: { id, status: current } };
  }
  if (method === "GET" && path === "/__sandbox/requests") {
    return { status: 200, body: { data: sandbox.requests } };
  }
  if (method === "GET" && path === "/__sandbox/orders") {
    return { status: 200, body: { data: sandbox.createdOrders } };
  }
  const cancel = /^\/__sandbox\/orders\/([^/]+)\/cancel$/.exec(path);
  if (method === "POST" && cancel) {
    sandbox.cancelOrder(decodeURIComponent(cancel[1] ?? ""));
    return { status: 200, body: { ok: true } };
  }
  const remove = /^\/__sandbox\/orders\/([^/]+)$/.exec(path);
  if (method === "DELETE" && remove) {
    sandbox.removeOrder(decodeURIComponent(remove[1] ?? ""));
    return { status: 200, body: { ok: true } };
  }
  throw new Problem(404, `No admin route ${method} ${path}.`);
}

/** `POST /__sandbox/proxies/{id}` with `{ "condition": "dead" }`: what a served proxy does from now on. */
async function setProxyCondition(id: string, condition: unknown, sandbox: Omit<Sandbox, "url" | "port" | "stop">) {
  if (!sandbox.proxies) throw new Problem(409, "The sandbox does not serve its proxies: start it with serveProxies (--serve-proxies).");
  if (typeof condition !== "string" || !PROXY_CONDITIONS.includes(condition as ProxyCondition)) {
    throw new Problem(400, `Send { "condition": ${PROXY_CONDITIONS.map((c) => `"${c}"`).join(" | ")} }.`);
  }
  try {
    await sandbox.proxies.setCondition(id, condition as ProxyCondition);
  } catch (error) {
    throw new Problem(404, error instanceof Error ? error.message : String(error));
  }
  return { status: 200, body: { id, condition } };
}
