/**
 * Where a proxy exits, as an echo target reports it: the caller's address and, when the target says one, its country.
 * Read from a JSON object with one of the fields such services use (`ip`, `origin`, `query`, ...; `countryCode`,
 * `country_code`, a two-letter `country`, ...), from `key=value` lines (Cloudflare's trace: `ip=`, `loc=`), or from a
 * body that is only the address.
 */
import { BlockList, isIP } from "node:net";

/** What an echo target said of the caller. */
export interface Exit {
  ip?: string;
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
}

/** The fields echo services put the caller's address in, in the order tried. */
const ADDRESS_FIELDS = ["ip", "origin", "address", "query", "clientIp", "client_ip", "remoteAddress", "remote_addr"];
/**
 * The fields they put its country in, in the order tried: ipinfo's and ipapi.co's `country` is a code, ip-api's is a
 * name beside `countryCode`, so a `country` counts only when it is a code.
 */
const COUNTRY_FIELDS = ["countryCode", "country_code", "country", "cc", "loc"];

/** The address and country the target saw; an empty object when its body reports neither. */
export function exitOf(body: string): Exit {
  const text = body.trim();
  if (isIP(text)) return { ip: addressIn(text) ?? text };
  const fields = jsonFields(text) ?? lineFields(text);
  if (!fields) return {};
  const ip = ADDRESS_FIELDS.map((field) => addressIn(fields[field])).find((found) => found !== undefined);
  const country = COUNTRY_FIELDS.map((field) => fields[field]).find((value): value is string => typeof value === "string" && /^[A-Za-z]{2}$/.test(value));
  return { ...(ip ? { ip } : {}), ...(country ? { country: country.toUpperCase() } : {}) };
}

function jsonFields(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** `key=value` lines, as Cloudflare's `/cdn-cgi/trace` answers; undefined when the body has none. */
function lineFields(text: string): Record<string, string> | undefined {
  const pairs = text.split("\n").map((line) => /^([\w-]+)=(.*)$/.exec(line.trim())).filter((m): m is RegExpExecArray => m !== null);
  return pairs.length > 0 ? Object.fromEntries(pairs.map((m) => [m[1], m[2]!.trim()])) : undefined;
}

/** Addresses no hop on the internet has: private, loopback, link-local and unique-local ranges. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["127.0.0.0", 8], ["169.254.0.0", 16], ["100.64.0.0", 10]] as const) {
  PRIVATE.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [["::1", 128], ["fc00::", 7], ["fe80::", 10]] as const) PRIVATE.addSubnet(network, prefix, "ipv6");

/**
 * The address that reached the target, in a field's value. httpbin's `origin` is the forwarding chain as
 * `X-Forwarded-For` writes it, each hop appending the address it was reached from: through a proxy that adds the
 * header (squid does, for requests it forwards), "caller, proxy". So the exit is the last public address (hops inside
 * the target's own network append private ones), or the last address when none is public.
 */
function addressIn(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  // An IPv4 address as an IPv6 socket reports it (`::ffff:203.0.113.7`) is that IPv4 address.
  const chain = value
    .split(",")
    .map((part) => part.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, ""))
    .filter((part) => isIP(part) !== 0);
  return [...chain].reverse().find((address) => !PRIVATE.check(address, isIP(address) === 6 ? "ipv6" : "ipv4")) ?? chain.at(-1);
}
