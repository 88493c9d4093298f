/**
 * What a proxy that closed at the tunnel's first request, without a byte, does speak: asked again on a new connection,
 * without credentials, and told by the first bytes of its answer. A SOCKS5 server closes so at an HTTP request
 * (pproxy, Dante), pproxy's HTTP server at a SOCKS5 greeting, and pproxy's HTTP server at a CONNECT it cannot carry out.
 */
import { connectTo, type CheckSockets } from "./connection";
import { SocketReader } from "./reader";
import { authorityOf, type TunnelTarget } from "./tunnel";
import type { ProxyToCheck } from "./types";

/** The protocols a proxy is asked in. */
export type ProxyProtocol = "http" | "socks5";

/**
 * Whether the proxy answers `protocol`'s first request: a SOCKS5 greeting offering no authentication and
 * username/password (any SOCKS5 server answers it, even to refuse both), or a CONNECT to the target without credentials
 * (answered `407` by a proxy that requires them). False when it does not, or cannot be reached again.
 */
export async function answersIn(protocol: ProxyProtocol, proxy: ProxyToCheck, target: TunnelTarget, sockets: CheckSockets): Promise<boolean> {
  try {
    const socket = await connectTo(proxy, sockets);
    const reader = new SocketReader(socket, { during: `asking in ${protocol}` });
    if (protocol === "socks5") {
      socket.write(Buffer.from([5, 2, 0, 2]));
      return (await reader.bytes(1))[0] === 5;
    }
    const authority = authorityOf(target);
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    return (await reader.bytes(5)).toString("latin1") === "HTTP/";
  } catch {
    return false;
  }
}
