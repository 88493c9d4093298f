/**
 * A tunnel through a proxy to the target's host and port: HTTP `CONNECT` (RFC 9110, section 9.3.6) with Basic
 * credentials, or SOCKS5 (RFC 1928) with username and password (RFC 1929). Either ends with the proxy's socket carrying
 * the target's bytes.
 */
import { isIP } from "node:net";
import { ProbeFailure } from "./failure";
import type { SocketReader } from "./reader";
import type { ProxyToCheck } from "./types";

/** Where the tunnel goes. */
export interface TunnelTarget {
  host: string;
  port: number;
}

/** The longest CONNECT answer head read. */
const MAX_HEAD = 16_384;

/** Opens the tunnel on a connected socket (written with `write`, read with `reader`) by the proxy's protocol. */
export async function openTunnel(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const protocol = (proxy.protocol ?? "http").toLowerCase();
  if (protocol === "http" || protocol === "https") return httpConnect(proxy, target, reader, write);
  if (protocol === "socks5") return socks5Connect(proxy, target, reader, write);
  throw new ProbeFailure("unsupported_protocol", `the proxy's protocol "${protocol}" is neither http nor socks5`);
}

async function httpConnect(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const authority = `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (proxy.username !== undefined) {
    lines.push(`Proxy-Authorization: Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ""}`).toString("base64")}`);
  }
  write(Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"));
  reader.during = "waiting for the proxy's answer to CONNECT";
  const head = (await reader.through("\r\n\r\n", MAX_HEAD)).toString("latin1");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (status >= 200 && status < 300) return;
  if (status === 407) throw new ProbeFailure("credentials_rejected", "the proxy refused its credentials (407)");
  if (status === 502 || status === 503 || status === 504) {
    throw new ProbeFailure("target_unreachable", `the proxy could not reach the target (${status})`);
  }
  throw new ProbeFailure("protocol_error", Number.isFinite(status) ? `the proxy answered CONNECT with ${status}` : "the proxy did not answer CONNECT in HTTP");
}

/** SOCKS5 reply codes that mean the proxy could not reach the target (RFC 1928, section 6). */
const UNREACHABLE_REPLIES: Readonly<Record<number, string>> = {
  2: "not allowed by its rules",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused",
  6: "TTL expired",
};

async function socks5Connect(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const withCredentials = proxy.username !== undefined;
  // Offer exactly the method we can carry out: username/password when there are credentials, none otherwise.
  write(Buffer.from([5, 1, withCredentials ? 2 : 0]));
  reader.during = "the SOCKS5 greeting";
  const [version, method] = await reader.bytes(2);
  if (version !== 5) throw new ProbeFailure("protocol_error", "the proxy did not answer in SOCKS5");
  if (method === 0xff) {
    throw new ProbeFailure(
      withCredentials ? "credentials_rejected" : "protocol_error",
      withCredentials ? "the proxy accepts no username and password" : "the proxy requires credentials and none were given",
    );
  }
  if (method === 2) {
    const user = Buffer.from(proxy.username ?? "");
    const pass = Buffer.from(proxy.password ?? "");
    write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    reader.during = "SOCKS5 authentication";
    const [, status] = await reader.bytes(2);
    if (status !== 0) throw new ProbeFailure("credentials_rejected", "the proxy refused its credentials (SOCKS5)");
  } else if (method !== 0) {
    throw new ProbeFailure("protocol_error", `the proxy chose a SOCKS5 method it was not offered (${method})`);
  }
  write(Buffer.concat([Buffer.from([5, 1, 0]), socksAddress(target.host), Buffer.from([target.port >> 8, target.port & 0xff])]));
  reader.during = "the SOCKS5 connect";
  const [replyVersion, reply, , type] = await reader.bytes(4);
  if (replyVersion !== 5) throw new ProbeFailure("protocol_error", "the proxy's SOCKS5 reply is not SOCKS5");
  if (reply !== 0) {
    const why = UNREACHABLE_REPLIES[reply ?? -1];
    throw new ProbeFailure(why ? "target_unreachable" : "protocol_error", `the proxy could not reach the target: ${why ?? `SOCKS5 reply ${reply}`}`);
  }
  const addressLength = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? ((await reader.bytes(1))[0] ?? 0) : -1;
  if (addressLength < 0) throw new ProbeFailure("protocol_error", "the proxy's SOCKS5 reply has an unknown address type");
  await reader.bytes(addressLength + 2);
}

/** The target's address as SOCKS5 writes it: IPv4, IPv6, or a name the proxy resolves. */
function socksAddress(host: string): Buffer {
  const family = isIP(host);
  if (family === 4) return Buffer.from([1, ...host.split(".").map(Number)]);
  if (family === 6) return Buffer.concat([Buffer.from([4]), ipv6Bytes(host)]);
  const name = Buffer.from(host);
  return Buffer.concat([Buffer.from([3, name.length]), name]);
}

function ipv6Bytes(address: string): Buffer {
  const [head = "", tail = ""] = address.split("::");
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = address.includes("::") ? groups(tail) : [];
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}
