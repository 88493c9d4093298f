/**
 * The health check through real proxies: the sandbox's served listeners (HTTP CONNECT and SOCKS5 on loopback, each
 * requiring its own credentials) and its echo target, in each condition the sandbox can put a proxy in.
 */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProxyRecord } from "../../contract/types";
import { checkProxies, type ProxyToCheck } from "../../health";
import { freePort } from "../helpers/ports";
import { REPO_ROOT } from "../helpers/pulumi";
import { activeOrder, useSandbox } from "../helpers/sandbox";

// A slow proxy answers well past the checks' timeout, and a healthy one well within it, on a busy machine too.
const sandbox = useSandbox({ serveProxies: { slowMs: 8_000 } });

/** The proxies of a new active order of `planId`, with their credentials. */
async function proxiesOf(planId: string): Promise<ProxyRecord[]> {
  const client = sandbox.client();
  const { order } = await client.createOrder({ planId, idempotencyKey: `health-${planId}-${Math.random()}` });
  await activeOrder(sandbox.current, client, order.id);
  return (await client.getOrder(order.id)).order.proxies ?? [];
}

function target(): string {
  const serving = sandbox.current.proxies;
  if (!serving) throw new Error("the sandbox serves no proxies");
  return serving.echoUrl;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

describe("checking proxies through themselves", () => {
  it("reaches the echo target through HTTP and SOCKS5 proxies with their credentials, and reports the exit address", async () => {
    const proxies = [...(await proxiesOf("dc-us-5")), ...(await proxiesOf("mobile-fr-1"))];
    expect(proxies.map((p) => p.protocol)).toEqual(["http", "http", "http", "http", "http", "socks5"]);
    const report = await checkProxies(proxies, { target: target(), timeoutMs: 5_000 });
    expect(report).toMatchObject({ target: target(), healthy: 6, total: 6 });
    for (const [i, result] of report.results.entries()) {
      expect(result).toMatchObject({ ip: "127.0.0.1", port: proxies[i]?.port, id: proxies[i]?.id, orderId: proxies[i]?.orderId, healthy: true, targetStatus: 200, exitIp: "127.0.0.1", exitCountry: proxies[i]?.country });
      expect(result.latencyMs).toBeGreaterThanOrEqual(0);
      expect(result.failure).toBeUndefined();
    }
    const text = JSON.stringify(report);
    for (const p of proxies) {
      expect(text).not.toContain(p.password);
      expect(text).not.toContain(p.username);
    }
  });

  it("names each failure: dead (refused), refused credentials, slow past the timeout, wrong password", async () => {
    const serving = sandbox.current.proxies;
    const http = await proxiesOf("dc-us-5");
    const socks = await proxiesOf("res-us-10");
    const [dead, bad, slow, wrong, fine] = http as [ProxyRecord, ProxyRecord, ProxyRecord, ProxyRecord, ProxyRecord];
    const [socksDead, socksBad, socksSlow, socksWrong] = socks as [ProxyRecord, ProxyRecord, ProxyRecord, ProxyRecord];
    for (const p of [dead, socksDead]) await serving?.setCondition(p.id ?? "", "dead");
    for (const p of [bad, socksBad]) await serving?.setCondition(p.id ?? "", "bad-credentials");
    for (const p of [slow, socksSlow]) await serving?.setCondition(p.id ?? "", "slow");
    const checked: ProxyToCheck[] = [dead, bad, slow, { ...wrong, password: "not-it" }, fine, socksDead, socksBad, socksSlow, { ...socksWrong, password: "not-it" }];
    const report = await checkProxies(checked, { target: target(), timeoutMs: 2_000 });
    expect(report.results.map((r) => r.failure ?? "healthy")).toEqual([
      "refused",
      "credentials_rejected",
      "timeout",
      "credentials_rejected",
      "healthy",
      "refused",
      "credentials_rejected",
      "timeout",
      "credentials_rejected",
    ]);
    expect(report).toMatchObject({ healthy: 1, total: 9 });
    expect(JSON.stringify(report)).not.toContain("not-it");
    // A dead proxy that answers again is healthy again, on the same port.
    await serving?.setCondition(dead.id ?? "", "ok");
    expect((await checkProxies([dead], { target: target() })).results[0]).toMatchObject({ healthy: true, port: dead.port });
  });

  it("holds each proxy to the country it was sold for, when the target names one: the exit elsewhere is unhealthy", async () => {
    const serving = sandbox.current.proxies;
    const [http, httpElsewhere] = (await proxiesOf("dc-us-5")) as [ProxyRecord, ProxyRecord];
    const [socks] = (await proxiesOf("mobile-fr-1")) as [ProxyRecord];
    for (const p of [httpElsewhere, socks]) await serving?.setCondition(p.id ?? "", "wrong-country");
    const report = await checkProxies([http, httpElsewhere, socks], { target: target() });
    expect(report.results.map((r) => [r.healthy, r.failure, r.exitCountry])).toEqual([
      [true, undefined, "US"],
      [false, "wrong_country", "DE"],
      [false, "wrong_country", "DE"],
    ]);
    expect(report.results[1]?.message).toBe("the proxy exits in DE, not in US as its record says");
    expect(report.results[2]?.message).toBe("the proxy exits in DE, not in FR as its record says");
    // A record that names no country is held to none.
    const unsold = await checkProxies([{ ...httpElsewhere, country: undefined }], { target: target() });
    expect(unsold.results[0]).toMatchObject({ healthy: true, exitCountry: "DE" });
    // Sold as "UK", as many vendors write the United Kingdom: geolocation answers its ISO code, GB.
    const [british] = (await proxiesOf("isp-gb-2")) as [ProxyRecord];
    const sold = await checkProxies([{ ...british, country: "UK" }, { ...british, country: "uk" }, { ...british, country: "IE" }], { target: target() });
    expect(sold.results.map((r) => [r.healthy, r.exitCountry])).toEqual([[true, "GB"], [true, "GB"], [false, "GB"]]);
  });

  it("tells a target the proxy cannot reach from a dead proxy, in both protocols", async () => {
    const [http] = await proxiesOf("dc-us-5");
    const [socks] = await proxiesOf("mobile-fr-1");
    const port = await freePort();
    const closed = await checkProxies([http as ProxyRecord, socks as ProxyRecord], { target: `http://127.0.0.1:${port}/` });
    expect(closed.results.map((r) => r.failure)).toEqual(["target_unreachable", "target_unreachable"]);
    // The sandbox's proxies carry nothing off the machine.
    const away = await checkProxies([http as ProxyRecord, socks as ProxyRecord], { target: "http://192.0.2.1/" });
    expect(away.results.map((r) => r.failure)).toEqual(["target_unreachable", "target_unreachable"]);
  });

  it("reports a target's error status as unhealthy, and a protocol it does not speak", async () => {
    const [proxy] = (await proxiesOf("dc-us-5")) as [ProxyRecord];
    const server = createServer((socket) => socket.once("data", () => socket.end("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"))).listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((resolve) => server.once("listening", resolve));
    const notFound = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const report = await checkProxies([proxy, { ...proxy, protocol: "quic" }], { target: notFound });
    expect(report.results[0]).toMatchObject({ healthy: false, failure: "target_status", targetStatus: 404 });
    expect(report.results[1]).toMatchObject({ healthy: false, failure: "unsupported_protocol" });
  });

  it("speaks SOCKS5 to a record that names socks5h (names resolved at the proxy, as the check always has them)", async () => {
    const [socks] = (await proxiesOf("mobile-fr-1")) as [ProxyRecord];
    const report = await checkProxies([{ ...socks, protocol: "socks5h" }, { ...socks, protocol: "SOCKS5H" }], { target: target() });
    expect(report.results.map((r) => r.healthy)).toEqual([true, true]);
  });

  it("checks at most `concurrency` proxies at once", async () => {
    let open = 0;
    let most = 0;
    // A proxy that holds each connection long enough for the checks under way to overlap, then closes it: only the
    // count of connections matters here.
    const server = createServer((socket) => {
      most = Math.max(most, ++open);
      socket.on("error", () => undefined);
      setTimeout(() => {
        open--;
        socket.destroy();
      }, 300);
    }).listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as AddressInfo;
    const proxies = Array.from({ length: 12 }, () => ({ ip: "127.0.0.1", port, protocol: "http", username: "u", password: "p" }));
    const report = await checkProxies(proxies, { target: "http://127.0.0.1:9/", concurrency: 3, timeoutMs: 2_000 });
    expect(report.results.map((r) => r.failure)).toEqual(Array(12).fill("closed"));
    expect(most).toBe(3);
  });

  it("refuses a target that is not an http or https URL before checking anything", async () => {
    await expect(checkProxies([], { target: "ftp://example.test/" })).rejects.toThrow(/http or https/);
  });
});

describe("an https target, through the tunnel", () => {
  let dir = "";
  let url = "";
  const https = createHttpsServer();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pulumi-proxy-tls-"));
    const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" });
    https.setSecureContext({ key: readFileSync(key), cert: readFileSync(cert) });
    https.on("request", (req, res) => res.end(JSON.stringify({ ip: req.socket.remoteAddress })));
    await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(https.address() as AddressInfo).port}/ip`;
  });
  afterAll(async () => {
    await new Promise((resolve) => https.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a certificate it cannot verify, naming TLS", async () => {
    const [http] = await proxiesOf("dc-us-5");
    const [socks] = await proxiesOf("mobile-fr-1");
    const report = await checkProxies([http as ProxyRecord, socks as ProxyRecord], { target: url });
    for (const result of report.results) expect(result).toMatchObject({ healthy: false, failure: "target_unreachable", message: expect.stringMatching(/^TLS with the target failed/) });
  });

  it("speaks TLS to a target it trusts, in both protocols (the built checker, in a process that trusts the certificate)", async () => {
    const proxies = [...(await proxiesOf("dc-us-5")).slice(0, 1), ...(await proxiesOf("mobile-fr-1"))];
    const script = `require(${JSON.stringify(join(REPO_ROOT, "dist", "health", "index.js"))}).checkProxies(JSON.parse(process.argv[1]), { target: process.argv[2] }).then((r) => console.log(JSON.stringify(r)))`;
    // Not execFileSync: the sandbox's proxies answer from this process.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script, JSON.stringify(proxies), url], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, "cert.pem") },
      encoding: "utf8",
    });
    const report = JSON.parse(stdout) as { healthy: number; results: unknown[] };
    expect(report.results).toEqual([expect.objectContaining({ healthy: true }), expect.objectContaining({ healthy: true })]);
    expect(report.healthy).toBe(2);
    for (const result of report.results) expect(result).toMatchObject({ healthy: true, targetStatus: 200, exitIp: "127.0.0.1" });
  });
});
