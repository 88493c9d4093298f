/**
 * A tunnel through a proxy to the target's host and port: HTTP `CONNECT` (RFC 9110, section 9.3.6) with Basic
 * credentials, or SOCKS5 (RFC 1928) with username and password (RFC 1929). Either ends with the proxy's socket carrying
 * the target's bytes.
 */
import { isIP } from "node:net";
import { OtherProtocol, ProbeFailure, TunnelForbidden } from "./failure";
import type { SocketReader } from "./reader";
import type { ProxyToCheck } from "./types";

/** Where the tunnel goes. */
export interface TunnelTarget {
  host: string;
  port: number;
}

/** The target as CONNECT names it: `host:port`, an IPv6 address in brackets. */
export function authorityOf(target: TunnelTarget): string {
  return `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
}

/** The stage of waiting for the answer to a SOCKS5 greeting, as a check names it. */
export const SOCKS5_GREETING = "the SOCKS5 greeting";

/** The longest CONNECT answer head read. */
const MAX_HEAD = 16_384;

/** The protocols a check speaks to a proxy. */
export type ProxyProtocol = "http" | "socks5";

/**
 * The protocol a record names, in the check's terms (none is `http`, and so is `https`; `socks5h`, SOCKS5 that resolves
 * names at the proxy, is `socks5`, which the check always asks to); undefined for any other.
 */
export function protocolOf(proxy: Pick<ProxyToCheck, "protocol">): ProxyProtocol | undefined {
  const protocol = (proxy.protocol ?? "http").toLowerCase();
  return protocol === "http" || protocol === "https" ? "http" : protocol === "socks5" || protocol === "socks5h" ? "socks5" : undefined;
}

/** Opens the tunnel on a connected socket (written with `write`, read with `reader`) by the proxy's protocol. */
export async function openTunnel(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const protocol = protocolOf(proxy);
  if (protocol === "http") return httpConnect(proxy, target, reader, write);
  if (protocol === "socks5") return socks5Connect(proxy, target, reader, write);
  throw new ProbeFailure("unsupported_protocol", `the proxy's protocol "${(proxy.protocol ?? "").toLowerCase()}" is none of http, https, socks5 and socks5h`);
}

async function httpConnect(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  write(Buffer.from(`${connectRequest(authorityOf(target), proxy).join("\r\n")}\r\n\r\n`, "latin1"));
  reader.during = "waiting for the proxy's answer to CONNECT";
  let head: string;
  try {
    head = (await reader.through("\r\n\r\n", MAX_HEAD)).toString("latin1");
  } catch (error) {
    throw unfinishedConnect(error, reader.pending());
  }
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  if (!Number.isFinite(status)) throw notHttp();
  if (status >= 200 && status < 300) return;
  throw connectRefused(status, head, proxy.username !== undefined);
}

/** The CONNECT request's lines: Basic credentials when the proxy has a username. */
export function connectRequest(authority: string, proxy: Pick<ProxyToCheck, "username" | "password">): string[] {
  return [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`, ...proxyAuthorization(proxy)];
}

/** The `Proxy-Authorization` line of a request to the proxy: Basic, when the proxy has a username; none otherwise. */
export function proxyAuthorization(proxy: Pick<ProxyToCheck, "username" | "password">): string[] {
  if (proxy.username === undefined) return [];
  return [`Proxy-Authorization: Basic ${Buffer.from(`${proxy.username}:${proxy.password ?? ""}`).toString("base64")}`];
}

function notHttp(): ProbeFailure {
  return new OtherProtocol("socks5", "the proxy answered CONNECT with bytes that are not HTTP: check the record's protocol (a SOCKS5 proxy answers so)");
}

/** A CONNECT answer cut short: bytes of another protocol, an unfinished HTTP head, or nothing at all. */
function unfinishedConnect(error: unknown, received: Buffer): unknown {
  if (!(error instanceof ProbeFailure) || error.kind !== "closed") return error;
  if (received.length === 0) return new ProbeFailure("closed", "the proxy closed the connection without answering CONNECT", true);
  if (!"HTTP/".startsWith(received.subarray(0, 5).toString("latin1"))) return notHttp();
  return new ProbeFailure("closed", "the proxy closed the connection in the middle of its answer to CONNECT");
}

/**
 * Why a proxy that asks for credentials failed a record that carries none (`credentials_rejected`, after `what`): the
 * API left them out of the record, or the proxy is allow-listed by address and this is not an address it allows.
 */
export function noCredentials(what: string): string {
  return `the proxy asks for a username and password (${what}), and its record has none: the API did not return them, or the proxy admits allow-listed addresses without them and this is not one (allow the address Pulumi runs from with the vendor)`;
}

/** Authentication schemes a proxy may ask for instead of Basic, named by this table, never by the proxy's text. */
const OTHER_SCHEMES: Readonly<Record<string, string>> = { digest: "Digest", ntlm: "NTLM", negotiate: "Negotiate", bearer: "Bearer" };

/**
 * A CONNECT answered with a status outside 2xx, judged as RFC 9110 means it and as proxies send it: 407, or 401 (which
 * tinyproxy sends), refuses the credentials, or asks for them where the record has none; 403 refuses the destination;
 * any 5xx but 501 and 505 is the proxy's failure to reach the target (squid and ncat send 502-504, tinyproxy 500).
 */
function connectRefused(status: number, head: string, withCredentials: boolean): ProbeFailure {
  if ((status === 407 || status === 401) && !withCredentials) return new ProbeFailure("credentials_rejected", noCredentials(String(status)));
  if (status === 407 || status === 401) {
    const challenge = new RegExp(`\r\n${status === 407 ? "proxy" : "www"}-authenticate:\\s*([^\\s\r,]+)`, "i").exec(head)?.[1]?.toLowerCase();
    const scheme = OTHER_SCHEMES[challenge ?? ""];
    const other = scheme ? `; it asks for ${scheme} authentication, and this check sends Basic` : "";
    return new ProbeFailure("credentials_rejected", `the proxy refused its credentials (${status})${other}`);
  }
  if (status === 403) return new TunnelForbidden("the proxy refused the tunnel (403): its rules do not allow this target or this source address");
  if (status >= 500 && status !== 501 && status !== 505) return new ProbeFailure("target_unreachable", `the proxy could not reach the target (${status})`);
  if (status === 400 || status === 405 || status === 501) {
    return new ProbeFailure("protocol_error", `the proxy does not offer CONNECT (${status}): check the record's protocol and port`);
  }
  return new ProbeFailure("protocol_error", `the proxy answered CONNECT with ${status}`);
}

/**
 * SOCKS5 reply codes that mean the proxy could not reach the target (RFC 1928, section 6). 1, "general failure", is
 * what many servers send for every failed connection (OpenSSH's dynamic forwarding among them).
 */
const UNREACHABLE_REPLIES: Readonly<Record<number, string>> = {
  1: "general failure",
  2: "not allowed by its rules",
  3: "network unreachable",
  4: "host unreachable",
  5: "connection refused",
  6: "TTL expired",
};

/**
 * SOCKS5 reply 2 ("not allowed by ruleset") to a client whose username and password the proxy said it accepted. It has
 * two readings: 3proxy, which many sellers run, answers a wrong password so (its 1.0.0, built here, accepts any
 * password at RFC 1929's step and refuses at the connect), and any server says so when its rules refuse the target or
 * the client. The wrong password is the likelier: checked first.
 */
const RULES_AFTER_CREDENTIALS =
  "the proxy accepted the username and password, then refused the connection by its rules (SOCKS5 reply 2): " +
  "either the password is wrong (3proxy answers a wrong password so) or its rules do not allow this target or this client; " +
  "check the credentials first, then the proxy's rules";

async function socks5Connect(proxy: ProxyToCheck, target: TunnelTarget, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const withCredentials = proxy.username !== undefined;
  // Offer exactly the method we can carry out: username/password when there are credentials, none otherwise.
  write(Buffer.from([5, 1, withCredentials ? 2 : 0]));
  reader.during = SOCKS5_GREETING;
  const method = await socksGreetingAnswer(reader);
  if (method === 0xff) throw new ProbeFailure("credentials_rejected", withCredentials ? "the proxy accepts no username and password" : noCredentials("SOCKS5"));
  if (method === 2) await socks5Authenticate(proxy, reader, write);
  else if (method !== 0) throw new ProbeFailure("protocol_error", `the proxy chose a SOCKS5 method it was not offered (${method})`);
  write(Buffer.concat([Buffer.from([5, 1, 0]), socksAddress(target.host), Buffer.from([target.port >> 8, target.port & 0xff])]));
  reader.during = "the SOCKS5 connect";
  const [replyVersion, reply, , type] = await socksReply(reader);
  if (replyVersion !== 5) throw new ProbeFailure("protocol_error", "the proxy's SOCKS5 reply is not SOCKS5");
  if (reply === 2 && method === 2) throw new ProbeFailure("target_unreachable", RULES_AFTER_CREDENTIALS);
  if (reply !== 0) {
    const why = UNREACHABLE_REPLIES[reply ?? -1];
    throw new ProbeFailure(why ? "target_unreachable" : "protocol_error", `the proxy could not reach the target: ${why ?? `SOCKS5 reply ${reply}`}`);
  }
  const addressLength = type === 1 ? 4 : type === 4 ? 16 : type === 3 ? ((await reader.bytes(1))[0] ?? 0) : -1;
  if (addressLength < 0) throw new ProbeFailure("protocol_error", "the proxy's SOCKS5 reply has an unknown address type");
  await reader.bytes(addressLength + 2);
}

/**
 * The head of the reply to a SOCKS5 connect. Servers that fail cut it short: the npm socksv5 server sends the version
 * and the reply code alone, then closes; one that closes without a byte, after accepting the credentials, could not
 * reach the target either.
 */
async function socksReply(reader: SocketReader): Promise<Buffer> {
  try {
    return await reader.bytes(4);
  } catch (error) {
    if (!(error instanceof ProbeFailure && error.kind === "closed")) throw error;
    const got = reader.pending();
    if (got.length === 0) throw new ProbeFailure("target_unreachable", "the proxy closed the connection at the SOCKS5 connect without a reply: it could not reach the target");
    if (got.length >= 2 && got[0] === 5 && got[1] !== 0) return Buffer.from([5, got[1]!, 0, 0]);
    throw error;
  }
}

/** The method the proxy chose; bytes that are not SOCKS5, or a close without a byte, say it speaks something else. */
async function socksGreetingAnswer(reader: SocketReader): Promise<number | undefined> {
  let answer: Buffer;
  try {
    answer = await reader.bytes(2);
  } catch (error) {
    if (!(error instanceof ProbeFailure && error.kind === "closed")) throw error;
    if (reader.pending().length === 0) throw new ProbeFailure("closed", "the proxy closed the connection without answering the SOCKS5 greeting", true);
    answer = reader.pending();
  }
  if (answer[0] !== 5) throw new ProbeFailure("protocol_error", "the proxy did not answer in SOCKS5: check the record's protocol (an HTTP proxy answers so)");
  if (answer.length < 2) throw new ProbeFailure("closed", "the proxy closed the connection in the middle of its SOCKS5 greeting");
  return answer[1];
}

/**
 * The username/password sub-negotiation (RFC 1929). A status other than 0 refuses the credentials; so does a close
 * without a status, which some servers send instead (pproxy), as the RFC has them close after a refusal.
 */
async function socks5Authenticate(proxy: ProxyToCheck, reader: SocketReader, write: (bytes: Buffer) => void): Promise<void> {
  const user = Buffer.from(proxy.username ?? "");
  const pass = Buffer.from(proxy.password ?? "");
  write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
  reader.during = "SOCKS5 authentication";
  let status: number | undefined;
  try {
    [, status] = await reader.bytes(2);
  } catch (error) {
    if (!(error instanceof ProbeFailure && error.kind === "closed")) throw error;
    throw new ProbeFailure("credentials_rejected", "the proxy closed the connection on its credentials without a status (SOCKS5): a refusal");
  }
  if (status !== 0) throw new ProbeFailure("credentials_rejected", "the proxy refused its credentials (SOCKS5)");
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
