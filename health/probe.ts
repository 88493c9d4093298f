/**
 * The check of one proxy: connect to it, open a tunnel with its credentials to the target, speak TLS when the target is
 * `https`, request the target, and read its status and what it says of the caller; an `http` target that the proxy will
 * not tunnel to is asked of the proxy by its URL instead. One timeout bounds it all.
 */
import { isIP, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";
import { CheckSockets, connectTo } from "./connection";
import { exitOf, type Exit } from "./exit";
import { OtherProtocol, ProbeFailure, socketFailure, TunnelForbidden } from "./failure";
import { SocketReader } from "./reader";
import { openTunnelOrName } from "./sniff";
import { noCredentials, proxyAuthorization, SOCKS5_GREETING } from "./tunnel";
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
  const sockets = new CheckSockets();
  const stage: Stage = { during: "connecting" };
  if (signal?.aborted) return { ...named, healthy: false, failure: "timeout", message: STOPPED };
  let fail = () => {};
  let halt = () => {};
  const stop = new Promise<never>((_, reject) => {
    fail = () => reject(timedOut(timeoutMs, stage.during));
    halt = () => reject(new ProbeFailure("timeout", STOPPED));
  });
  const timer = setTimeout(fail, timeoutMs);
  signal?.addEventListener("abort", halt);
  // Whichever loses the race settles unheard.
  const work = exchange(proxy, target, sockets, stage, started);
  for (const promise of [stop, work]) promise.catch(() => undefined);
  try {
    const answer = await Promise.race([work, stop]);
    const failed = verdict(proxy, answer);
    return {
      ...named,
      healthy: failed === undefined,
      latencyMs: Math.round(answer.latencyMs),
      targetStatus: answer.status,
      ...(answer.exit.ip ? { exitIp: answer.exit.ip } : {}),
      ...(answer.exit.country ? { exitCountry: answer.exit.country } : {}),
      ...failed,
    };
  } catch (error) {
    const failure = error instanceof ProbeFailure ? error : socketFailure(error, "checking");
    return { ...named, healthy: false, failure: failure.kind, message: failure.message };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", halt);
    sockets.destroyAll();
  }
}

/**
 * The ISO 3166-1 code of a two-letter country code: `UK` (reserved by ISO for the United Kingdom, and what many proxy
 * vendors write) is `GB`, as geolocation services answer, and the EU's `EL` for Greece is `GR`.
 */
function isoCountry(code: string): string {
  return code === "UK" ? "GB" : code === "EL" ? "GR" : code;
}

/**
 * Why a proxy whose target answered is unhealthy, or undefined when it is not: a status of 400 or more, or an exit in
 * another country than its record's, when the target names one (the proxy answers, but was sold for elsewhere).
 */
function verdict(proxy: ProxyToCheck, answer: Answer): Pick<HealthResult, "failure" | "message"> | undefined {
  if (answer.status >= 400) return { failure: "target_status", message: `the target answered ${answer.status} through the proxy` };
  const sold = proxy.country?.toUpperCase();
  const exit = answer.exit.country;
  if (sold && exit && /^[A-Z]{2}$/.test(sold) && isoCountry(exit) !== isoCountry(sold)) {
    return { failure: "wrong_country", message: `the proxy exits in ${exit}, not in ${sold} as its record says` };
  }
  return undefined;
}

/** The message of a check its signal stopped: the caller's cancel, or its deadline. */
const STOPPED = "the check was stopped before the proxy answered (cancelled, or out of time)";

/** What the check is waiting for, for the message of a timeout. */
interface Stage {
  during: string;
}

/**
 * A timeout, named by what was awaited. An HTTP proxy given a SOCKS5 greeting waits silently for the rest of a request
 * line (tinyproxy, squid, ncat): the message says so, as nothing else can tell that proxy from a slow one.
 */
function timedOut(timeoutMs: number, during: string): ProbeFailure {
  const hint = during === SOCKS5_GREETING ? ": a slow proxy, or one that speaks HTTP and waits for more (check the record's protocol)" : "";
  return new ProbeFailure("timeout", `no answer within ${timeoutMs} ms (${during})${hint}`);
}

/** The target's answer through the proxy. */
interface Answer {
  status: number;
  latencyMs: number;
  exit: Exit;
}

/**
 * The exchange in the record's protocol. A record that names none (the seed's four fields) is tried in HTTP first, and
 * a proxy that shows it speaks SOCKS5 is then checked in SOCKS5, on a new connection: not having a protocol is no fault.
 * An HTTP proxy that refuses CONNECT to an `http` target by its rules is asked for the target as HTTP clients ask for
 * one ({@link forwarded}).
 */
async function exchange(proxy: ProxyToCheck, target: ProbeTarget, sockets: CheckSockets, stage: Stage, started: number): Promise<Answer> {
  try {
    return await exchangeIn(proxy, target, sockets, stage, started);
  } catch (error) {
    if (error instanceof TunnelForbidden && !target.tls) return forwarded(proxy, target, sockets, stage);
    if (proxy.protocol !== undefined || !(error instanceof OtherProtocol)) throw error;
    stage.during = "connecting again";
    return exchangeIn({ ...proxy, protocol: error.speaks }, target, sockets, stage, started);
  }
}

async function exchangeIn(proxy: ProxyToCheck, target: ProbeTarget, sockets: CheckSockets, stage: Stage, started: number): Promise<Answer> {
  const socket = await connectTo(proxy, sockets);
  const tunnelReader = new SocketReader(socket, stage);
  await openTunnelOrName(proxy, target, tunnelReader, socket, sockets);
  const { ahead } = tunnelReader.release();
  if (ahead.length > 0) throw new ProbeFailure("protocol_error", "the proxy sent bytes before the target could answer");
  let channel: Socket = socket;
  if (target.tls) {
    stage.during = "TLS with the target";
    // `host` is what the certificate is checked against (Node checks "localhost" without it); SNI takes names only.
    const tls = connectTls({ socket, host: target.host, servername: isIP(target.host) ? undefined : target.host, ALPNProtocols: ["http/1.1"] });
    sockets.add(tls);
    await new Promise<void>((resolve, reject) => {
      tls.once("secureConnect", resolve);
      tls.once("error", (error) => reject(new ProbeFailure("target_unreachable", `TLS with the target failed: ${(error as { code?: string }).code ?? error.message}`)));
    });
    channel = tls;
  } else {
    socket.resume();
  }
  return request(channel, target, stage, started);
}

/**
 * An `http` target asked for through the proxy with its URL in the request (RFC 9112, section 3.2.2), as curl and
 * browsers ask a proxy for one, after the proxy refused CONNECT to it by its rules: many allow CONNECT to port 443 alone
 * (squid's and tinyproxy's shipped configurations), and carry requests for `http` URLs. The proxy answers for the
 * target it could not reach, so a `5xx` (but `501` and `505`) has two readings, as does a second `403`; the latency is
 * this request's own.
 */
async function forwarded(proxy: ProxyToCheck, target: ProbeTarget, sockets: CheckSockets, stage: Stage): Promise<Answer> {
  stage.during = "connecting again";
  const started = performance.now();
  const socket = await connectTo(proxy, sockets);
  const answer = await request(socket, target, stage, started, proxy);
  const { status } = answer;
  if (status === 407) {
    throw new ProbeFailure("credentials_rejected", proxy.username === undefined ? noCredentials("407") : "the proxy refused its credentials (407) to a request for the target, after refusing it the tunnel (403)");
  }
  if (status === 403) {
    throw new ProbeFailure("target_unreachable", "the proxy refused the tunnel (403) and the request for the target (403): its rules do not allow this target or this source address");
  }
  if (status >= 500 && status !== 501 && status !== 505) {
    throw new ProbeFailure("target_unreachable", `the proxy could not reach the target, or the target failed (${status}, to a request for it after the proxy refused the tunnel)`);
  }
  return answer;
}

/**
 * Requests the target on `channel`: through the tunnel by its path, or of the proxy itself by its whole URL, with the
 * proxy's credentials, when `forwardBy` names the proxy.
 */
async function request(channel: Socket, target: ProbeTarget, stage: Stage, started: number, forwardBy?: ProxyToCheck): Promise<Answer> {
  const reader = new SocketReader(channel, stage);
  const path = `${target.url.pathname}${target.url.search}`;
  const lines = [
    `GET ${forwardBy ? `${target.url.origin}${path}` : path} HTTP/1.1`,
    `Host: ${target.url.host}`,
    ...(forwardBy ? proxyAuthorization(forwardBy) : []),
    "User-Agent: pulumi-proxy-health-check",
    "Accept: */*",
    "Connection: close",
  ];
  channel.write(`${lines.join("\r\n")}\r\n\r\n`);
  reader.during = forwardBy ? "waiting for the target's answer from the proxy" : "waiting for the target's answer through the proxy";
  let head: string;
  try {
    head = (await reader.through("\r\n\r\n", MAX_HEAD)).toString("latin1");
  } catch (error) {
    // Some proxies grant the tunnel before they reach the target, and close it when they cannot (pproxy's SOCKS5).
    if (error instanceof ProbeFailure && error.kind === "closed" && reader.pending().length === 0) {
      const closed = forwardBy ? "the proxy closed the connection" : "the tunnel closed";
      throw new ProbeFailure("target_unreachable", `${closed} before the target answered: the proxy could not reach the target, or the target closed the connection`);
    }
    throw error;
  }
  const latencyMs = performance.now() - started;
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (!Number.isFinite(status)) throw new ProbeFailure("protocol_error", "the target's answer through the proxy is not HTTP");
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? NaN);
  const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i.test(head);
  const raw = Number.isFinite(length) ? await reader.bytes(Math.min(length, MAX_BODY)) : await reader.rest(MAX_BODY);
  const body = chunked ? dechunk(raw) : raw;
  return { status, latencyMs, exit: exitOf(body.toString("utf8")) };
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
