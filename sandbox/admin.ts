/**
 * The sandbox's admin routes under `/__sandbox/` (only with `enableAdmin`): fault injection, the clock, the settings of
 * new orders and the records, for tests and demos that drive a sandbox in another process. They need the sandbox's
 * full API key.
 */
import type { FailFault } from "./faults";
import { parseMaybe, Problem } from "./http";
import { PROXY_CONDITIONS, type ProxyCondition } from "./proxy-serving";
import type { Sandbox } from "./sandbox";

type AdminSandbox = Omit<Sandbox, "url" | "port" | "stop">;
type AdminAnswer = { status: number; body: unknown };

/** Answers one admin request: a change of the sandbox's behaviour, or a look at its records. */
export async function handleAdmin(method: string, path: string, body: string, sandbox: AdminSandbox): Promise<AdminAnswer> {
  const input = (parseMaybe(body) ?? {}) as Record<string, unknown>;
  const answer = method === "GET" ? records(path, sandbox) : await change(method, path, input, sandbox);
  if (answer) return answer;
  throw new Problem(404, `No admin route ${method} ${path}.`);
}

/** The routes that change what the sandbox does: faults, the clock, settings, a reset, proxies and orders. */
async function change(method: string, path: string, input: Record<string, unknown>, sandbox: AdminSandbox): Promise<AdminAnswer | undefined> {
  const proxy = /^\/__sandbox\/proxies\/([^/]+)$/.exec(path);
  if (method === "POST" && proxy) return setProxyCondition(decodeURIComponent(proxy[1] ?? ""), input.condition, sandbox);
  if (method === "POST" && path === "/__sandbox/faults") return setFaults(input, sandbox);
  if (method === "POST" && path === "/__sandbox/clock") {
    if (typeof input.advanceMs !== "number" || !(input.advanceMs >= 0)) {
      throw new Problem(400, "Send { \"advanceMs\": <milliseconds, 0 or more> }: the sandbox's time only moves forward.");
    }
    sandbox.clock.advance(input.advanceMs);
    return { status: 200, body: { now: new Date(sandbox.clock.now()).toISOString() } };
  }
  if (method === "POST" && path === "/__sandbox/settings") return setSettings(input, sandbox);
  if (method === "POST" && path === "/__sandbox/reset") {
    sandbox.reset();
    return { status: 200, body: { ok: true } };
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
  return undefined;
}

/** The routes that read the sandbox's records: an order's status, the requests seen, the orders sold. */
function records(path: string, sandbox: AdminSandbox): AdminAnswer | undefined {
  const status = /^\/__sandbox\/orders\/([^/]+)\/status$/.exec(path);
  if (status) {
    const id = decodeURIComponent(status[1] ?? "");
    const current = sandbox.orderStatus(id);
    if (current === undefined) throw new Problem(404, `No order has the id "${id}".`);
    return { status: 200, body: { id, status: current } };
  }
  if (path === "/__sandbox/requests") return { status: 200, body: { data: sandbox.requests } };
  if (path === "/__sandbox/orders") return { status: 200, body: { data: sandbox.createdOrders } };
  return undefined;
}

/** `POST /__sandbox/faults`: clears them, or sets those the body names. */
function setFaults(input: Record<string, unknown>, sandbox: AdminSandbox): AdminAnswer {
  if (input.clear === true) sandbox.faults.clear();
  if (input.failNext) sandbox.faults.failNext(input.failNext as FailFault);
  if (typeof input.resetAfterCommit === "number") sandbox.faults.resetAfterCommit = input.resetAfterCommit;
  if (typeof input.delayMs === "number") sandbox.faults.delayMs = input.delayMs;
  if (typeof input.notFoundReadsForNewOrders === "number") sandbox.faults.notFoundReadsForNewOrders = input.notFoundReadsForNewOrders;
  if (typeof input.failNewOrders === "number") sandbox.faults.failNewOrders = input.failNewOrders;
  return { status: 200, body: { ok: true } };
}

/** `POST /__sandbox/settings`: the provisioning time and lifetime of new orders. */
function setSettings(input: Record<string, unknown>, sandbox: AdminSandbox): AdminAnswer {
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

/** `POST /__sandbox/proxies/{id}` with `{ "condition": "dead" }`: what a served proxy does from now on. */
async function setProxyCondition(id: string, condition: unknown, sandbox: AdminSandbox) {
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
