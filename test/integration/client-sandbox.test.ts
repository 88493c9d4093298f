import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { ProxyApiClient } from "../../client/client";
import {
  AuthenticationError,
  ConnectionError,
  IdempotencyError,
  InsufficientBalanceError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PlanNotFoundError,
  ServerError,
  UnexpectedResponseError,
} from "../../client/errors";
import { waitForOrder } from "../../provider/api/wait";
import { SANDBOX_READ_ONLY_API_KEY, startSandbox } from "../../sandbox";
import { MINIMAL_USAGE as USAGE } from "../helpers/contract-records";
import { REPO_ROOT } from "../helpers/pulumi";
import { activeOrder, sandboxClock, useSandbox } from "../helpers/sandbox";

const sandbox = useSandbox();

describe("client against the sandbox", () => {
  it("buys, waits, lists the order's proxies and reads usage", async () => {
    const client = sandbox.client();
    const { order, replayed } = await client.createOrder({ planId: "dc-us-5", idempotencyKey: "happy-1" });
    expect(replayed).toBe(false);
    expect(order.status).toBe("pending");
    await activeOrder(sandbox.current, client, order.id);
    const { order: active } = await client.getOrder(order.id);
    expect(active.proxies).toHaveLength(5);
    expect(active.readyAt).toBeTruthy();
    const proxies = await client.listProxies({ orderId: order.id });
    expect(proxies.map((p) => p.ip).sort()).toEqual(active.proxies?.map((p) => p.ip).sort());
    expect(proxies[0]).toMatchObject({ type: "datacenter", country: "US", protocol: "http", orderId: order.id });
    expect(proxies[0]?.password).toMatch(/^[0-9a-f]{24}$/);
    const usage = await client.getUsage();
    expect(usage.bandwidth.usedBytes).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(usage.bandwidth.usedBytes)).toBe(true);
    expect(usage.requests.limit).toBeNull();
  });

  it("filters by type and country and pages through 250 proxies by cursor", async () => {
    const client = sandbox.client();
    const { order } = await client.createOrder({ planId: "dc-us-250", idempotencyKey: "pages-1" });
    await activeOrder(sandbox.current, client, order.id);
    sandbox.current.requests.length = 0;
    const proxies = await client.listProxies({ orderId: order.id, pageSize: 100 });
    expect(proxies).toHaveLength(250);
    expect(new Set(proxies.map((p) => p.id)).size).toBe(250);
    const pages = sandbox.current.requests.filter((r) => r.path === "/v1/proxies");
    expect(pages.map((r) => Boolean(r.query.cursor))).toEqual([false, true, true]);
    expect(await client.listProxies({ type: "mobile", country: ["FR"], orderId: order.id })).toEqual([]);
  });

  it("retries a 503 with Retry-After and succeeds (the sandbox saw both attempts)", async () => {
    sandbox.current.faults.failNext({ count: 1, status: 503, retryAfterSeconds: 0, pathPrefix: "/v1/usage" });
    await sandbox.client().getUsage();
    expect(sandbox.current.requests.map((r) => r.status)).toEqual([503, 200]);
  });

  it("gives up after maxAttempts on a lasting 500", async () => {
    sandbox.current.faults.failNext({ count: 10, status: 500, pathPrefix: "/v1/usage" });
    await expect(sandbox.client({ maxAttempts: 3 }).getUsage()).rejects.toBeInstanceOf(ServerError);
    expect(sandbox.current.requests).toHaveLength(3);
  });

  it("buys once when the connection resets after the order was committed", async () => {
    sandbox.current.faults.resetAfterCommit = 1;
    const { order, replayed } = await sandbox.client().createOrder({ planId: "isp-gb-2", idempotencyKey: "reset-1" });
    expect(replayed).toBe(true);
    expect(sandbox.current.createdOrders).toEqual([{ id: order.id, idempotencyKey: "reset-1" }]);
    const posts = sandbox.current.requests.filter((r) => r.method === "POST");
    expect(posts.map((r) => [r.status, r.idempotencyKey])).toEqual([
      [0, "reset-1"],
      [200, "reset-1"],
    ]);
  });

  it("buys once when two requests race with one key (409 in flight, then replay)", async () => {
    // A sandbox of its own with no rate limit: the race is about the key, and the file's shared sandbox may have no
    // requests left in its bucket after the tests before (a 429 would hold both requests until one had committed).
    const own = await startSandbox({ provisioningMs: 300, rateLimit: false });
    try {
      const client = new ProxyApiClient({ baseUrl: own.url, apiKey: own.apiKey, initialRetryDelayMs: 10, maxRetryDelayMs: 50 });
      // The key has answered once: before that, the budget lets one request go alone.
      await client.getUsage();
      own.faults.delayMs = 200;
      const [a, b] = await Promise.all([
        client.createOrder({ planId: "dc-us-5", idempotencyKey: "race-1" }),
        new Promise((r) => setTimeout(r, 50)).then(() => client.createOrder({ planId: "dc-us-5", idempotencyKey: "race-1" })),
      ]);
      expect(a.order.id).toBe(b.order.id);
      expect(own.createdOrders).toHaveLength(1);
      expect(own.requests.some((r) => r.status === 409)).toBe(true);
      expect(own.contractViolations).toEqual([]);
    } finally {
      await own.stop();
    }
  });

  it("times out waiting for headers from a slow server", async () => {
    // undici checks its timeouts about once a second, so the delay must be well past that.
    sandbox.current.faults.delayMs = 2500;
    const error = await sandbox.client({ headersTimeoutMs: 100, maxAttempts: 1 }).getUsage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe("UND_ERR_HEADERS_TIMEOUT");
  });

  it("tolerates the read-after-write burst of 404s while waiting", async () => {
    sandbox.current.faults.notFoundReadsForNewOrders = 2;
    const clock = sandboxClock(() => sandbox.current);
    const client = sandbox.client({ clock });
    const { order } = await client.createOrder({ planId: "dc-us-5", idempotencyKey: "burst-1" });
    const active = await waitForOrder({ client, orderId: order.id, deadline: clock.now() + 10_000 });
    expect(active.status).toBe("active");
    const reads = sandbox.current.requests.filter((r) => r.path === `/v1/orders/${order.id}`);
    expect(reads.slice(0, 2).map((r) => r.status)).toEqual([404, 404]);
  });

  it("reports a removed order as NotFoundError", async () => {
    const client = sandbox.client();
    const { order } = await client.createOrder({ planId: "dc-us-5", idempotencyKey: "gone-1" });
    sandbox.current.removeOrder(order.id);
    await expect(client.getOrder(order.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it("maps the sandbox's refusals to typed errors, and buys nothing", async () => {
    const client = sandbox.client();
    await expect(client.createOrder({ planId: "no-such-plan", idempotencyKey: "r1" })).rejects.toBeInstanceOf(PlanNotFoundError);
    await expect(client.createOrder({ planId: "dedicated-enterprise", idempotencyKey: "r2" })).rejects.toBeInstanceOf(
      InsufficientBalanceError,
    );
    await expect(client.listProxies({ pageSize: 5000 })).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(client.listProxies({ type: "satellite" })).rejects.toBeInstanceOf(InvalidRequestError);
    await client.createOrder({ planId: "dc-us-5", idempotencyKey: "r3" });
    await expect(client.createOrder({ planId: "isp-gb-2", idempotencyKey: "r3" })).rejects.toBeInstanceOf(IdempotencyError);
    await expect(client.createOrder({ planId: "dc-us-5", idempotencyKey: "x".repeat(256) })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    expect(sandbox.current.createdOrders).toHaveLength(1);
  });

  it("answers 401 to a wrong key and 403 to a read-only key's purchase", async () => {
    const wrong = sandbox.client({ apiKey: "sk_wrong_key_123" });
    const error = (await wrong.getUsage().catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).not.toContain("sk_wrong_key_123");
    const readOnly = sandbox.client({ apiKey: SANDBOX_READ_ONLY_API_KEY });
    await readOnly.getUsage();
    await expect(readOnly.createOrder({ planId: "dc-us-5", idempotencyKey: "ro" })).rejects.toBeInstanceOf(PermissionError);
  });
});

describe("sandbox limits and persistence", () => {
  it("limits each key with a token bucket: RateLimit hints on every answer, Retry-After on a 429", async () => {
    const limited = await startSandbox({ rateLimit: { requestsPerSecond: 2, burst: 2 } });
    try {
      const get = () => fetch(`${limited.url}/v1/usage`, { headers: { authorization: `Bearer ${limited.apiKey}` } });
      const answers = [await get(), await get(), await get()];
      expect(answers.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(answers.map((r) => r.headers.get("ratelimit-remaining"))).toEqual(["1", "0", "0"]);
      expect(answers.every((r) => r.headers.get("ratelimit-limit") === "2")).toBe(true);
      expect(answers[1]!.headers.get("ratelimit-reset")).toBe("1");
      expect(answers[2]!.headers.get("retry-after")).toBe("1");
    } finally {
      await limited.stop();
    }
  });

  it("the client keeps under the limit by its hints: many calls at once, no 429", async () => {
    const limited = await startSandbox({ rateLimit: { requestsPerSecond: 4, burst: 2 } });
    const client = new ProxyApiClient({ baseUrl: limited.url, apiKey: limited.apiKey });
    try {
      await Promise.all(Array.from({ length: 8 }, () => client.getUsage()));
      expect(limited.requests.map((r) => r.status)).toEqual(Array(8).fill(200));
    } finally {
      await limited.stop();
    }
  });

  it("keeps orders and idempotency keys across a restart with a state file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-state-"));
    const stateFile = join(dir, "state.json");
    try {
      const first = await startSandbox({ stateFile, provisioningMs: 100 });
      const c1 = new ProxyApiClient({ baseUrl: first.url, apiKey: first.apiKey });
      const { order } = await c1.createOrder({ planId: "dc-us-5", idempotencyKey: "persist-1" });
      await first.stop();

      const second = await startSandbox({ stateFile, provisioningMs: 100 });
      const c2 = new ProxyApiClient({ baseUrl: second.url, apiKey: second.apiKey });
      await activeOrder(second, c2, order.id);
      const replay = await c2.createOrder({ planId: "dc-us-5", idempotencyKey: "persist-1" });
      expect(replay).toMatchObject({ replayed: true, order: { id: order.id, status: "active" } });
      expect(second.createdOrders).toHaveLength(0);
      await second.stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an API behind a TLS certificate Node does not trust (an organisation's own authority)", () => {
  it("fails naming NODE_EXTRA_CA_CERTS, and works in a process that trusts the authority through it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pulumi-proxy-api-tls-"));
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    const api = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(USAGE));
    });
    await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
    const baseUrl = `https://127.0.0.1:${(api.address() as AddressInfo).port}`;
    try {
      const client = new ProxyApiClient({ baseUrl, apiKey: "k", maxAttempts: 1 });
      const error = (await client.getUsage().catch((e: unknown) => e)) as ConnectionError;
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error.code).toBe("DEPTH_ZERO_SELF_SIGNED_CERT");
      expect(error.message).toMatch(/TLS certificate is not one Node trusts\. .*point NODE_EXTRA_CA_CERTS at that authority's PEM file/);
      const script = `new (require(${JSON.stringify(join(REPO_ROOT, "dist", "client", "index.js"))}).ProxyApiClient)({ baseUrl: process.argv[1], apiKey: "k" }).getUsage().then((u) => console.log(JSON.stringify(u)))`;
      const { stdout } = await promisify(execFile)(process.execPath, ["-e", script, baseUrl], { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert }, encoding: "utf8" });
      expect(JSON.parse(stdout)).toMatchObject({ asOf: USAGE.as_of, requests: { used: 0, limit: null } });
    } finally {
      await new Promise((resolve) => api.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an API that compresses its answers", () => {
  /** A server answering every request with `body` encoded by `encode`, under `Content-Encoding: coding`; records what it was asked to accept. */
  async function compressing(coding: string, encode: (raw: Buffer) => Buffer, body: unknown = USAGE) {
    const accepted: Array<string | undefined> = [];
    const server = createHttpServer((req, res) => {
      accepted.push(req.headers["accept-encoding"]);
      res.writeHead(200, { "content-type": "application/json", "content-encoding": coding }).end(encode(Buffer.from(JSON.stringify(body))));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = new ProxyApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "k", maxAttempts: 1, maxResponseBytes: 64 * 1024 });
    return { client, accepted, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
    ["gzip, br", (raw: Buffer) => brotliCompressSync(gzipSync(raw))],
  ])("reads a body in %s, having said it accepts it", async (coding, encode) => {
    const api = await compressing(coding, encode);
    try {
      expect(await api.client.getUsage()).toMatchObject({ asOf: USAGE.as_of });
      expect(api.accepted).toEqual(["gzip, deflate, br"]);
    } finally {
      await api.close();
    }
  });

  it("reads a body that starts with a byte-order mark (as .NET and some Java servers write it), compressed or not", async () => {
    const marked = (raw: Buffer) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), raw]);
    for (const [coding, encode] of [["identity", marked], ["gzip", (raw: Buffer) => gzipSync(marked(raw))]] as const) {
      const api = await compressing(coding, encode);
      try {
        expect(await api.client.getUsage()).toMatchObject({ asOf: USAGE.as_of });
      } finally {
        await api.close();
      }
    }
  });

  it("takes a compressed body cut off by the connection as no answer (to retry), not as a broken coding", async () => {
    const server = createHttpServer((_, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.write(gzipSync(Buffer.from(JSON.stringify({ ...USAGE, padding: "x".repeat(100_000) }))).subarray(0, 200), () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const client = new ProxyApiClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "k", maxAttempts: 1 });
      const error = await client.getUsage().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).not.toBeInstanceOf(UnexpectedResponseError);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses a coding it does not decode, a broken one, and a small body that decodes past maxResponseBytes, each naming why", async () => {
    const cases: Array<[string, (raw: Buffer) => Buffer, unknown, RegExp]> = [
      ["zstd", (raw) => raw, USAGE, /Content-Encoding "zstd" is not one this provider decodes/],
      ["gzip", (raw) => raw.subarray(0, 10), USAGE, /gzip body could not be decoded/],
      ["gzip", gzipSync, { ...USAGE, padding: "x".repeat(1024 * 1024) }, /a body over 65536 bytes/],
    ];
    for (const [coding, encode, body, says] of cases) {
      const api = await compressing(coding, encode, body);
      try {
        const error = (await api.client.getUsage().catch((e: unknown) => e)) as UnexpectedResponseError;
        expect(error).toBeInstanceOf(UnexpectedResponseError);
        expect(error.message).toMatch(says);
      } finally {
        await api.close();
      }
    }
  });
});
