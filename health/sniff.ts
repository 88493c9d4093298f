/**
 * The tunnel's first request, judged against the other protocol. A proxy that closes at it without a byte, or leaves a
 * SOCKS5 greeting unanswered, is asked again on a new connection, without credentials, and told by the first bytes of
 * its answer: a SOCKS5 server closes so at an HTTP request (pproxy, Dante), pproxy's HTTP server at a SOCKS5 greeting
 * and at a CONNECT it cannot carry out, and an HTTP proxy given a SOCKS5 greeting waits silently for the rest of a
 * request line (tinyproxy, squid, ncat, proxy.py).
 */
import type { Socket } from "node:net";
import { connectTo, type CheckSockets } from "./connection";
import { OtherProtocol, ProbeFailure } from "./failure";
import { SocketReader } from "./reader";
import { authorityOf, connectRequest, noCredentials, openTunnel, protocolOf, SOCKS5_GREETING, type ProxyProtocol, type TunnelTarget } from "./tunnel";
import type { ProxyToCheck } from "./types";

/** How long a SOCKS5 greeting goes unanswered before the proxy is asked in HTTP. */
const GREETING_GRACE_MS = 1_000;

/**
 * Opens the tunnel, or names what the proxy speaks instead: a proxy that answers the other protocol has a wrong
 * record; an HTTP proxy that closed at CONNECT with its credentials but answers CONNECT without them read the request
 * and got past the credentials, so it closed because it could not reach the target.
 */
export async function openTunnelOrName(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, socket: Socket, sockets: CheckSockets): Promise<void> {
  const silent = httpBehindSilentGreeting(proxy, target, reader, sockets);
  try {
    await Promise.race([openTunnel(proxy, target, reader, (bytes) => socket.write(bytes)), silent.found]);
  } catch (error) {
    if (!(error instanceof ProbeFailure && error.unanswered)) throw error;
    const spoken = protocolOf(proxy) ?? "http";
    const other: ProxyProtocol = spoken === "http" ? "socks5" : "http";
    if (await answersIn(other, proxy, target, sockets)) {
      throw new OtherProtocol(other, `the proxy closed the connection at its first request, and answers ${other}: the record's protocol is wrong, or the port is the proxy's ${other} port`);
    }
    if (spoken === "socks5" && proxy.username === undefined && (await askSocksGreeting(proxy, sockets))?.[1] === 2) {
      throw new ProbeFailure("credentials_rejected", noCredentials("SOCKS5: it closed the connection at a greeting without them, and picks them when offered"));
    }
    if (spoken === "http" && (await answersIn("http", proxy, target, sockets))) {
      throw new ProbeFailure("target_unreachable", "the proxy closed the connection at CONNECT with its credentials, and answers CONNECT without them: it could not reach the target (some proxies close instead of answering 502)");
    }
    if (spoken === "http") throw new ProbeFailure("closed", closedAtConnect(proxy));
    throw error;
  } finally {
    silent.stop();
  }
}

/**
 * An HTTP proxy that closes at every CONNECT, with the record's credentials or none, and does not speak SOCKS5: it
 * refuses by closing where others answer `407` or `403` (goproxy's rejection does so), so the message names both
 * readings.
 */
function closedAtConnect(proxy: ProxyToCheck): string {
  const readings =
    proxy.username === undefined
      ? "asks for credentials the record does not have, or refuses this address or target by its rules (check that the address Pulumi runs from is on the proxy's allow-list, then ask the vendor for credentials)"
      : "refuses the record's credentials, or refuses this address or target by its rules (check the credentials first, then the proxy's allow-list)";
  return `the proxy closed the connection without answering CONNECT, with the record's credentials or none, and does not speak SOCKS5: it ${readings}; it closes where others answer 407 or 403`;
}

/**
 * A SOCKS5 greeting unanswered after {@link GREETING_GRACE_MS} has the proxy asked in HTTP, with the record's
 * credentials (an HTTP proxy that refuses by closing, as goproxy does, answers no CONNECT without them): `found` rejects
 * with a protocol error if it answers, and never settles otherwise.
 */
function httpBehindSilentGreeting(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, sockets: CheckSockets) {
  let timer: NodeJS.Timeout | undefined;
  const found = new Promise<never>((_, reject) => {
    if (protocolOf(proxy) !== "socks5") return;
    timer = setTimeout(() => {
      if (reader.during !== SOCKS5_GREETING) return;
      void answersIn("http", proxy, target, sockets, { withCredentials: true }).then((http) => {
        if (http) reject(new OtherProtocol("http", "the proxy left the SOCKS5 greeting unanswered, and answers HTTP: the record's protocol is wrong, or the port is the proxy's http port"));
      });
    }, GREETING_GRACE_MS);
  });
  return { found, stop: () => clearTimeout(timer) };
}

/**
 * Whether the proxy answers `protocol`'s first request: a SOCKS5 greeting offering no authentication and
 * username/password (any SOCKS5 server answers it, even to refuse both), or a CONNECT to the target, without
 * credentials (answered `407` by a proxy that requires them) unless `withCredentials`. False when it does not, or
 * cannot be reached again.
 */
async function answersIn(protocol: ProxyProtocol, proxy: ProxyToCheck, target: TunnelTarget, sockets: CheckSockets, options: { withCredentials?: boolean } = {}): Promise<boolean> {
  if (protocol === "socks5") return (await askSocksGreeting(proxy, sockets))?.[0] === 5;
  try {
    const socket = await connectTo(proxy, sockets);
    const reader = new SocketReader(socket, { during: `asking in ${protocol}` });
    socket.write([...connectRequest(authorityOf(target), options.withCredentials ? proxy : {}), "", ""].join("\r\n"));
    return (await reader.bytes(5)).toString("latin1") === "HTTP/";
  } catch {
    return false;
  }
}

/**
 * The answer to a SOCKS5 greeting offering no authentication and username/password, on a new connection: a SOCKS5
 * server's version and the method it picks (2: it requires credentials), or what came of them before a close.
 * Undefined when nothing came within {@link GREETING_GRACE_MS} (a SOCKS5 server answers at once; an HTTP proxy waits
 * silently for the rest of a request line), or the proxy cannot be reached again.
 */
async function askSocksGreeting(proxy: ProxyToCheck, sockets: CheckSockets): Promise<Buffer | undefined> {
  let reader: SocketReader | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    const socket = await connectTo(proxy, sockets);
    timer = setTimeout(() => socket.destroy(), GREETING_GRACE_MS);
    reader = new SocketReader(socket, { during: "asking in socks5" });
    socket.write(Buffer.from([5, 2, 0, 2]));
    return await reader.bytes(2);
  } catch {
    const got = reader?.pending();
    return got && got.length > 0 ? got : undefined;
  } finally {
    clearTimeout(timer);
  }
}
