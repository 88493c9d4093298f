/**
 * The check of one proxy: connect to it, open a tunnel with its credentials to the target, speak TLS when the target is
 * `https`, request the target, and read its status and what it says of the caller. One timeout bounds it all.
 */
import { connect as connectTcp, isIP, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { exitIpOf } from "./exit-ip";
import { ProbeFailure, socketFailure } from "./failure";
import { SocketReader } from "./reader";
import { openTunnel } from "./tunnel";
import type { HealthResult, ProxyToCheck } from "./types";

/** The longest answer head, and the most of a body read for the caller's address. */
const MAX_HEAD = 32_768;
const MAX_BODY = 65_536;

/** The target, parsed once for every proxy. */
export interface ProbeTarget {
  url: URL;
  host: string;
  port: number;
  tls: boolean;
}

/** The target URL as a check uses it; a URL that is not `http` or `https` is refused. */
export function probeTarget(target: string): ProbeTarget {
  const url = new URL(target);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the target must be an http or https URL (got ${url.protocol})`);
  const tls = url.protocol === "https:";
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return { url, host, port: Number(url.port || (tls ? 443 : 80)), tls };
}

/** Checks one proxy within `timeoutMs` (or until `signal` aborts). */
export async function probeProxy(proxy: ProxyToCheck, target: ProbeTarget, timeoutMs: number, signal?: AbortSignal): Promise<HealthResult> {
  const named = { ip: proxy.ip, port: proxy.port, ...(proxy.id ? { id: proxy.id } : {}), ...(proxy.orderId ? { orderId: proxy.orderId } : {}) };
  const started = performance.now();
  const sockets: Socket[] = [];
  let fail = () => {};
  const stop = new Promise<never>((_, reject) => (fail = () => reject(new ProbeFailure("timeout", `no answer within ${timeoutMs} ms`))));
  const timer = setTimeout(fail, timeoutMs);
  signal?.addEventListener("abort", fail);
  // Whichever loses the race settles unheard.
  const work = exchange(proxy, target, sockets, started);
  for (const promise of [stop, work]) promise.catch(() => undefined);
  try {
    const answer = await Promise.race([work, stop]);
    const healthy = answer.status < 400;
    return {
      ...named,
      healthy,
      latencyMs: Math.round(answer.latencyMs),
      targetStatus: answer.status,
      ...(answer.exitIp ? { exitIp: answer.exitIp } : {}),
      ...(healthy ? {} : { failure: "target_status" as const, message: `the target answered ${answer.status} through the proxy` }),
    };
  } catch (error) {
    const failure = error instanceof ProbeFailure ? error : socketFailure(error, "checking");
    return { ...named, healthy: false, failure: failure.kind, message: failure.message };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", fail);
    for (const socket of sockets) socket.destroy();
  }
}

/** The target's answer through the proxy. */
interface Answer {
  status: number;
  latencyMs: number;
  exitIp?: string;
}

async function exchange(proxy: ProxyToCheck, target: ProbeTarget, sockets: Socket[], started: number): Promise<Answer> {
  const socket = connectTcp({ host: proxy.ip, port: proxy.port, family: isIP(proxy.ip) || undefined });
  sockets.push(socket);
  const tunnelReader = new SocketReader(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", (error) => reject(socketFailure(error, "connecting")));
  });
  await openTunnel(proxy, target, tunnelReader, (bytes) => socket.write(bytes));
  const { ahead } = tunnelReader.release();
  if (ahead.length > 0) throw new ProbeFailure("protocol_error", "the proxy sent bytes before the target could answer");
  let channel: Socket = socket;
  if (target.tls) {
    // `host` is what the certificate is checked against (Node checks "localhost" without it); SNI takes names only.
    const tls = connectTls({ socket, host: target.host, servername: isIP(target.host) ? undefined : target.host, ALPNProtocols: ["http/1.1"] });
    sockets.push(tls);
    await new Promise<void>((resolve, reject) => {
      tls.once("secureConnect", resolve);
      tls.once("error", (error) => reject(new ProbeFailure("target_unreachable", `TLS with the target failed: ${(error as { code?: string }).code ?? error.message}`)));
    });
    channel = tls;
  } else {
    socket.resume();
  }
  return request(channel, target, started);
}

async function request(channel: Socket, target: ProbeTarget, started: number): Promise<Answer> {
  const reader = new SocketReader(channel);
  const path = `${target.url.pathname}${target.url.search}`;
  channel.write(`GET ${path} HTTP/1.1\r\nHost: ${target.url.host}\r\nUser-Agent: pulumi-proxy-health-check\r\nAccept: */*\r\nConnection: close\r\n\r\n`);
  reader.during = "waiting for the target's answer through the proxy";
  const head = (await reader.through("\r\n\r\n", MAX_HEAD)).toString("latin1");
  const latencyMs = performance.now() - started;
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (!Number.isFinite(status)) throw new ProbeFailure("protocol_error", "the target's answer through the proxy is not HTTP");
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
  const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(head);
  const raw = Number.isFinite(length) ? await reader.bytes(Math.min(length, MAX_BODY)) : await reader.rest(MAX_BODY);
  const body = chunked ? dechunk(raw) : raw;
  const exitIp = exitIpOf(body.toString("utf8"));
  return { status, latencyMs, ...(exitIp ? { exitIp } : {}) };
}

/** The body of a chunked answer (as much of it as was read). */
function dechunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < raw.length) {
    const lineEnd = raw.indexOf("\r\n", at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}
