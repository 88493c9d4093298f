/**
 * Where a proxy exits, as an echo target reports it: the caller's address and, when the target says one, its country.
 * Read from a JSON object with one of the fields such services use (`ip`, `origin`, `query`, ...; `countryCode`,
 * `country_code`, a two-letter `country`, ...), from `key=value` lines (Cloudflare's trace: `ip=`, `loc=`), or from a
 * body that is only the address.
 */
import { isIP } from "node:net";

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
  if (isIP(text)) return { ip: text };
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

/** The first address of a field's value: httpbin's `origin` lists the forwarding chain, "client, proxy". */
function addressIn(value: unknown): string | undefined {
  const first = typeof value === "string" ? value.split(",")[0]?.trim() : undefined;
  return first && isIP(first) ? first : undefined;
}
